import { createFunctionClient } from '../../src/aws/function-clients.js';
import { watchesFunctionConfig } from '../../src/config.js';
import { createDeliveryHandler } from '../../src/watches/delivery.js';
import { createActiveClients } from '../../src/watches/match/active-clients.js';
import { createWebhookQueue } from '../../src/watches/queue.js';
import { systemResolver } from '../../src/watches/target.js';

/** The webhook queue's consumer (src/routes.ts); built by src/watches/delivery.ts. */
const config = watchesFunctionConfig();
const client = createFunctionClient(config);
const queue = createWebhookQueue(config, client);
export const handler = createDeliveryHandler({
  tables: { client, watchesTableName: config.watchesTableName, deliveriesTableName: config.deliveriesTableName },
  queue,
  targets: config.webhookTargets,
  resolver: systemResolver,
  clock: config.clock,
  stage: config.stage,
  retryScheduleSeconds: config.retryScheduleSeconds,
  disableAfterSeconds: config.disableAfterSeconds,
  // A client's keys are read at most every second: a revoked client's deliveries stop within a second or two.
  activeClients: createActiveClients({ client, keysTableName: config.keysTableName, clock: config.clock, intervalMs: 1_000 }),
});
