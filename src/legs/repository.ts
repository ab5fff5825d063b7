import { BatchGetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LEGS_INDEX } from '../tables.js';
import { BUCKET_ATTR, FILTER_ATTR, SORT_ATTR, parseIndexItem, type IndexEntry } from './storage.js';

/**
 * Reads of the legs table. The listing reads index buckets (compact entries, in index order) and
 * then the full items of one page. Takes the client and table name so tests and the benchmark can
 * point it anywhere.
 */
export interface LegsRepository {
  /** Every entry of one bucket of the sparse index, in index order (startDate, id). */
  queryBucket(bucket: string): Promise<IndexEntry[]>;
  /** Full items by id, in no particular order; ids not found are absent. */
  getLegs(ids: readonly string[]): Promise<Record<string, unknown>[]>;
}

const BATCH_GET_LIMIT = 100;
const MAX_BATCH_ATTEMPTS = 6;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createLegsRepository(client: DynamoDBDocumentClient, tableName: string): LegsRepository {
  return {
    async queryBucket(bucket) {
      const entries: IndexEntry[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const out = await client.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: LEGS_INDEX.indexName,
            KeyConditionExpression: '#b = :b',
            ExpressionAttributeNames: { '#b': BUCKET_ATTR, '#s': SORT_ATTR, '#f': FILTER_ATTR },
            ExpressionAttributeValues: { ':b': bucket },
            ProjectionExpression: 'id, #s, #f',
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of out.Items ?? []) {
          const entry = parseIndexItem(item);
          if (entry) entries.push(entry);
        }
        startKey = out.LastEvaluatedKey;
      } while (startKey);
      return entries;
    },

    async getLegs(ids) {
      const items: Record<string, unknown>[] = [];
      for (let i = 0; i < ids.length; i += BATCH_GET_LIMIT) {
        let keys: Record<string, unknown>[] = ids.slice(i, i + BATCH_GET_LIMIT).map((id) => ({ id }));
        for (let attempt = 1; keys.length > 0; attempt++) {
          if (attempt > MAX_BATCH_ATTEMPTS) {
            throw Object.assign(new Error('BatchGetItem left keys unprocessed after retries'), {
              name: 'ProvisionedThroughputExceededException',
            });
          }
          if (attempt > 1) await sleep(Math.min(1000, 25 * 2 ** attempt) * Math.random());
          const out = await client.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys } } }));
          items.push(...(out.Responses?.[tableName] ?? []));
          keys = out.UnprocessedKeys?.[tableName]?.Keys ?? [];
        }
      }
      return items;
    },
  };
}

/**
 * A per-container cache of bucket reads with a short TTL (LISTING_CACHE_TTL_SECONDS): a warm
 * function answers repeated queries without reading DynamoDB. A cached bucket is at most `ttlMs`
 * old; concurrent misses for the same bucket share one read.
 */
export function withBucketCache(
  repo: LegsRepository,
  ttlMs: number,
  clock: () => number = Date.now,
): LegsRepository & { clear(): void } {
  const cache = new Map<string, { expires: number; value: Promise<IndexEntry[]> }>();
  return {
    queryBucket(bucket) {
      if (ttlMs <= 0) return repo.queryBucket(bucket);
      const now = clock();
      const hit = cache.get(bucket);
      if (hit && hit.expires > now) return hit.value;
      const value = repo.queryBucket(bucket);
      cache.set(bucket, { expires: now + ttlMs, value });
      value.catch(() => cache.delete(bucket));
      return value;
    },
    getLegs: (ids) => repo.getLegs(ids),
    clear: () => cache.clear(),
  };
}
