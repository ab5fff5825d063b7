import type { DynamoDBStreamEvent } from 'aws-lambda';
import { withDeadline } from '../aws/deadline.js';
import type { Clock } from '../clock.js';
import type { Stage } from '../config.js';
import { successResponse } from '../http/envelope.js';
import { httpFunction, requireApiKey, traceIdOf, type HttpHandler } from '../http/middleware.js';
import { logger } from '../logger.js';
import { CHANGE_METRICS, emfLine, toStdout } from '../metrics.js';
import { ROUTES } from '../routes.js';
import { invocationDeadlineMs } from '../time-budget.js';
import { consumeChanges } from './consume.js';
import { parseChangesQuery, readChanges, type FeedDependencies } from './feed.js';
import type { ChangeLogStore } from './store.js';
import { itemChangeOf, type ItemChange, type StaleSources, type TransitionSubscriber } from './transition.js';

/** GET /open/v1/empty-legs/changes (src/routes.ts): parse `after` and `size`, read the feed, answer in the envelope. */
export function createChangesHandler(deps: FeedDependencies): HttpHandler {
  return httpFunction({ gzip: true })
    .use(requireApiKey(ROUTES.listChanges.scope))
    .handler(async (event, context) => {
      const query = parseChangesQuery(event.queryStringParameters, deps.cursorKey);
      const page = await withDeadline(invocationDeadlineMs('listChanges', context), () => readChanges(query, deps));
      return successResponse(page, traceIdOf({ context }));
    });
}

export interface ConsumerDependencies {
  store: ChangeLogStore;
  clock: Clock;
  stage: Stage;
  subscribers?: readonly TransitionSubscriber[];
  /** The sources stale at an instant (src/changes/consume.ts). */
  staleSources?: (now: number) => Promise<StaleSources>;
  /** Where the metrics line goes (default: stdout, as Lambda's EMF wants). */
  emit?: (line: string) => void;
}

/**
 * The legs table's stream consumer (`consumeChanges`, src/function-table.ts): the batch's records
 * become the change log's entries and the subscribers' transitions. A failure throws, and the batch
 * is retried (docs/deploy.md, "13. The change log (the legs table's stream)").
 */
export function createChangeConsumerHandler(deps: ConsumerDependencies): (event: DynamoDBStreamEvent) => Promise<void> {
  const emit = deps.emit ?? toStdout;
  return async (event) => {
    const changes: ItemChange[] = [];
    let oldest: number | undefined;
    for (const record of event.Records) {
      const change = itemChangeOf(record);
      if (change) changes.push(change);
      const created = record.dynamodb?.ApproximateCreationDateTime;
      if (created !== undefined) oldest = Math.min(oldest ?? Infinity, created * 1000);
    }
    const result = await consumeChanges(changes, deps);
    const now = deps.clock();
    const m = CHANGE_METRICS;
    emit(
      emfLine(
        m.namespace,
        { [m.dimension]: deps.stage },
        { [m.entries]: result.entries, [m.transitions]: result.transitions, [m.lagMs]: oldest === undefined ? 0 : Math.max(0, now - oldest) },
        new Date(now),
      ),
    );
    logger.debug('Consumed a stream batch', { records: event.Records.length, ...result });
  };
}
