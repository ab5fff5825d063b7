import { createFunctionClient } from '../../src/aws/function-clients.js';
import { enquiriesFunctionConfig } from '../../src/config.js';
import { enquiryPortsOf } from '../../src/enquiries/index.js';
import { createFlightLookup } from '../../src/leg-by-id/flight.js';
import { createListRepository } from '../../src/listing/list-handler.js';
import { countListedBySource } from '../../src/listing/index.js';
import { createMcpHandler } from '../../src/mcp/handler.js';
import { cachedFacts, cachedRegistry, createSourcesStore } from '../../src/sources/index.js';
import { watchPortsOf } from '../../src/watches/index.js';

/** /open/v1/mcp (src/routes.ts); the handler is built by src/mcp/handler.ts. */
const config = enquiriesFunctionConfig();
const client = createFunctionClient(config);
// The watch and enquiry ports as functions/watches and functions/enquiries build them.
const watches = watchPortsOf(config, client);
const enquiries = enquiryPortsOf(config, client);
const rates = watches.rates;
const repository = createListRepository(client, config);
const registry = cachedRegistry(createSourcesStore(client, config.legsTableName), { clock: config.clock });
// get_empty_leg's group=flight, as functions/get-empty-leg/handler.ts builds it: the listing index read uncached.
const flight = createFlightLookup({ repository: createListRepository(client, { legsTableName: config.legsTableName, listingCacheTtlSeconds: 0 }), rates, registry });
export const handler = createMcpHandler({
  repository,
  readLeg: enquiries.readLeg,
  flight,
  sources: {
    registry,
    countListed: (now) => countListedBySource(repository, now),
  },
  watches,
  enquiries,
  clock: config.clock,
  rates,
  sourceFacts: cachedFacts(registry),
  listingCacheTtlSeconds: config.listingCacheTtlSeconds,
});
