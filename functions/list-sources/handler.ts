import { createFunctionClient } from '../../src/aws/function-clients.js';
import { functionConfig } from '../../src/config.js';
import { createListRepository } from '../../src/listing/list-handler.js';
import { countListedBySource } from '../../src/listing/index.js';
import { createSourcesHandler } from '../../src/sources/handlers.js';
import { cachedRegistry, createSourcesStore } from '../../src/sources/index.js';

/** GET /open/v1/sources (src/routes.ts); the handler is built by src/sources/handlers.ts. */
const config = functionConfig();
const client = createFunctionClient(config);
const repository = createListRepository(client, config);
export const handler = createSourcesHandler({
  registry: cachedRegistry(createSourcesStore(client, config.legsTableName), { clock: config.clock }),
  countListed: (now) => countListedBySource(repository, now),
  clock: config.clock,
});
