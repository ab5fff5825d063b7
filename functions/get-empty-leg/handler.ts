import { createFunctionClient } from '../../src/aws/function-clients.js';
import { functionConfig } from '../../src/config.js';
import { createGetLegHandler } from '../../src/leg-by-id/handler.js';
import { createLegReader } from '../../src/leg-by-id/store.js';
import { cachedRates, createRatesStore } from '../../src/rates/index.js';
import { createFlightLookup } from '../../src/leg-by-id/flight.js';
import { createListRepository } from '../../src/listing/list-handler.js';
import { cachedRegistry, createSourcesStore } from '../../src/sources/index.js';

/** GET /open/v1/empty-legs/{id} (src/routes.ts); the handler is built by src/leg-by-id/handler.ts. */
const config = functionConfig();
const client = createFunctionClient(config);
const rates = cachedRates(createRatesStore(client, config.legsTableName), { clock: config.clock });
const registry = cachedRegistry(createSourcesStore(client, config.legsTableName), { clock: config.clock });
// group=flight reads the leg's route from the listing index, uncached: the by-id route is never behind.
const flight = createFlightLookup({ repository: createListRepository(client, { legsTableName: config.legsTableName, listingCacheTtlSeconds: 0 }), rates, registry });
export const handler = createGetLegHandler({ readLeg: createLegReader(client, config.legsTableName), clock: config.clock, rates, registry, flight });
