import { airportReference } from '../../src/airports/reference.js';
import { createFunctionClient } from '../../src/aws/function-clients.js';
import { createChangeConsumerHandler } from '../../src/changes/handlers.js';
import { createChangeLogStore } from '../../src/changes/store.js';
import { watchesFunctionConfig } from '../../src/config.js';
import { createTransitionMatcher } from '../../src/watches/match-transitions.js';
import { createWebhookQueue } from '../../src/watches/queue.js';

/** The legs table's stream (src/routes.ts); the handler is built by src/changes/handlers.ts. */
const config = watchesFunctionConfig();
const client = createFunctionClient(config);
const queue = createWebhookQueue(config, client);
export const handler = createChangeConsumerHandler({
  store: createChangeLogStore(client, config.legsTableName),
  clock: config.clock,
  stage: config.stage,
  // The watches' matcher: each batch's transitions become the deliveries of the watches they concern.
  subscribers: [
    createTransitionMatcher({
      tables: { client, watchesTableName: config.watchesTableName, deliveriesTableName: config.deliveriesTableName },
      queue,
      airports: airportReference,
      clock: config.clock,
    }),
  ],
});
