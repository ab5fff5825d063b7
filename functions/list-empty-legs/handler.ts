import { createFunctionClient } from '../../src/aws/function-clients.js';
import { functionConfig } from '../../src/config.js';
import { createListHandler, createListRepository } from '../../src/listing/list-handler.js';
import { cachedRates, createRatesStore } from '../../src/rates/index.js';
import { cachedRegistry, createSourcesStore } from '../../src/sources/index.js';

/** GET /open/v1/empty-legs (src/routes.ts); the handler is built by src/listing/list-handler.ts. */
const config = functionConfig();
const client = createFunctionClient(config);
const rates = cachedRates(createRatesStore(client, config.legsTableName), { clock: config.clock });
const registry = cachedRegistry(createSourcesStore(client, config.legsTableName), { clock: config.clock });
export const handler = createListHandler({ repository: createListRepository(client, config), config, clock: config.clock, rates, registry });
