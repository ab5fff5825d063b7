import { processClock } from '../../clock.js';
import { BatchGetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DAY_MS } from '../../kernel/leg-item.js';
import { TAT_SLACK_MS, utcDay } from './bucket.js';
import type { PoolAnswer, PoolRequest, UsageTotals, UsageWrite } from './limiter-ports.js';
import { USAGE_KEY_PREFIX } from '../../tables.js';

/**
 * Per-key usage counters: one item of the keys table per key and UTC day, keyHash
 * `usage#<keyId>#<yyyy-MM-dd>`, outside `byKeyId`, removed RETENTION_DAYS after the day; the authorizer
 * adds to them, `npm run keys -- usage` reads them (docs/api-keys.md, "Rate limits and usage").
 */
export const USAGE_DAYS = 30;
/** Days kept: the 30 days `usage` shows, and a margin for TTL's own delay. */
export const RETENTION_DAYS = 32;

export function usageItemKey(keyId: string, day: string): string {
  return `${USAGE_KEY_PREFIX}${keyId}#${day}`;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * Adds to a key's day, and sets `busyAt` when given (the last time a container refused the key a
 * request from its own bucket); answers the day's totals after the add (one UpdateItem, one write unit).
 */
export async function addUsage(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
  day: string,
  add: UsageWrite,
  /** Asks DynamoDB for the write units consumed and hands them here (the benchmark). */
  onConsumed?: (writeUnits: number) => void,
): Promise<UsageTotals> {
  const out = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { keyHash: usageItemKey(keyId, day) },
      UpdateExpression: `ADD served :s, refused :r SET #ttl = if_not_exists(#ttl, :ttl)${add.busyAt !== undefined ? ', busyAt = :busy' : ''}`,
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':s': add.served,
        ':r': add.refused,
        ':ttl': ttlOf(day),
        ...(add.busyAt !== undefined ? { ':busy': add.busyAt } : {}),
      },
      ReturnValues: 'UPDATED_NEW',
      ...(onConsumed ? { ReturnConsumedCapacity: 'TOTAL' as const } : {}),
    }),
  );
  onConsumed?.(out.ConsumedCapacity?.CapacityUnits ?? 0);
  return { served: num(out.Attributes?.served), refused: num(out.Attributes?.refused) };
}

const ttlOf = (day: string): number => Math.ceil((Date.parse(`${day}T00:00:00Z`) + RETENTION_DAYS * DAY_MS) / 1000);

/** No container refused the key a request from its own bucket within `quietMs` (it is not over its limit). */
const QUIET = '(attribute_not_exists(busyAt) OR busyAt <= :quiet)';

/** The most two containers' clocks may differ by. */
const CLOCK_SKEW_MS = 1000;

/**
 * Reserves one request from the key's shared bucket of `day` and adds `add` in the same conditional
 * UpdateItem, when the bucket holds one and the key is not busy; refused: nothing written (docs/api-keys.md).
 */
export async function reserveUsage(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
  day: string,
  add: UsageTotals,
  pool: PoolRequest,
  onConsumed?: (writeUnits: number) => void,
): Promise<PoolAnswer> {
  // Unknown: a container new to the key; others are likely drawing from the bucket now.
  // A `tat` further ahead than any reservation puts it is another clock's: the bucket counts as full.
  const far = pool.now + 2 * pool.capacityMs + CLOCK_SKEW_MS;
  const isFull = (tat: number | undefined) => tat === undefined || tat < pool.now || tat > far;
  let full = pool.tat !== undefined && isFull(pool.tat);
  let old: Record<string, unknown> = {};
  // Concurrent first requests of a container: the start form, refused to all but one, then the draw form.
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      const out = await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { keyHash: usageItemKey(keyId, day) },
          UpdateExpression: full
            ? 'ADD served :s, refused :r SET #ttl = if_not_exists(#ttl, :ttl), tat = :start, poolFrom = :now, poolBase = if_not_exists(served, :zero) + :older'
            : 'ADD served :s, refused :r, tat :cost, poolBase :older SET #ttl = if_not_exists(#ttl, :ttl)',
          ConditionExpression: `${full ? '(attribute_not_exists(tat) OR tat < :now OR tat > :far)' : 'tat BETWEEN :now AND :last'} AND ${QUIET}`,
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':s': add.served,
            ':r': add.refused,
            ':ttl': ttlOf(day),
            ':now': pool.now,
            ':quiet': pool.now - pool.quietMs,
            // Served counts written with the reservation that are not its own request.
            ':older': add.served - 1,
            ...(full ? { ':start': pool.now + pool.costMs, ':zero': 0, ':far': far } : { ':cost': pool.costMs, ':last': pool.now + pool.capacityMs - pool.costMs + TAT_SLACK_MS }),
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ...(onConsumed ? { ReturnConsumedCapacity: 'TOTAL' as const } : {}),
        }),
      );
      onConsumed?.(out.ConsumedCapacity?.CapacityUnits ?? 0);
      return answerOf(true, out.Attributes ?? {}, pool.now, pool.quietMs);
    } catch (err) {
      if ((err as { name?: unknown }).name !== 'ConditionalCheckFailedException') throw err;
      // A refused condition is charged like a write.
      onConsumed?.(1);
      const item = (err as { Item?: Record<string, AttributeValue> }).Item;
      old = item ? unmarshall(item) : {};
      const tat = typeof old.tat === 'number' ? old.tat : undefined;
      if (typeof old.busyAt === 'number' && old.busyAt > pool.now - pool.quietMs) break;
      const fullNow = isFull(tat);
      // The other form fits: the guess was wrong, or another container wrote in between.
      if (fullNow !== full && (fullNow || tat! <= pool.now + pool.capacityMs - pool.costMs + TAT_SLACK_MS)) {
        full = fullNow;
        continue;
      }
      break;
    }
  }
  return answerOf(false, old, pool.now, pool.quietMs);
}

function answerOf(granted: boolean, item: Record<string, unknown>, now: number, quietMs: number): PoolAnswer {
  const served = num(item.served);
  return {
    granted,
    busy: !granted && typeof item.busyAt === 'number' && item.busyAt > now - quietMs,
    totals: { served, refused: num(item.refused) },
    tat: typeof item.tat === 'number' ? item.tat : now,
    servedSinceFull: served - num(item.poolBase),
    fullAt: num(item.poolFrom),
  };
}

export interface DayUsage extends UsageTotals {
  day: string;
}

/** The last `days` UTC days up to today (oldest first), each with its counts (0 for a day without). */
export async function readUsage(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
  options: { now?: number; days?: number } = {},
): Promise<DayUsage[]> {
  const now = options.now ?? processClock();
  const daysWanted = options.days ?? USAGE_DAYS;
  const days = Array.from({ length: daysWanted }, (_, i) => utcDay(now - (daysWanted - 1 - i) * DAY_MS));
  const found = new Map<string, UsageTotals>();
  let keys: Record<string, unknown>[] = days.map((day) => ({ keyHash: usageItemKey(keyId, day) }));
  // At most 100 keys per BatchGetItem; unprocessed keys are asked again.
  for (let attempt = 0; keys.length > 0 && attempt < 5; attempt++) {
    const out = await client.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys } } }));
    for (const item of out.Responses?.[tableName] ?? []) {
      found.set(String(item.keyHash), { served: num(item.served), refused: num(item.refused) });
    }
    keys = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
  }
  if (keys.length > 0) throw new Error(`DynamoDB left ${keys.length} usage days unread; try again`);
  return days.map((day) => ({ day, ...(found.get(usageItemKey(keyId, day)) ?? { served: 0, refused: 0 }) }));
}
