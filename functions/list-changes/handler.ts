import { createFunctionClient } from '../../src/aws/function-clients.js';
import { createChangesHandler } from '../../src/changes/handlers.js';
import { createChangeLogStore } from '../../src/changes/store.js';
import { changesFunctionConfig } from '../../src/config.js';
import { createSweepStore } from '../../src/sweep/index.js';
import { cachedRegistry, createSourcesStore, sourceFactsOfRegistry } from '../../src/sources/index.js';

/** GET /open/v1/empty-legs/changes (src/routes.ts); the handler is built by src/changes/handlers.ts. */
const config = changesFunctionConfig();
const client = createFunctionClient(config);
const sweep = createSweepStore(client, config.legsTableName);
const registry = cachedRegistry(createSourcesStore(client, config.legsTableName), { clock: config.clock });
export const handler = createChangesHandler({
  store: createChangeLogStore(client, config.legsTableName),
  clock: config.clock,
  cursorKey: config.cursorKey,
  // A first read leaves out the legs of the sources the feed has told stale (the sweep's state), as the log does.
  staleSources: async () => {
    const told = (await sweep.state())?.stale;
    return (source) => told?.has(source) === true;
  },
  sourceFacts: sourceFactsOfRegistry(registry),
});
