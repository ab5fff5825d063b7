import { processClock } from '../clock.js';
import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../aws/batch-get.js';
import { AppError } from '../errors.js';
import { LEGS_INDEX } from '../tables.js';
import { ttlCache } from '../platform/ttl-cache.js';
import { segmentsAfter } from './listing.js';
import { BATCH_GET_LIMIT, MAX_BATCH_GET_ATTEMPTS } from '../aws/batch-limits.js';
import { MAX_IDS_PER_REQUEST, MAX_QUERY_PAGES_PER_BUCKET } from './limits.js';
import { BUCKET_ATTR, FILTER_ATTR, SORT_ATTR } from '../kernel/leg-item.js';
import { IndexEntryReader, type IndexEntry } from '../kernel/index-entry.js';

/**
 * Reads of the legs table. The listing reads index buckets (compact entries, in index order) and
 * then the full items of one page. Takes the client and table name so tests and the benchmark can
 * point it anywhere.
 */

/** A range of startDate within a bucket, both ends inclusive; an absent end is open. */
export interface StartDateRange {
  from?: string | undefined;
  to?: string | undefined;
}

export interface LegsRepository {
  /**
   * The entries of one bucket of the sparse index, in index order (startDate, id). With a range,
   * at least the entries whose startDate lies in it (a cached wider read may give more).
   */
  queryBucket(bucket: string, range?: StartDateRange): Promise<IndexEntry[]>;
  /** Full items by id (at most MAX_IDS_PER_REQUEST), in no particular order; ids not found are absent. */
  getLegs(ids: readonly string[]): Promise<Record<string, unknown>[]>;
  /**
   * Forget whatever was read for earlier bucket reads and is not cached above (the listing
   * snapshot's manifest and delta, src/listing/snapshot-read.ts): the data may have changed since.
   */
  invalidate?(): void;
}

/**
 * The key condition of a bucket read: the bucket, and the startDate range on the sort key
 * `startDate#id`. `'#'` sorts before `'$'`, so `${to}$` is above every `${to}#id` and below the
 * next day.
 */
export function keyCondition(
  bucket: string,
  range: StartDateRange = {},
): { expression: string; values: Record<string, string> } {
  const values: Record<string, string> = { ':b': bucket };
  let sort = '';
  if (range.from !== undefined) values[':lo'] = range.from;
  if (range.to !== undefined) values[':hi'] = `${range.to}$`;
  if (range.from !== undefined && range.to !== undefined) sort = ' AND #s BETWEEN :lo AND :hi';
  else if (range.from !== undefined) sort = ' AND #s >= :lo';
  else if (range.to !== undefined) sort = ' AND #s <= :hi';
  return { expression: `#b = :b${sort}`, values };
}

/** One Query page of a bucket read: the index, the key condition, the entry's attributes. */
export function bucketQueryInput(
  tableName: string,
  condition: ReturnType<typeof keyCondition>,
  startKey: Record<string, unknown> | undefined,
): QueryCommandInput {
  return {
    TableName: tableName,
    IndexName: LEGS_INDEX.indexName,
    KeyConditionExpression: condition.expression,
    ExpressionAttributeNames: { '#b': BUCKET_ATTR, '#s': SORT_ATTR, '#f': FILTER_ATTR },
    ExpressionAttributeValues: condition.values,
    // The sort key and the filter attribute: not the bucket name, nor the id, which the sort key
    // holds (`startDate#id`, `idOfSortKey` in src/kernel/leg-item.ts): a fifth fewer bytes to receive
    // and to read. Read units are the same.
    ProjectionExpression: '#s, #f',
    ExclusiveStartKey: startKey,
  };
}

