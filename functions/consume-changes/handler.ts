import { createFunctionClient } from '../../src/aws/function-clients.js';
import { createChangeConsumerHandler } from '../../src/changes/handlers.js';
import { createChangeLogStore } from '../../src/changes/store.js';
import { enquiriesFunctionConfig } from '../../src/config.js';
import { createEnquiryExpiry, createEnquiryNotifier, readSeller } from '../../src/enquiries/index.js';
import { createWebhookQueue } from '../../src/watches/queue.js';
import { createSourcesStore, staleSourcesAt } from '../../src/sources/index.js';

/**
 * The legs table's stream (src/function-table.ts); the handler is built by src/changes/handlers.ts.
 * The watches match apart (functions/match-watches); a withdrawn leg's open enquiries expire here.
 */
const config = enquiriesFunctionConfig();
const client = createFunctionClient(config);
const sources = createSourcesStore(client, config.legsTableName);
export const handler = createChangeConsumerHandler({
  store: createChangeLogStore(client, config.legsTableName),
  clock: config.clock,
  stage: config.stage,
  subscribers: [
    createEnquiryExpiry({
      table: { client, tableName: config.enquiriesTableName },
      clock: config.clock,
      notify: createEnquiryNotifier({ queue: createWebhookQueue(config, client), readSeller: (source) => readSeller(client, config.legsTableName, source) }),
    }),
  ],
  // The registry read with each batch of legs: a stale source's legs are not listed after their change.
  staleSources: async (now) => staleSourcesAt(await sources.read(), now),
});
