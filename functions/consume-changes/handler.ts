import { createFunctionClient } from '../../src/aws/function-clients.js';
import { createChangeConsumerHandler } from '../../src/changes/handlers.js';
import { createChangeLogStore } from '../../src/changes/store.js';
import { functionConfig } from '../../src/config.js';

/** The legs table's stream (src/function-table.ts); the handler is built by src/changes/handlers.ts. The watches match apart (functions/match-watches). */
const config = functionConfig();
const client = createFunctionClient(config);
export const handler = createChangeConsumerHandler({
  store: createChangeLogStore(client, config.legsTableName),
  clock: config.clock,
  stage: config.stage,
});
