import { airportReference } from '../../src/airports/reference.js';
import { createFunctionClient } from '../../src/aws/function-clients.js';
import { watchesFunctionConfig } from '../../src/config.js';
import { cachedRates, createRatesStore } from '../../src/rates/index.js';
import { createWatchesHandler } from '../../src/watches/handlers.js';
import { systemResolver } from '../../src/watches/target.js';

/** The /open/v1/watches routes (src/routes.ts); the handlers are built by src/watches/handlers.ts. */
const config = watchesFunctionConfig();
const client = createFunctionClient(config);
const rates = cachedRates(createRatesStore(client, config.legsTableName), { clock: config.clock });
export const handler = createWatchesHandler({
  tables: { client, watchesTableName: config.watchesTableName, deliveriesTableName: config.deliveriesTableName },
  airports: airportReference,
  targets: config.webhookTargets,
  resolver: systemResolver,
  clock: config.clock,
  rates,
});
