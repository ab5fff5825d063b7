import { airportReference } from '../../src/airports/reference.js';
import { createFunctionClient } from '../../src/aws/function-clients.js';
import { watchesFunctionConfig } from '../../src/config.js';
import { createLegsRepository } from '../../src/listing/index.js';
import { cachedRates, createRatesStore } from '../../src/rates/index.js';
import { cachedFacts, cachedRegistry, createSourcesStore, sourceFactsOfRegistry } from '../../src/sources/index.js';
import { createActiveClients } from '../../src/watches/match/active-clients.js';
import { createMatchHandler } from '../../src/watches/match/handler.js';
import { createTransitionMatcher } from '../../src/watches/match/transitions.js';
import { createWebhookQueue } from '../../src/watches/queue.js';

/** The change log's stream, apart from its consumer (src/function-table.ts); built by src/watches/match/handler.ts. */
const config = watchesFunctionConfig();
const client = createFunctionClient(config);
const registry = cachedRegistry(createSourcesStore(client, config.legsTableName), { clock: config.clock });
const rates = cachedRates(createRatesStore(client, config.legsTableName), { clock: config.clock, fresh: true });
export const handler = createMatchHandler({
  match: createTransitionMatcher({
    tables: { client, watchesTableName: config.watchesTableName, deliveriesTableName: config.deliveriesTableName },
    queue: createWebhookQueue(config, client),
    airports: airportReference,
    clock: config.clock,
    rates,
    sources: cachedFacts(registry),
    blockSources: sourceFactsOfRegistry(registry),
    flights: { repository: createLegsRepository(client, config.legsTableName), registry },
    activeClients: createActiveClients({ client, keysTableName: config.keysTableName, clock: config.clock, intervalMs: 0 }),
  }),
  clock: config.clock,
  stage: config.stage,
});
