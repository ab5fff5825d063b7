import { createFunctionClient } from '../../src/aws/function-clients.js';
import { createChangesHandler } from '../../src/changes/handlers.js';
import { createChangeLogStore } from '../../src/changes/store.js';
import { changesFunctionConfig } from '../../src/config.js';
import { cachedRegistry, createSourcesStore, sourceFactsOfRegistry } from '../../src/sources/index.js';

/** GET /open/v1/empty-legs/changes (src/routes.ts); the handler is built by src/changes/handlers.ts. */
const config = changesFunctionConfig();
const client = createFunctionClient(config);
const registry = cachedRegistry(createSourcesStore(client, config.legsTableName), { clock: config.clock });
export const handler = createChangesHandler({
  store: createChangeLogStore(client, config.legsTableName),
  clock: config.clock,
  cursorKey: config.cursorKey,
  sourceFacts: sourceFactsOfRegistry(registry),
});
