
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

import { LEGS_EXPIRY_INDEX } from '../tables.js';
import { deletionTime, dueDay, EXPIRY_SHARD_KEYS, EXPIRY_SHARDS } from '../kernel/retirement.js';
import { BUCKET_ATTR, EXPIRY_DAY_ATTR, EXPIRY_INSTANT_ATTR, EXPIRY_SHARD_ATTR, FILTER_ATTR, SORT_ATTR, TTL_ATTR } from '../kernel/leg-item.js';

/**
 * Retiring legs (docs/deploy.md, "10. History and retention"): from each shard of `byExpiry` the legs
 * due, each in one UpdateItem conditioned on the day the index gave (listing attributes removed, `ttl`
 * set); at most MAX_PER_SHARD a shard, more is `behind`, for the next run.
 */
export const MAX_RETIRED_PER_RUN = 4_000;
export const MAX_PER_SHARD = MAX_RETIRED_PER_RUN / EXPIRY_SHARDS;
export const MAX_QUERY_PAGES = 4;
/** UpdateItems in flight at once. */
export const UPDATE_CONCURRENCY = 10;

/** A leg the index says is due: its id and the retirement day the index holds for it. */
interface DueLeg {
  id: string;
  day: string;
}

export interface RetireReport {
  /** The latest retirement day due at the run's instant. */
  dueDay: string;
  /** Due legs read from the index. */
  found: number;
  /** Legs retired (listing attributes removed, ttl set). */
  retired: number;
  /** Of those, legs that were in the listing index (each a `withdrawn` change). */
  unlisted: number;
  /** Due legs left alone: loaded again with a later day, or retired already. */
  skipped: number;
  /** Shards with due legs left for the next run. */
  behind: string[];
  queries: number;
}

export interface RetireOptions {
  /** Epoch ms of the run. */
  now: number;
  /** Per-shard bound (tests lower it); default MAX_PER_SHARD. */
  maxPerShard?: number;
}

async function dueLegsOfShard(
  client: DynamoDBDocumentClient,
  tableName: string,
  shard: string,
  due: string,
  limit: number,
  report: RetireReport,
): Promise<DueLeg[]> {
  const legs: DueLeg[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  // One more than the bound is asked for: a Query stopped by its Limit returns a LastEvaluatedKey
  // even when nothing follows, so only a leg beyond the bound says the shard is behind.
  for (let page = 0; page < MAX_QUERY_PAGES && legs.length <= limit; page++) {
    report.queries += 1;
    const out = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: LEGS_EXPIRY_INDEX.indexName,
        KeyConditionExpression: '#xp = :shard AND #xd <= :due',
        ExpressionAttributeNames: { '#xp': EXPIRY_SHARD_ATTR, '#xd': EXPIRY_DAY_ATTR },
        ExpressionAttributeValues: { ':shard': shard, ':due': due },
        Limit: limit + 1 - legs.length,
        ExclusiveStartKey,
      }),
    );
    for (const item of out.Items ?? []) {
      if (typeof item.id === 'string' && typeof item[EXPIRY_DAY_ATTR] === 'string') legs.push({ id: item.id, day: item[EXPIRY_DAY_ATTR] });
    }
    ExclusiveStartKey = out.LastEvaluatedKey;
    if (!ExclusiveStartKey) break;
  }
  // More than the bound, or the page bound reached with the index holding more: this shard is behind.
  if (legs.length > limit || ExclusiveStartKey !== undefined) report.behind.push(shard);
  return legs.slice(0, limit);
}

/** Retires one leg: true when it left the listing index, false when it was in none, undefined when skipped. */
async function retireOne(client: DynamoDBDocumentClient, tableName: string, leg: DueLeg): Promise<boolean | undefined> {
  try {
    const out = await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { id: leg.id },
        UpdateExpression: 'REMOVE #lb, #ls, #lf, #xd, #xa SET #ttl = :ttl',
        ConditionExpression: '#xd = :day',
        ExpressionAttributeNames: {
          '#lb': BUCKET_ATTR,
          '#ls': SORT_ATTR,
          '#lf': FILTER_ATTR,
          '#xd': EXPIRY_DAY_ATTR,
          '#xa': EXPIRY_INSTANT_ATTR,
          '#ttl': TTL_ATTR,
        },
        ExpressionAttributeValues: { ':day': leg.day, ':ttl': deletionTime(leg.day) },
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    return out.Attributes?.[BUCKET_ATTR] !== undefined;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return undefined;
    throw err;
  }
}

/** Runs `work` over `items` with at most `limit` in flight; every item is tried, results in order. */
async function settleAll<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array<PromiseSettledResult<R>>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = { status: 'fulfilled', value: await work(items[i]!) };
      } catch (reason) {
        results[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, () => worker()));
  return results;
}

/** One run: what is due at `options.now`, retired; the report says what happened. */
export async function retireDueLegs(client: DynamoDBDocumentClient, tableName: string, options: RetireOptions): Promise<RetireReport> {
  const due = dueDay(options.now);
  const report: RetireReport = { dueDay: due, found: 0, retired: 0, unlisted: 0, skipped: 0, behind: [], queries: 0 };
  const limit = options.maxPerShard ?? MAX_PER_SHARD;
  const legs: DueLeg[] = [];
  for (const shard of EXPIRY_SHARD_KEYS) legs.push(...(await dueLegsOfShard(client, tableName, shard, due, limit, report)));
  report.found = legs.length;
  let failure: Error | undefined;
  for (const r of await settleAll(legs, UPDATE_CONCURRENCY, (leg) => retireOne(client, tableName, leg))) {
    if (r.status === 'rejected') failure ??= r.reason instanceof Error ? r.reason : new Error('Retiring a leg failed', { cause: r.reason });
    else if (r.value === undefined) report.skipped += 1;
    else {
      report.retired += 1;
      if (r.value) report.unlisted += 1;
    }
  }
  if (failure !== undefined) throw failure;
  return report;
}
