import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EnquiriesConfig } from '../config.js';
import { createLegReader } from '../leg-by-id/index.js';
import { createWebhookQueue, systemResolver } from '../watches/index.js';
import { createEnquiryNotifier } from './events/deliver.js';
import { readSeller } from './store/sellers.js';
import type { EnquiryDependencies } from './use-cases/ports.js';

/** The enquiry use cases' ports in a function (functions/enquiries, functions/mcp): the tables, the system resolver, the events on the webhook queue. */
export function enquiryPortsOf(config: EnquiriesConfig, client: DynamoDBDocumentClient): EnquiryDependencies {
  const sellerOf = (source: string) => readSeller(client, config.legsTableName, source);
  return {
    table: { client, tableName: config.enquiriesTableName },
    readLeg: createLegReader(client, config.legsTableName),
    readSeller: sellerOf,
    clock: config.clock,
    targets: config.webhookTargets,
    resolver: systemResolver,
    // The events, on the webhook queue (src/enquiries/events/deliver.ts).
    notify: createEnquiryNotifier({ queue: createWebhookQueue(config, client), readSeller: sellerOf }),
  };
}
