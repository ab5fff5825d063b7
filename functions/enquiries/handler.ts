import { createFunctionClient } from '../../src/aws/function-clients.js';
import { enquiriesFunctionConfig } from '../../src/config.js';
import { createEnquiriesHandler } from '../../src/enquiries/handlers.js';
import { createEnquiryNotifier, readSeller } from '../../src/enquiries/index.js';
import { createWebhookQueue } from '../../src/watches/queue.js';
import { createLegReader } from '../../src/leg-by-id/store.js';
import { systemResolver } from '../../src/watches/target.js';

/** The enquiry routes (src/routes.ts); the handlers are built by src/enquiries/handlers.ts. */
const config = enquiriesFunctionConfig();
const client = createFunctionClient(config);
const sellerOf = (source: string) => readSeller(client, config.legsTableName, source);
export const handler = createEnquiriesHandler({
  table: { client, tableName: config.enquiriesTableName },
  readLeg: createLegReader(client, config.legsTableName),
  readSeller: sellerOf,
  clock: config.clock,
  targets: config.webhookTargets,
  resolver: systemResolver,
  // The events, on the webhook queue (src/enquiries/events/deliver.ts).
  notify: createEnquiryNotifier({ queue: createWebhookQueue(config, client), readSeller: sellerOf }),
});
