import { createFunctionClient } from '../../src/aws/function-clients.js';
import { enquiriesFunctionConfig } from '../../src/config.js';
import { ENQUIRY_MESSAGE_KIND, processEnquiryMessage, readSeller } from '../../src/enquiries/index.js';
import { createWebhookQueue } from '../../src/watches/queue.js';
import { createLaneHandler } from '../../src/watches/lane/handler.js';
import { systemResolver } from '../../src/watches/target.js';

/**
 * The webhook queue's consumer, the shared lane (src/routes.ts); built by src/watches/lane/handler.ts.
 * The enquiries' events ride the same queue (src/enquiries/events/deliver.ts).
 */
const config = enquiriesFunctionConfig();
const client = createFunctionClient(config);
const enquiryDeps = {
  table: { client, tableName: config.enquiriesTableName },
  readSeller: (source: string) => readSeller(client, config.legsTableName, source),
  queue: createWebhookQueue(config, client),
  targets: config.webhookTargets,
  resolver: systemResolver,
  clock: config.clock,
  retryScheduleSeconds: config.retryScheduleSeconds,
};
export const handler = createLaneHandler(config, client, 'shared', { [ENQUIRY_MESSAGE_KIND]: (message) => processEnquiryMessage(message, enquiryDeps) });
