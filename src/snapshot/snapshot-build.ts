import { processClock } from '../clock.js';
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backoffDelay, sleep } from '../aws/backoff.js';
import { LEGS_INDEX } from '../tables.js';
import { monthIndexOf, monthName, toEpochDay } from '../kernel/dates.js';
import { createChangeLogStore } from '../changes/index.js';
import { HORIZON_DAYS } from '../kernel/listed.js';
import {
  bucketHash,
  decodeManifest,
  encodeBucket,
  encodeManifest,
  partId,
  partIds,
  SNAPSHOT_MANIFEST_ID,
  type BucketParts,
  type RawEntry,
  type SnapshotManifest,
} from './snapshot.js';
import { BUCKET_ATTR, FILTER_ATTR, LONG_BUCKET, MAX_BUCKET_SPAN_DAYS, SORT_ATTR } from '../kernel/leg-item.js';

/**
 * Builds the listing snapshot: notes where the change log stood INDEX_LAG_MS before it began (the
 * delta starts there), then reads every bucket a listing can read from the index; writes the parts of the buckets whose content changed, then the manifest
 * (conditioned on the token it read), then deletes the parts the previous manifest retired.
 */
export interface BuildOptions {
  clock?: () => number;
}

export interface BuildResult {
  /** False when another build published first: nothing was published. */
  published: boolean;
  buckets: number;
  entries: number;
  /** Parts written (buckets whose content changed) and deleted. */
  partsWritten: number;
  partsDeleted: number;
  manifest?: SnapshotManifest;
}

/** How far the listing index may lag the change log: the delta starts this long before a build. */
export const INDEX_LAG_MS = 60_000;

/** Buckets a build reads at once. */
const BUILD_CONCURRENCY = 4;

/** The manifest as stored now (strongly consistent), or undefined. */
export async function readManifest(client: DynamoDBDocumentClient, tableName: string): Promise<SnapshotManifest | undefined> {
  return (await readStored(client, tableName)).manifest;
}

/** The stored manifest and its token: an item this version cannot read still has a token to replace. */
async function readStored(client: DynamoDBDocumentClient, tableName: string): Promise<{ manifest?: SnapshotManifest; token?: string }> {
  const out = await client.send(new GetCommand({ TableName: tableName, Key: { id: SNAPSHOT_MANIFEST_ID }, ConsistentRead: true }));
  const manifest = decodeManifest(out.Item);
  return { ...(manifest ? { manifest } : {}), ...(typeof out.Item?.g === 'string' ? { token: out.Item.g } : {}) };
}

/**
 * The buckets a build reads: every month a listing can read while the snapshot serves (from the month
 * of today - 31 days to the month after the horizon's) and the long bucket; the manifest names the
 * first and last month, and a reader reads any other from the index.
 */
export function snapshotMonths(todayUtc: string): { first: string; last: string; buckets: string[] } {
  const first = monthIndexOf(toEpochDay(todayUtc) - MAX_BUCKET_SPAN_DAYS - 3);
  const last = monthIndexOf(toEpochDay(todayUtc) + HORIZON_DAYS) + 1;
  const buckets: string[] = [];
  for (let m = first; m <= last; m++) buckets.push(monthName(m));
  return { first: monthName(first), last: monthName(last), buckets: [...buckets, LONG_BUCKET] };
}

/** One bucket's entries as the listing index holds them (Query pages one after the other). */
async function readBucket(client: DynamoDBDocumentClient, tableName: string, bucket: string): Promise<RawEntry[]> {
  const list: RawEntry[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: LEGS_INDEX.indexName,
        KeyConditionExpression: '#b = :b',
        ExpressionAttributeNames: { '#b': BUCKET_ATTR, '#s': SORT_ATTR, '#f': FILTER_ATTR },
        ExpressionAttributeValues: { ':b': bucket },
        ProjectionExpression: '#s, #f',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) {
      const ls: unknown = item[SORT_ATTR];
      const lf: unknown = item[FILTER_ATTR];
      if (typeof ls === 'string' && typeof lf === 'string') list.push({ ls, lf });
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return list;
}

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } };

