import { processClock } from '../clock.js';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logger } from '../logger.js';
import { emfLine, RETIRE_METRICS } from '../metrics.js';
import { LEGS_EXPIRY_INDEX } from '../tables.js';
import { appendChanges, RESET_ID, type LegChange } from './journal.js';
import { JOURNAL_RESET_ABOVE, JOURNAL_SET_MAX } from './loader.js';
import { deletionTime, dueDay, EXPIRY_SHARD_KEYS, EXPIRY_SHARDS } from './retirement.js';
import { changeStamp } from './snapshot.js';
import { BUCKET_ATTR, CHANGE_ATTR, EXPIRY_DAY_ATTR, EXPIRY_SHARD_ATTR, FILTER_ATTR, SORT_ATTR, TTL_ATTR } from './storage.js';

/**
 * Retiring legs (docs/deploy.md, "History and retention"): the scheduled function's use case. One
 * run reads, from each shard of the sparse index `byExpiry`, the legs whose retirement day is due
 * (src/legs/retirement.ts: expired in every zone on earth), and for each one, in one conditional
 * UpdateItem, removes the listing index attributes (`lb`, `ls`, `lf`) and its retirement day (`xd`:
 * it leaves `byExpiry`), stamps the change (`lc`: the listing snapshot's delta sees it leave) and
 * sets `ttl`, RETENTION_DAYS after the retirement instant: DynamoDB TTL deletes the item later. No
 * Scan: a run reads only what is due.
 *
 * The journal (src/legs/journal.ts) sees every leg that leaves the listing index, as the loader's
 * writes do: one change set (the leg's id, no index) per chunk of at most JOURNAL_SET_MAX updates,
 * appended after the chunk is written; a run that retires more than JOURNAL_RESET_ABOVE legs appends
 * one reset instead, at the end (also after a failure, when anything was retired). A leg that was in
 * no listing (unlisted, blocked) is retired without a change.
 *
 * Bounds of one run: at most MAX_PER_SHARD legs from each of the EXPIRY_SHARDS shards (so at most
 * MAX_RETIRED_PER_RUN UpdateItems), at most MAX_QUERY_PAGES Queries per shard, at most
 * ceil(MAX_RETIRED_PER_RUN / JOURNAL_SET_MAX) journal appends. A shard with more due legs than that
 * is behind: the run says so (`behind`, the metric `RetireBehind`) and the next run goes on where it
 * stopped, since what it retired has left the index. Behind costs nothing but time: retired legs
 * were expired already, and the listing never shows an expired leg.
 *
 * The update is conditioned on `xd` still being the day the index gave: a leg loaded again in the
 * meantime (with a later endDate) is left alone, and so is an item already retired (the index is
 * eventually consistent and may still show it).
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
  /** Of those, legs that were in the listing index (each a change in the journal). */
  unlisted: number;
  /** Due legs left alone: loaded again with a later day, or retired already. */
  skipped: number;
  /** Shards with due legs left for the next run. */
  behind: string[];
  /** How the journal heard of it. */
  journal: 'none' | 'changes' | 'reset';
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

/** Retires one leg; its journal change when it left the listing index, null when it was in none, undefined when skipped. */
async function retireOne(client: DynamoDBDocumentClient, tableName: string, leg: DueLeg, stamp: string): Promise<LegChange | null | undefined> {
  try {
    const out = await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { id: leg.id },
        // The shard `xp` stays, with the change stamp `lc`: the listing snapshot's delta (the
        // `byChange` index) sees the leg leave, as it sees a load's writes (src/legs/snapshot.ts).
        UpdateExpression: 'REMOVE #lb, #ls, #lf, #xd SET #ttl = :ttl, #lc = :lc',
        ConditionExpression: '#xd = :day',
        ExpressionAttributeNames: {
          '#lb': BUCKET_ATTR,
          '#ls': SORT_ATTR,
          '#lf': FILTER_ATTR,
          '#xd': EXPIRY_DAY_ATTR,
          '#ttl': TTL_ATTR,
          '#lc': CHANGE_ATTR,
        },
        ExpressionAttributeValues: { ':day': leg.day, ':ttl': deletionTime(leg.day), ':lc': stamp },
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    return out.Attributes?.[BUCKET_ATTR] === undefined ? null : { id: leg.id };
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
  const report: RetireReport = { dueDay: due, found: 0, retired: 0, unlisted: 0, skipped: 0, behind: [], journal: 'none', queries: 0 };
  const limit = options.maxPerShard ?? MAX_PER_SHARD;
  const legs: DueLeg[] = [];
  for (const shard of EXPIRY_SHARD_KEYS) legs.push(...(await dueLegsOfShard(client, tableName, shard, due, limit, report)));
  report.found = legs.length;
  const bulk = legs.length > JOURNAL_RESET_ABOVE;

  let failure: Error | undefined;
  for (let i = 0; i < legs.length && failure === undefined; i += JOURNAL_SET_MAX) {
    const results = await settleAll(legs.slice(i, i + JOURNAL_SET_MAX), UPDATE_CONCURRENCY, (leg) => retireOne(client, tableName, leg, changeStamp(options.now)));
    const changes: LegChange[] = [];
    for (const r of results) {
      if (r.status === 'rejected') {
        failure ??= r.reason instanceof Error ? r.reason : new Error('Retiring a leg failed', { cause: r.reason });
      } else if (r.value === undefined) {
        report.skipped += 1;
      } else {
        report.retired += 1;
        if (r.value) changes.push(r.value);
      }
    }
    report.unlisted += changes.length;
    if (!bulk && changes.length > 0) {
      await appendChanges(client, tableName, changes);
      report.journal = 'changes';
    }
  }
  if (bulk && report.unlisted > 0) {
    await appendChanges(client, tableName, [{ id: RESET_ID }]);
    report.journal = 'reset';
  }
  if (failure !== undefined) throw failure;
  return report;
}

export interface RetireHandlerDeps {
  client: DynamoDBDocumentClient;
  legsTableName: string;
  stage: string;
  now?: () => number;
  /** Where the metric line goes (stdout in Lambda, which CloudWatch reads). */
  emit?: (line: string) => void;
}

/** The scheduled function's handler (an EventBridge rule invokes it; the event carries nothing it needs). */
export function createRetireHandler(deps: RetireHandlerDeps): () => Promise<RetireReport> {
  const now = deps.now ?? processClock;
  const emit = deps.emit ?? ((line: string) => process.stdout.write(`${line}\n`));
  return async () => {
    const at = now();
    const report = await retireDueLegs(deps.client, deps.legsTableName, { now: at });
    const m = RETIRE_METRICS;
    emit(emfLine(m.namespace, { [m.dimension]: deps.stage }, { [m.retired]: report.retired, [m.behind]: report.behind.length }, new Date(at)));
    if (report.behind.length > 0) logger.warn('Retiring legs is behind: due legs are left for the next run', { report });
    else logger.info('Retired the due legs', { report });
    return report;
  };
}
