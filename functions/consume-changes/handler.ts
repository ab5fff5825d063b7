import { createFunctionClient } from '../../src/aws/function-clients.js';
import { createChangeConsumerHandler } from '../../src/changes/handlers.js';
import { createChangeLogStore } from '../../src/changes/store.js';
import { functionConfig } from '../../src/config.js';
import { createSourcesStore, staleSourcesAt } from '../../src/sources/index.js';

/** The legs table's stream (src/function-table.ts); the handler is built by src/changes/handlers.ts. The watches match apart (functions/match-watches). */
const config = functionConfig();
const client = createFunctionClient(config);
const sources = createSourcesStore(client, config.legsTableName);
export const handler = createChangeConsumerHandler({
  store: createChangeLogStore(client, config.legsTableName),
  clock: config.clock,
  stage: config.stage,
  // The registry read with each batch of legs: a stale source's legs are not listed after their change.
  staleSources: async (now) => staleSourcesAt(await sources.read(), now),
});
