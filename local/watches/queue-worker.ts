import { randomUUID } from 'node:crypto';
import { DeleteCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Clock } from '../../src/clock.js';
import type { DeliveryLane } from '../../src/watches/queue.js';

/**
 * The local stand-in for SQS's event source (npm start, tests): polls the local queue table
 * (src/watches/queue.ts), claims visible messages for a visibility timeout (a conditional update,
 * so two workers never hold the same message), calls the delivery handler with an SQS event, and
 * deletes what it did not report as failed. A message received `maxReceives` times goes to the dead
 * letters (logged and kept with `dead: true`), as the stack's redrive policy does. Like Lambda's
 * pollers, it keeps polling while batches run, up to `concurrency` batches at once.
 */
export interface QueueWorkerOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  handler: (event: SQSEvent) => Promise<SQSBatchResponse>;
  clock: Clock;
  pollMs?: number;
  visibilityMs?: number;
  maxReceives?: number;
  batchSize?: number;
  /** Batches handled at once (default 5, as Lambda's SQS event source starts with). */
  concurrency?: number;
  /** The lane whose messages it takes (default shared): the slow lane's worker stands for its capped event source. */
  lane?: DeliveryLane;
  say?: (line: string) => void;
}

export interface QueueWorker {
  stop(): Promise<void>;
}

interface Item {
  messageId: string;
  body: string;
  visibleAt: number;
  receiveCount: number;
  dead?: boolean;
  lane?: DeliveryLane;
}

export function startQueueWorker(o: QueueWorkerOptions): QueueWorker {
  const pollMs = o.pollMs ?? 200;
  const visibilityMs = o.visibilityMs ?? 30_000;
  const maxReceives = o.maxReceives ?? 5;
  const concurrency = o.concurrency ?? 5;
  const lane = o.lane ?? 'shared';
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const batches = new Set<Promise<void>>();

  async function claim(item: Item): Promise<boolean> {
    try {
      await o.client.send(
        new UpdateCommand({
          TableName: o.tableName,
          Key: { messageId: item.messageId },
          UpdateExpression: 'SET visibleAt = :until, receiveCount = receiveCount + :one',
          ConditionExpression: 'visibleAt = :seen',
          ExpressionAttributeValues: { ':until': o.clock() + visibilityMs, ':one': 1, ':seen': item.visibleAt },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  async function handle(records: SQSRecord[]): Promise<void> {
    const result = await o.handler({ Records: records });
    const failed = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
    for (const r of records) {
      if (!failed.has(r.messageId)) await o.client.send(new DeleteCommand({ TableName: o.tableName, Key: { messageId: r.messageId } }));
    }
  }

  /** Claims one batch and starts its handler, without waiting for it. */
  async function once(): Promise<void> {
    const now = o.clock();
    const out = await o.client.send(new ScanCommand({ TableName: o.tableName, ConsistentRead: true }));
    const visible = ((out.Items ?? []) as Item[]).filter((i) => !i.dead && i.visibleAt <= now && (i.lane ?? 'shared') === lane).slice(0, o.batchSize ?? 10);
    const records: SQSRecord[] = [];
    for (const item of visible) {
      if (item.receiveCount >= maxReceives) {
        await o.client.send(new UpdateCommand({ TableName: o.tableName, Key: { messageId: item.messageId }, UpdateExpression: 'SET dead = :t', ExpressionAttributeValues: { ':t': true } }));
        o.say?.(`webhook message ${item.messageId} moved to the dead letters after ${item.receiveCount} receives`);
        continue;
      }
      if (!(await claim(item))) continue;
      records.push({
        messageId: item.messageId,
        receiptHandle: randomUUID(),
        body: item.body,
        attributes: {
          ApproximateReceiveCount: String(item.receiveCount + 1),
          SentTimestamp: '0',
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: String(now),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:local:000000000000:${lane === 'slow' ? 'webhooks-slow' : 'webhooks'}`,
        awsRegion: 'local',
      });
    }
    if (records.length === 0) return;
    const batch = handle(records)
      .catch((err: unknown) => o.say?.(`webhook queue worker: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => batches.delete(batch));
    batches.add(batch);
  }

  const loop = async () => {
    while (!stopped) {
      try {
        if (batches.size < concurrency) await once();
      } catch (err) {
        o.say?.(`webhook queue worker: ${err instanceof Error ? err.message : String(err)}`);
      }
      await new Promise((r) => setTimeout(r, pollMs));
    }
  };
  running = loop();
  return {
    async stop() {
      stopped = true;
      await running;
      await Promise.all([...batches]);
    },
  };
}
