import { createFunctionClient } from '../../src/aws/function-clients.js';
import { createChangeConsumerHandler } from '../../src/changes/handlers.js';
import { journalFollower } from '../../src/changes/journal-follower.js';
import { createChangeLogStore } from '../../src/changes/store.js';
import { functionConfig } from '../../src/config.js';

/** The legs table's stream (src/routes.ts); the handler is built by src/changes/handlers.ts. */
const config = functionConfig();
const client = createFunctionClient(config);
export const handler = createChangeConsumerHandler({
  store: createChangeLogStore(client, config.legsTableName),
  clock: config.clock,
  stage: config.stage,
  // The list functions' caches follow the change journal: writes made around the tools join it here.
  itemSubscribers: [journalFollower(client, config.legsTableName, config.clock)],
});
