import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backoffDelay, sleep } from './backoff.js';

/** Puts in one BatchWriteItem request (DynamoDB's limit). */
export const BATCH_WRITE_LIMIT = 25;

/**
 * Runs `task` over `items` with at most `concurrency` running at once (a bounded fan-out); rejects
 * with the first failure, after the tasks in flight have settled.
 */
export async function forEachBounded<T>(items: readonly T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const worker = async () => {
    while (next < items.length && errors.length === 0) {
      const item = items[next++]!;
      try {
        await task(item);
      } catch (err) {
        errors.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  if (errors.length > 0) throw errors[0];
}

/**
 * Puts `items` with BatchWriteItem, 25 a request, at most `concurrency` requests in flight, each
 * request's unprocessed items sent again with backoff, in at most `attempts` requests; throws when
 * some are still unprocessed (the caller's batch is then retried whole, and puts are idempotent).
 */
export async function batchPut(
  client: DynamoDBDocumentClient,
  tableName: string,
  items: readonly Record<string, unknown>[],
  options: { concurrency: number; attempts: number },
): Promise<void> {
  const chunks: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += BATCH_WRITE_LIMIT) chunks.push(items.slice(i, i + BATCH_WRITE_LIMIT));
  await forEachBounded(chunks, options.concurrency, async (chunk) => {
    let pending = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > options.attempts) throw new Error(`${pending.length} puts to ${tableName} still unprocessed after ${options.attempts} requests`);
      if (attempt > 1) await sleep(backoffDelay(attempt - 2, 25, 1_000));
      const out = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  });
}
