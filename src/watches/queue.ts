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

/** The local queue's table: one item per message (`messageId`), visible from `visibleAt` (epoch ms). */
export const LOCAL_QUEUE_TABLE = { partitionKey: 'messageId', indexes: [] } as const;

export function createTableQueue(client: DynamoDBDocumentClient, tableName: string, clock: Clock): DeliveryQueue {
  return {
    async send(messages) {
      const items = messages.map((m) => ({ messageId: randomUUID(), body: m.body, visibleAt: clock() + Math.max(0, m.delaySeconds) * 1000, receiveCount: 0 }));
      await batchPut(client, tableName, items, { concurrency: QUEUE_SEND_CONCURRENCY, attempts: 8 });
    },
  };
}

/** The webhook queue the settings name: SQS on AWS (WEBHOOK_QUEUE_URL), the local queue's table under npm start. */
export function createWebhookQueue(
  config: Pick<WatchesConfig, 'webhookQueueUrl' | 'localQueueTableName' | 'clock' | 'aws'>,
  client: DynamoDBDocumentClient,
): DeliveryQueue {
  return config.webhookQueueUrl !== undefined
    ? createSqsQueue(createSqsClient(config.aws), config.webhookQueueUrl)
    : createTableQueue(client, config.localQueueTableName, config.clock);
}
