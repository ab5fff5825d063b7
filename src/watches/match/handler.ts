import type { DynamoDBStreamEvent } from 'aws-lambda';
import type { Clock } from '../../clock.js';
import type { Stage } from '../../config.js';
import { logger } from '../../logger.js';
import { emfLine, MATCH_METRICS, toStdout } from '../../metrics.js';
import { logTransitionOf, type ListingTransition } from '../../changes/index.js';
import type { MatchResult } from './transitions.js';

export interface MatchHandlerDependencies {
  match: (transitions: readonly ListingTransition[]) => Promise<MatchResult>;
  clock: Clock;
  stage: Stage;
  /** Where the metrics line goes (default: stdout, as Lambda's EMF wants). */
  emit?: (line: string) => void;
}

/**
 * The matcher's function (src/function-table.ts `matchWatches`): fed by the legs table's stream
 * apart from the change consumer, it reads the change log's state records (src/changes/log-stream.ts)
 * and matches their transitions. A record it cannot read is logged with its key, counted and
 * skipped; a failure of the database throws, and the batch is retried (then its on-failure queue).
 */
export function createMatchHandler(deps: MatchHandlerDependencies): (event: DynamoDBStreamEvent) => Promise<void> {
  const emit = deps.emit ?? toStdout;
  return async (event) => {
    const transitions: ListingTransition[] = [];
    let oldest: number | undefined;
    let unreadable = 0;
    for (const record of event.Records) {
      try {
        const t = logTransitionOf(record);
        if (t === undefined) continue;
        transitions.push(t);
      } catch (err) {
        unreadable++;
        logger.error('unreadable change log state record skipped', { id: record.dynamodb?.Keys?.id?.S, sequenceNumber: record.dynamodb?.SequenceNumber, error: err as Error });
        continue;
      }
      const created = record.dynamodb?.ApproximateCreationDateTime;
      if (created !== undefined) oldest = Math.min(oldest ?? Infinity, created * 1000);
    }
    if (transitions.length === 0 && unreadable === 0) return;
    const result = transitions.length === 0 ? { deliveries: 0, queued: 0, withoutKey: 0, malformed: 0 } : await deps.match(transitions);
    const now = deps.clock();
    const m = MATCH_METRICS;
    emit(
      emfLine(
        m.namespace,
        { [m.dimension]: deps.stage },
        {
          [m.deliveries]: result.deliveries,
          [m.withoutKey]: result.withoutKey,
          [m.malformed]: result.malformed + unreadable,
          [m.lagMs]: oldest === undefined ? 0 : Math.max(0, now - oldest),
        },
        new Date(now),
      ),
    );
  };
}