/** BatchWriteItem in batches of 25 (DynamoDB's limit), unprocessed items retried with backoff. */
async function batchWrite(client: DynamoDBDocumentClient, tableName: string, requests: readonly WriteRequest[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let pending = requests.slice(i, i + 25);
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error(`snapshot: ${pending.length} writes still unprocessed after ${attempt - 1} attempts`);
      if (attempt > 1) await sleep(backoffDelay(attempt - 2, 50, 2_000));
      const out = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (out.UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
    }
  }
}

export async function buildSnapshot(client: DynamoDBDocumentClient, tableName: string, options: BuildOptions = {}): Promise<BuildResult> {
  const clock = options.clock ?? processClock;
  const { manifest: previous, token } = await readStored(client, tableName);
  const builtAt = clock();
  const logSeq = await createChangeLogStore(client, tableName).seqBefore(builtAt - INDEX_LAG_MS);
  const months = snapshotMonths(new Date(builtAt).toISOString().slice(0, 10));
  // A few buckets at a time: all of them at once queue on a small database (DynamoDB Local on two
  // cores) past a request's time-out.
  const lists: RawEntry[][] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: BUILD_CONCURRENCY }, async () => {
      while (next < months.buckets.length) {
        const i = next++;
        lists[i] = await readBucket(client, tableName, months.buckets[i]!);
      }
    }),
  );
  const byBucket = new Map<string, RawEntry[]>();
  months.buckets.forEach((bucket, i) => {
    const list = lists[i]!;
    if (list.length > 0) byBucket.set(bucket, list);
  });

  const buckets: Record<string, BucketParts> = {};
  const puts: WriteRequest[] = [];
  let entries = 0;
  for (const [bucket, list] of [...byBucket].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const hash = bucketHash(list);
    entries += list.length;
    const before = previous?.buckets[bucket];
    if (before && before.hash === hash) {
      buckets[bucket] = before;
      continue;
    }
    const parts = encodeBucket(list);
    parts.forEach((z, k) => puts.push({ PutRequest: { Item: { id: partId(bucket, hash, k), z } } }));
    buckets[bucket] = { hash, parts: parts.length, entries: list.length, bytes: parts.reduce((a, p) => a + p.length, 0) };
  }
  await batchWrite(client, tableName, puts);

  const current = new Set(partIds({ buckets }));
  const manifest: SnapshotManifest = {
    token: randomUUID(),
    builtAt,
    logSeq,
    firstMonth: months.first,
    lastMonth: months.last,
    buckets,
    retired: previous ? partIds(previous).filter((id) => !current.has(id)) : [],
  };
  try {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: encodeManifest(manifest),
        ...(token !== undefined
          ? { ConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': token } }
          : { ConditionExpression: 'attribute_not_exists(id)' }),
      }),
    );
  } catch (err) {
    if (!(err instanceof Error && err.name === 'ConditionalCheckFailedException')) throw err;
    // Someone else's manifest is there now: keep what it uses, drop what only this build wrote.
    const now = await readManifest(client, tableName);
    const kept = new Set(now ? [...partIds(now), ...now.retired] : []);
    const orphans = puts.map((p) => ('PutRequest' in p ? String(p.PutRequest.Item.id) : '')).filter((id) => id !== '' && !kept.has(id));
    await batchWrite(client, tableName, orphans.map((id) => ({ DeleteRequest: { Key: { id } } })));
    return { published: false, buckets: byBucket.size, entries, partsWritten: puts.length, partsDeleted: orphans.length };
  }
  const deletions = (previous?.retired ?? []).filter((id) => !current.has(id));
  await batchWrite(client, tableName, deletions.map((id) => ({ DeleteRequest: { Key: { id } } })));
  return { published: true, buckets: byBucket.size, entries, partsWritten: puts.length, partsDeleted: deletions.length, manifest };
}
