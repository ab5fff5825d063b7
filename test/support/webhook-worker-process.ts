import { readWatchesConfig } from '../../src/config.js';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { startQueueWorker } from '../../local/watches/queue-worker.js';
import { handler } from '../../functions/deliver-webhooks/handler.js';

/**
 * A delivery worker in a process of its own (for a test to kill): the local queue poller feeding the
 * real delivery function, configured from the environment as the function is. Prints `ready`.
 */
const config = readWatchesConfig(process.env);
const client = createDocumentClient({ endpoint: config.dynamodbEndpoint, region: 'local' });
startQueueWorker({
  client,
  tableName: config.localQueueTableName,
  handler,
  clock: config.clock,
  pollMs: 100,
  visibilityMs: Number(process.env.TEST_VISIBILITY_MS ?? 30_000),
  say: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write('ready\n');
