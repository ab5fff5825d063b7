import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { WatchesConfig } from '../../config.js';
import { createDeliveryHandler, type DeliveryDependencies } from '../delivery.js';
import { createActiveClients } from '../match/active-clients.js';
import { createWebhookQueue, type DeliveryLane } from '../queue.js';
import { systemResolver } from '../target.js';

/**
 * A lane's delivery function (docs/watches.md, "The slow lane"): the shared lane's forwards a slow
 * watch's deliveries to the slow lane's queue; each lane's retries go back to its own queue.
 */
export function createLaneHandler(
  config: WatchesConfig,
  client: DynamoDBDocumentClient,
  lane: DeliveryLane,
  kinds?: DeliveryDependencies['kinds'],
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return createDeliveryHandler({
    ...(kinds ? { kinds } : {}),
    tables: { client, watchesTableName: config.watchesTableName, deliveriesTableName: config.deliveriesTableName },
    queue: createWebhookQueue(config, client, lane),
    ...(lane === 'shared' ? { slowLane: createWebhookQueue(config, client, 'slow') } : {}),
    targets: config.webhookTargets,
    resolver: systemResolver,
    clock: config.clock,
    stage: config.stage,
    retryScheduleSeconds: config.retryScheduleSeconds,
    disableAfterSeconds: config.disableAfterSeconds,
    // A client's keys are read at most every second: a revoked client's deliveries stop within a second or two.
    activeClients: createActiveClients({ client, keysTableName: config.keysTableName, clock: config.clock, intervalMs: 1_000 }),
  });
}
