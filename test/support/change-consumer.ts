import { createStreamsClient } from '../../src/aws/dynamodb-streams.js';
import { createChangeConsumerHandler, type ConsumerDependencies } from '../../src/changes/handlers.js';
import { createChangeLogStore } from '../../src/changes/store.js';
import type { Clock } from '../../src/clock.js';
import { createStreamPoller, type StreamPoller, type StreamPollerOptions } from '../../local/stream-poller.js';
import { testClock } from './clock.js';
import type { TestTables } from './dynamodb.js';

/** What a test may add to the consumer: the sources stale at an instant, where a batch that failed goes. */
export interface ChangeConsumerOptions {
  staleSources?: ConsumerDependencies['staleSources'];
  onFailure?: StreamPollerOptions['onFailure'];
}

/** The change consumer on a test table's stream (DynamoDB Local), as `npm start` runs it; started. */
export function startChangeConsumer(t: TestTables, clock: Clock = testClock, options: ChangeConsumerOptions = {}): StreamPoller {
  const handle = createChangeConsumerHandler({ store: createChangeLogStore(t.client, t.legsTableName), clock, stage: 'sandbox', emit: () => undefined, staleSources: options.staleSources });
  const poller = createStreamPoller({ streams: createStreamsClient({ endpoint: t.endpoint }), client: t.client, tableName: t.legsTableName, handle, idleMs: 50, onFailure: options.onFailure });
  poller.start();
  return poller;
}
