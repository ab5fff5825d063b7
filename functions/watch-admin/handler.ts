import { airportReference } from '../../src/airports/reference.js';
import { createFunctionClient } from '../../src/aws/function-clients.js';
import { watchesFunctionConfig } from '../../src/config.js';
import { cachedRates, createRatesStore } from '../../src/rates/index.js';
import { createWatchAdminHandler } from '../../src/watch-admin/handlers.js';
import { systemResolver } from '../../src/watches/target.js';

/** The owner's operations on a watch (src/routes.ts); the handlers are built by src/watch-admin/handlers.ts. */
const config = watchesFunctionConfig();
const client = createFunctionClient(config);
const rates = cachedRates(createRatesStore(client, config.legsTableName), { clock: config.clock });
export const handler = createWatchAdminHandler({
  tables: { client, watchesTableName: config.watchesTableName, deliveriesTableName: config.deliveriesTableName },
  airports: airportReference,
  targets: config.webhookTargets,
  resolver: systemResolver,
  clock: config.clock,
  rates,
});
