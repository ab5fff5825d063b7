import { airportReference } from '../../src/airports/reference.js';
import { createFunctionClient } from '../../src/aws/function-clients.js';
import { enquiriesFunctionConfig } from '../../src/config.js';
import { createEnquiryNotifier, readSeller } from '../../src/enquiries/index.js';
import { createWebhookQueue } from '../../src/watches/queue.js';
import { createLegReader } from '../../src/leg-by-id/store.js';
import { createFlightLookup } from '../../src/leg-by-id/flight.js';
import { createListRepository } from '../../src/listing/list-handler.js';
import { countListedBySource } from '../../src/listing/index.js';
import { createMcpHandler } from '../../src/mcp/handler.js';
import { cachedRates, createRatesStore } from '../../src/rates/index.js';
import { systemResolver } from '../../src/watches/target.js';
import { cachedFacts, cachedRegistry, createSourcesStore } from '../../src/sources/index.js';

/** /open/v1/mcp (src/routes.ts); the handler is built by src/mcp/handler.ts. */
const config = enquiriesFunctionConfig();
const client = createFunctionClient(config);
const rates = cachedRates(createRatesStore(client, config.legsTableName), { clock: config.clock });
const repository = createListRepository(client, config);
const registry = cachedRegistry(createSourcesStore(client, config.legsTableName), { clock: config.clock });
const readLeg = createLegReader(client, config.legsTableName);
// get_empty_leg's group=flight, as functions/get-empty-leg/handler.ts builds it: the listing index read uncached.
const flight = createFlightLookup({ repository: createListRepository(client, { legsTableName: config.legsTableName, listingCacheTtlSeconds: 0 }), rates, registry });
const sellerOf = (source: string) => readSeller(client, config.legsTableName, source);
export const handler = createMcpHandler({
  repository,
  readLeg,
  flight,
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
  // The enquiry POST's ports, as functions/enquiries/handler.ts builds them.
  enquiries: {
    table: { client, tableName: config.enquiriesTableName },
    readLeg,
    readSeller: sellerOf,
    clock: config.clock,
    targets: config.webhookTargets,
    resolver: systemResolver,
    notify: createEnquiryNotifier({ queue: createWebhookQueue(config, client), readSeller: sellerOf }),
  },
  clock: config.clock,
  rates,
  sourceFacts: cachedFacts(registry),
  listingCacheTtlSeconds: config.listingCacheTtlSeconds,
});
