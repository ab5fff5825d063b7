import { createStreamsClient } from '../../src/aws/dynamodb-streams.js';
import { createChangeConsumerHandler } from '../../src/changes/handlers.js';
import { createChangeLogStore } from '../../src/changes/store.js';
import type { Clock } from '../../src/clock.js';
import { createStreamPoller, type StreamPoller } from '../../local/stream-poller.js';
import { testClock } from './clock.js';
import type { TestTables } from './dynamodb.js';

/** The change consumer on a test table's stream (DynamoDB Local), as `npm start` runs it; started. */
export function startChangeConsumer(t: TestTables, clock: Clock = testClock): StreamPoller {
  const handle = createChangeConsumerHandler({ store: createChangeLogStore(t.client, t.legsTableName), clock, stage: 'sandbox', emit: () => undefined });
  const poller = createStreamPoller({ streams: createStreamsClient({ endpoint: t.endpoint }), client: t.client, tableName: t.legsTableName, handle, idleMs: 50 });
  poller.start();
  return poller;
}
