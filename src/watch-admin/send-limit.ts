import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { writtenIf } from '../aws/dynamodb.js';
import { AppError } from '../errors.js';
import type { WatchTables } from '../watches/index.js';

/**
 * Test events and replays per client (docs/api.md, "Testing a watch"): at most SENDS_PER_WINDOW in
 * any SEND_WINDOW_MS, counted before the attempt, whatever the receiver then does. The client's
 * item `~sends#<clientId>` of the watches table keeps the instants of its last sends; each send is
 * a conditional update of the list as read, so concurrent sends never both take the last place.
 */
export const SENDS_PER_WINDOW = 10;
export const SEND_WINDOW_MS = 60_000;
/** A send loses a race only to one that took a place: after SENDS_PER_WINDOW losses the list is full. */
const ATTEMPTS = SENDS_PER_WINDOW + 2;

const sendsKey = (clientId: string) => ({ clientId: `~sends#${clientId}`, watchId: '~sends' });

/** The sends kept and the seconds until a place frees, or none: pure. */
export function admit(sends: readonly number[], now: number): { kept: number[]; retryAfterSeconds?: number } {
  const kept = sends.filter((at) => at > now - SEND_WINDOW_MS && at <= now).sort((a, b) => a - b);
  if (kept.length < SENDS_PER_WINDOW) return { kept: [...kept, now] };
  const frees = kept[kept.length - SENDS_PER_WINDOW]! + SEND_WINDOW_MS;
  return { kept, retryAfterSeconds: Math.max(1, Math.ceil((frees - now) / 1000)) };
}

export function sendLimitedError(retryAfterSeconds: number): AppError {
  return new AppError('RATE_LIMITED', `At most ${SENDS_PER_WINDOW} test events and replays a minute per client; retry after ${retryAfterSeconds} s`, {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}

/** Counts one send of `clientId` at `now`, or throws RATE_LIMITED (with Retry-After) when its minute is full. */
export async function countSend(t: WatchTables, clientId: string, now: number): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const out = await t.client.send(new GetCommand({ TableName: t.watchesTableName, Key: sendsKey(clientId), ConsistentRead: true }));
    const version = typeof out.Item?.v === 'number' ? out.Item.v : 0;
    const sends = Array.isArray(out.Item?.sends) ? (out.Item.sends as unknown[]).filter((x): x is number => typeof x === 'number') : [];
    const { kept, retryAfterSeconds } = admit(sends, now);
    if (retryAfterSeconds !== undefined) throw sendLimitedError(retryAfterSeconds);
    const written = await writtenIf(() =>
      t.client.send(
        new UpdateCommand({
          TableName: t.watchesTableName,
          Key: sendsKey(clientId),
          UpdateExpression: 'SET sends = :sends, v = :next',
          ConditionExpression: version === 0 ? 'attribute_not_exists(v)' : 'v = :v',
          ExpressionAttributeValues: { ':sends': kept, ':next': version + 1, ...(version === 0 ? {} : { ':v': version }) },
        }),
      ),
    );
    if (written) return;
  }
  throw new AppError('SERVICE_UNAVAILABLE', 'Too many test events and replays at once for this client; retry in a moment');
}
