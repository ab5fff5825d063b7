import { randomUUID } from 'node:crypto';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.js';
import type { WatchesConfig } from '../config.js';
import { createSqsClient } from '../aws/sqs.js';
import { batchPut, forEachBounded } from '../aws/batch-write.js';

/**
 * The queue between matching and delivery (docs/watches.md, "Queue"): SQS on AWS; under npm start
 * a DynamoDB Local table that local/watches/queue-worker.ts polls with SQS's semantics (visibility,
 * receive count, dead letters), feeding the same delivery handler.
 */
export interface QueuedMessage {
  body: string;
  /** 0-900 (SQS's bound). */
  delaySeconds: number;
}

export interface DeliveryQueue {
  send(messages: readonly QueuedMessage[]): Promise<void>;
}

/** SQS's longest message delay. */
export const MAX_DELAY_SECONDS = 900;
/** Send requests (of 10 messages: SendMessageBatch) or local batch writes in flight at once. */
export const QUEUE_SEND_CONCURRENCY = 8;

export function createSqsQueue(client: SQSClient, queueUrl: string): DeliveryQueue {
  return {
    async send(messages) {
      const chunks: QueuedMessage[][] = [];
      for (let i = 0; i < messages.length; i += 10) chunks.push(messages.slice(i, i + 10));
      await forEachBounded(chunks, QUEUE_SEND_CONCURRENCY, async (chunk) => {
        const out = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: chunk.map((m, j) => ({ Id: String(j), MessageBody: m.body, DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.round(m.delaySeconds))) })),
          }),
        );
        if ((out.Failed ?? []).length > 0) throw new Error(`SQS refused ${out.Failed!.length} of ${chunk.length} messages: ${out.Failed![0]!.Code ?? '?'}`);
      });
    },
  };
}

/** The local queue's table: one item per message (`messageId`), visible from `visibleAt` (epoch ms), in the shared lane or (`lane: 'slow'`) the slow one. */
export const LOCAL_QUEUE_TABLE = { partitionKey: 'messageId', indexes: [] } as const;

/** The two queues of deliveries (docs/watches.md, "The slow lane"). */
export type DeliveryLane = 'shared' | 'slow';

export function createTableQueue(client: DynamoDBDocumentClient, tableName: string, clock: Clock, lane: DeliveryLane = 'shared'): DeliveryQueue {
  return {
    async send(messages) {
      const items = messages.map((m) => ({
        messageId: randomUUID(),
        body: m.body,
        visibleAt: clock() + Math.max(0, m.delaySeconds) * 1000,
        receiveCount: 0,
        ...(lane === 'slow' ? { lane } : {}),
      }));
      await batchPut(client, tableName, items, { concurrency: QUEUE_SEND_CONCURRENCY, attempts: 8 });
    },
  };
}

/** A lane's queue the settings name: SQS on AWS (WEBHOOK_QUEUE_URL, WEBHOOK_SLOW_QUEUE_URL), the local queue's table under npm start. */
export function createWebhookQueue(
  config: Pick<WatchesConfig, 'webhookQueueUrl' | 'webhookSlowQueueUrl' | 'localQueueTableName' | 'clock' | 'aws'>,
  client: DynamoDBDocumentClient,
  lane: DeliveryLane = 'shared',
): DeliveryQueue {
  const url = lane === 'slow' ? config.webhookSlowQueueUrl : config.webhookQueueUrl;
  return url !== undefined ? createSqsQueue(createSqsClient(config.aws), url) : createTableQueue(client, config.localQueueTableName, config.clock, lane);
}
