import { airportReference } from '../../src/airports/reference.js';
import { createFunctionClient } from '../../src/aws/function-clients.js';
import { watchesFunctionConfig } from '../../src/config.js';
import { createLegReader } from '../../src/leg-by-id/store.js';
import { createListRepository } from '../../src/listing/list-handler.js';
import { countListedBySource } from '../../src/listing/index.js';
import { createMcpHandler } from '../../src/mcp/handler.js';
import { cachedRates, createRatesStore } from '../../src/rates/index.js';
import { systemResolver } from '../../src/watches/target.js';
import { cachedFacts, cachedRegistry, createSourcesStore } from '../../src/sources/index.js';

/** /open/v1/mcp (src/routes.ts); the handler is built by src/mcp/handler.ts. */
const config = watchesFunctionConfig();
const client = createFunctionClient(config);
const rates = cachedRates(createRatesStore(client, config.legsTableName), { clock: config.clock });
const repository = createListRepository(client, config);
const registry = cachedRegistry(createSourcesStore(client, config.legsTableName), { clock: config.clock });
export const handler = createMcpHandler({
  repository,
  readLeg: createLegReader(client, config.legsTableName),
  sources: {
    registry,
    countListed: (now) => countListedBySource(repository, now),
  },
  watches: {
    tables: { client, watchesTableName: config.watchesTableName, deliveriesTableName: config.deliveriesTableName },
    airports: airportReference,
    targets: config.webhookTargets,
    resolver: systemResolver,
    clock: config.clock,
    rates,
  },
  clock: config.clock,
  rates,
  sourceFacts: cachedFacts(registry),
  listingCacheTtlSeconds: config.listingCacheTtlSeconds,
});
