import { processClock } from '../clock.js';
import { BatchGetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DAY_MS } from './grace.js';
import { utcDay, type UsageTotals } from './limiter.js';
import { USAGE_KEY_PREFIX } from '../tables.js';

/**
 * Per-key usage counters, items of the keys table (src/tables.ts KEYS_TABLE): one item per key and
 * UTC day, keyHash `usage#<keyId>#<yyyy-MM-dd>` (no SHA-256 hex hash starts so, and no `keyId`
 * attribute, so the `byKeyId` index and `list` never see them), with `served` and `refused` (the
 * requests answered RATE_LIMITED), and `ttl` so DynamoDB removes a day RETENTION_DAYS after it.
 * The authorizer adds to them (src/keys/limiter.ts), with IAM allowing it UpdateItem on `usage#`
 * items only; `npm run keys -- usage KEY_ID` reads them.
 */
export const USAGE_DAYS = 30;
/** Days kept: the 30 days `usage` shows, and a margin for TTL's own delay. */
export const RETENTION_DAYS = 32;

export function usageItemKey(keyId: string, day: string): string {
  return `${USAGE_KEY_PREFIX}${keyId}#${day}`;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Adds to a key's day; answers the day's totals after the add (one UpdateItem, one write unit). */
export async function addUsage(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
  day: string,
  add: UsageTotals,
  /** Asks DynamoDB for the write units consumed and hands them here (the benchmark). */
  onConsumed?: (writeUnits: number) => void,
): Promise<UsageTotals> {
  const out = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { keyHash: usageItemKey(keyId, day) },
      UpdateExpression: 'ADD served :s, refused :r SET #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':s': add.served,
        ':r': add.refused,
        ':ttl': Math.ceil((Date.parse(`${day}T00:00:00Z`) + RETENTION_DAYS * DAY_MS) / 1000),
      },
      ReturnValues: 'UPDATED_NEW',
      ...(onConsumed ? { ReturnConsumedCapacity: 'TOTAL' as const } : {}),
    }),
  );
  onConsumed?.(out.ConsumedCapacity?.CapacityUnits ?? 0);
  return { served: num(out.Attributes?.served), refused: num(out.Attributes?.refused) };
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
