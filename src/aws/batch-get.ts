import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backoffDelay, sleep } from './backoff.js';

/**
 * One BatchGetItem of at most 100 keys, its unprocessed keys asked again with backoff, in at most
 * `attempts` requests, the first included; returns the items found and the keys still unprocessed,
 * whose meaning is the caller's to say. `consistent`: strongly consistent reads; `projection`: the attributes read.
 */
export async function batchGet(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: Record<string, unknown>[],
  attempts: number,
  options: { consistent?: boolean; projection?: { ProjectionExpression: string; ExpressionAttributeNames?: Record<string, string> } } = {},
): Promise<{ items: Record<string, unknown>[]; unprocessed: Record<string, unknown>[] }> {
  const items: Record<string, unknown>[] = [];
  let pending = keys;
  for (let attempt = 1; pending.length > 0 && attempt <= attempts; attempt++) {
    if (attempt > 1) await sleep(backoffDelay(attempt - 2, 25, 1_000));
    const out = await client.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ...(options.consistent ? { ConsistentRead: true } : {}), ...options.projection } } }));
    items.push(...(out.Responses?.[tableName] ?? []));
    pending = out.UnprocessedKeys?.[tableName]?.Keys ?? [];
  }
  return { items, unprocessed: pending };
}