export function createLegsRepository(client: DynamoDBDocumentClient, tableName: string): LegsRepository {
  return {
    async queryBucket(bucket, range = {}) {
      // Bounded work per request (src/listing/limits.ts): the pages of all the read's segments count
      // together, and a bucket larger than the bound fails the request instead of reading on, or
      // answering with a total that leaves legs out.
      let pages = 0;
      let failed = false;
      const readPage = async (reader: IndexEntryReader, condition: ReturnType<typeof keyCondition>, startKey: Record<string, unknown> | undefined) => {
        // A segment that failed ends the others at their next page.
        if (failed) throw new Error(`bucket ${bucket}: another segment of the read failed`);
        if (pages >= MAX_QUERY_PAGES_PER_BUCKET) {
          throw new AppError('INTERNAL_ERROR', 'The listing could not be read', {
            cause: new Error(
              `bucket ${bucket} holds more than ${MAX_QUERY_PAGES_PER_BUCKET} Query pages (MAX_QUERY_PAGES_PER_BUCKET, src/listing/limits.ts)`,
            ),
          });
        }
        pages += 1;
        const entries: IndexEntry[] = [];
        let out: QueryCommandOutput;
        try {
          out = await client.send(new QueryCommand(bucketQueryInput(tableName, condition, startKey)));
        } catch (err) {
          failed = true;
          throw err;
        }
        for (const item of out.Items ?? []) {
          const entry = reader.read(item);
          if (entry) entries.push(entry);
        }
        return { entries, lastKey: out.LastEvaluatedKey };
      };
      const readOn = async (segment: StartDateRange, startKey: Record<string, unknown> | undefined) => {
        const condition = keyCondition(bucket, segment);
        // A reader per segment: it keeps the last start date it parsed, and segments interleave.
        const reader = new IndexEntryReader();
        const entries: IndexEntry[] = [];
        let key = startKey;
        do {
          const page = await readPage(reader, condition, key);
          for (const entry of page.entries) entries.push(entry);
          key = page.lastKey;
        } while (key);
        return entries;
      };

      // The first page; the rest, if any, in segments by start date read in parallel
      // (`segmentsAfter`, src/listing/listing.ts), joined in order.
      const head = await readPage(new IndexEntryReader(), keyCondition(bucket, range), undefined);
      if (head.lastKey === undefined) return head.entries;
      const resumeAt: unknown = head.lastKey[SORT_ATTR];
      const resumeStart = typeof resumeAt === 'string' ? resumeAt.slice(0, Math.max(0, resumeAt.indexOf('#'))) : '';
      const firstStart = head.entries[0]?.startDate;
      if (resumeStart === '' || firstStart === undefined) return head.entries.concat(await readOn(range, head.lastKey));
      const segments = segmentsAfter(bucket, range, firstStart, resumeStart);
      const rest = await Promise.all(segments.map((segment, i) => readOn(segment, i === 0 ? head.lastKey : undefined)));
      return head.entries.concat(...rest);
    },

    async getLegs(ids) {
      if (ids.length > MAX_IDS_PER_REQUEST) {
        throw new RangeError(`getLegs: ${ids.length} ids, more than one page (${MAX_IDS_PER_REQUEST})`);
      }
      const items: Record<string, unknown>[] = [];
      for (let i = 0; i < ids.length; i += BATCH_GET_LIMIT) {
        const keys = ids.slice(i, i + BATCH_GET_LIMIT).map((id) => ({ id }));
        const got = await batchGet(client, tableName, keys, MAX_BATCH_GET_ATTEMPTS);
        if (got.unprocessed.length > 0) {
          throw new AppError('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry later', {
            cause: new Error(`BatchGetItem left ${got.unprocessed.length} keys unprocessed after ${MAX_BATCH_GET_ATTEMPTS} attempts`),
          });
        }
        items.push(...got.items);
      }
      return items;
    },
  };
}

/** The records a cache holds for `ids`, and the ids it misses (to fetch). */
export function splitCached(
  ids: readonly string[],
  get: (id: string) => Record<string, unknown> | undefined,
): { found: Record<string, unknown>[]; missing: string[] } {
  const found: Record<string, unknown>[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const hit = get(id);
    if (hit) found.push(hit);
    else missing.push(id);
  }
  return { found, missing };
}

/** How many records the per-container cache keeps at most (least recently used first out). */
export const MAX_CACHED_RECORDS = 5_000;

interface CachedRead extends StartDateRange {
  expires: number;
  value: Promise<IndexEntry[]>;
}

/** True when a read of range `outer` holds every entry a read of `inner` would. */
export function covers(outer: StartDateRange, inner: StartDateRange): boolean {
  const fromOk = outer.from === undefined || (inner.from !== undefined && outer.from <= inner.from);
  const toOk = outer.to === undefined || (inner.to !== undefined && outer.to >= inner.to);
  return fromOk && toOk;
}

/**
 * The per-container listing cache with a TTL (`ttlMs`; 0 turns it off): bucket reads (a read serves
 * any later read of the same bucket whose range it covers; concurrent misses share one query) and page
 * records (at most `maxRecords`), none of it older than `ttlMs`.
 */
export function withBucketCache(
  repo: LegsRepository,
  ttlMs: number,
  clock: () => number = processClock,
  maxRecords: number = MAX_CACHED_RECORDS,
): LegsRepository & { clear(): void } {
  const reads = new Map<string, CachedRead[]>();
  // Records by id, each kept `ttlMs` from the request that fetched it.
  const records = ttlCache<Record<string, unknown>>(maxRecords, clock);
  return {
    queryBucket(bucket, range = {}) {
      if (ttlMs <= 0) return repo.queryBucket(bucket, range);
      const now = clock();
      const live = (reads.get(bucket) ?? []).filter((r) => r.expires > now);
      const hit = live.find((r) => covers(r, range));
      if (hit) return hit.value;
      const value = repo.queryBucket(bucket, range);
      const read: CachedRead = { from: range.from, to: range.to, expires: now + ttlMs, value };
      reads.set(bucket, [...live.filter((r) => !covers(read, r)), read]);
      value.catch(() => reads.set(bucket, (reads.get(bucket) ?? []).filter((r) => r !== read)));
      return value;
    },

    async getLegs(ids) {
      if (ttlMs <= 0) return repo.getLegs(ids);
      const now = clock();
      const { found, missing } = splitCached(ids, (id) => records.get(id));
      if (missing.length === 0) return found;
      const fetched = await repo.getLegs(missing);
      for (const item of fetched) if (typeof item.id === 'string') records.set(item.id, item, now + ttlMs);
      return [...found, ...fetched];
    },

    clear() {
      reads.clear();
      records.clear();
    },
  };
}
