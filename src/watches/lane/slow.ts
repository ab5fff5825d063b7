import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { writtenIf } from '../../aws/dynamodb.js';
import type { WatchRecord, WatchTables } from '../store.js';

/**
 * The slow lane (docs/watches.md, "The slow lane"): a receiver that took longer than
 * SLOW_LANE_ANSWER_MS to answer (any answer, a time-out included) is slow for SLOW_LANE_HOLD_MS
 * from that answer; while slow, the shared lane forwards its deliveries to the slow lane's queue.
 */
export const SLOW_LANE_ANSWER_MS = 2_000;
export const SLOW_LANE_HOLD_MS = 3_600_000;
/** A slow watch's `slowUntil` is written again only when it moves by more than this (one write a minute at most). */
const REWRITE_AFTER_MS = 60_000;

export function isSlow(watch: Pick<WatchRecord, 'slowUntil'>, now: number): boolean {
  return watch.slowUntil !== undefined && watch.slowUntil > now;
}

/** The watch's new `slowUntil` after an answer that took `durationMs` at `at`, or undefined when nothing is to be written. */
export function slowUntilAfter(watch: Pick<WatchRecord, 'slowUntil'>, durationMs: number, at: number, answerMs = SLOW_LANE_ANSWER_MS): number | undefined {
  if (durationMs <= answerMs) return undefined;
  const until = at + SLOW_LANE_HOLD_MS;
  return watch.slowUntil !== undefined && until - watch.slowUntil <= REWRITE_AFTER_MS ? undefined : until;
}

/** Sets `slowUntil` on an existing watch, never moving it back (a conditional update). */
export async function markWatchSlow(t: WatchTables, watch: Pick<WatchRecord, 'clientId' | 'watchId'>, until: number): Promise<void> {
  await writtenIf(() =>
    t.client.send(
      new UpdateCommand({
        TableName: t.watchesTableName,
        Key: { clientId: watch.clientId, watchId: watch.watchId },
        UpdateExpression: 'SET slowUntil = :until',
        ConditionExpression: 'attribute_exists(watchId) AND (attribute_not_exists(slowUntil) OR slowUntil < :until)',
        ExpressionAttributeValues: { ':until': until },
      }),
    ),
  );
}
