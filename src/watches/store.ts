import {
  GetCommand,
  paginateQuery,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { writtenIf } from '../aws/dynamodb.js';

/**
 * The watches and their deliveries in DynamoDB (src/tables.ts WATCHES_TABLE, WATCH_DELIVERIES_TABLE).
 * Every create, change or delete of a watch bumps the watches version, naming the watch, which the matchers read per batch.
 */
export type WatchStatus = 'active' | 'disabled';

export interface WatchRecord {
  clientId: string;
  watchId: string;
  url: string;
  /** The filters as given, each as its query-string text. */
  filters: Record<string, string>;
  description: string | null;
  /** `flight`: its events are its flights' (docs/watches.md, "Flights"); absent: each leg's. */
  group?: 'flight';
  status: WatchStatus;
  createdAt: string;
  /** The signing secret (`whsec_...`). */
  secret: string;
  /** Since when every attempt has failed; null after a success. */
  failingSince: string | null;
  disabledAt: string | null;
  /** The secret replaced by the last rotation, signing too until `previousSecretExpiresAt` (src/watches/attempt.ts). */
  previousSecret?: string | null;
  previousSecretExpiresAt?: string | null;
  /** Epoch ms until which its deliveries take the slow lane (src/watches/lane/slow.ts); absent when it never answered slowly. */
  slowUntil?: number;
  /** The blocks its deliveries' legs carry, as given (`provenance,departure`); absent or empty: none. */
  include?: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dropped';

export interface DeliveryRecord {
  watchId: string;
  deliveryKey: string;
  /** The delivery id, sent as `webhook-id` on every attempt. */
  id: string;
  clientId: string;
  type: string;
  legId: string;
  status: DeliveryStatus;
  attempts: number;
  responseCode: number | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  ttl: number;
  /** The body every attempt sends (absent from deliveries made before replays were kept). */
  payload?: string;
}

export interface WatchTables {
  client: DynamoDBDocumentClient;
  watchesTableName: string;
  deliveriesTableName: string;
}

const VERSION_KEY = { clientId: '~version', watchId: '~version' };
/** How long a delivery is kept (DynamoDB TTL). */
export const DELIVERY_RETENTION_SECONDS = 30 * 86_400;

const nullableString = v.optional(v.nullable(v.string()), null);
const WatchSchema = v.object({
  clientId: v.string(),
  watchId: v.string(),
  url: v.string(),
  filters: v.record(v.string(), v.string()),
  description: nullableString,
  status: v.picklist(['active', 'disabled']),
  createdAt: v.string(),
  secret: v.string(),
  failingSince: nullableString,
  disabledAt: nullableString,
  previousSecret: nullableString,
  previousSecretExpiresAt: nullableString,
  slowUntil: v.optional(v.number()),
  include: v.optional(v.string()),
  group: v.optional(v.literal('flight')),
});

function toWatch(item: Record<string, unknown>): WatchRecord {
  return v.parse(WatchSchema, item);
}

export class WatchLimitReached extends Error {
  override name = 'WatchLimitReached';
}

/** A watch's key. */
export interface WatchKey {
  clientId: string;
  watchId: string;
}

/**
 * The version item keeps the keys of the last WATCH_CHANGE_SLOTS changes, change `v` in slot
 * `c<v mod WATCH_CHANGE_SLOTS>`, so a matcher patches its index by key (docs/watches.md, "Matching").
 */
export const WATCH_CHANGE_SLOTS = 48;
const slotName = (version: number) => `c${version % WATCH_CHANGE_SLOTS}`;

/** The watches version and the changes its slots hold, by version number. */
export interface WatchesVersion {
  version: number;
  changes: ReadonlyMap<number, WatchKey>;
}

/** Tells the matchers that the watch `changed` changed: the version moves, then its slot names the watch. */
export async function bumpVersion(t: WatchTables, changed: WatchKey): Promise<void> {
  const out = await t.client.send(
    new UpdateCommand({ TableName: t.watchesTableName, Key: VERSION_KEY, UpdateExpression: 'ADD version :one', ExpressionAttributeValues: { ':one': 1 }, ReturnValues: 'UPDATED_NEW' }),
  );
  const version: unknown = out.Attributes?.version;
  if (typeof version !== 'number') return;
  // A slot already holding a later change is left to it (a matcher that missed this one reads every watch).
  await writtenIf(() =>
    t.client.send(
      new UpdateCommand({
        TableName: t.watchesTableName,
        Key: VERSION_KEY,
        UpdateExpression: 'SET #s = :change',
        ConditionExpression: 'attribute_not_exists(#s) OR #s.#v < :v',
        ExpressionAttributeNames: { '#s': slotName(version), '#v': 'v' },
        ExpressionAttributeValues: { ':change': { v: version, c: changed.clientId, w: changed.watchId }, ':v': version },
      }),
    ),
  );
}

/** The watches version (0 before any watch) and the changes its slots hold (strongly consistent: one item). */
export async function readWatchesVersion(t: WatchTables): Promise<WatchesVersion> {
  const out = await t.client.send(new GetCommand({ TableName: t.watchesTableName, Key: VERSION_KEY, ConsistentRead: true }));
  const changes = new Map<number, WatchKey>();
  for (let i = 0; i < WATCH_CHANGE_SLOTS; i++) {
    const slot = out.Item?.[`c${i}`] as { v?: unknown; c?: unknown; w?: unknown } | undefined;
    if (typeof slot?.v === 'number' && typeof slot.c === 'string' && typeof slot.w === 'string') changes.set(slot.v, { clientId: slot.c, watchId: slot.w });
  }
  return { version: typeof out.Item?.version === 'number' ? out.Item.version : 0, changes };
}

/** The pages of the Query of a client's watches (the SDK's paginator). */
function clientWatchPages(t: WatchTables, clientId: string, read: Pick<QueryCommandInput, 'Select' | 'ConsistentRead'>) {
  const input: QueryCommandInput = { TableName: t.watchesTableName, KeyConditionExpression: 'clientId = :c', ExpressionAttributeValues: { ':c': clientId }, ...read };
  return paginateQuery({ client: t.client }, input);
}

export async function countWatches(t: WatchTables, clientId: string): Promise<number> {
  let count = 0;
  for await (const page of clientWatchPages(t, clientId, { Select: 'COUNT' })) count += page.Count ?? 0;
  return count;
}

export async function getWatch(t: WatchTables, clientId: string, watchId: string): Promise<WatchRecord | undefined> {
  const out = await t.client.send(new GetCommand({ TableName: t.watchesTableName, Key: { clientId, watchId }, ConsistentRead: true }));
  return out.Item === undefined ? undefined : toWatch(out.Item);
}

export async function listWatches(t: WatchTables, clientId: string): Promise<WatchRecord[]> {
  const watches: WatchRecord[] = [];
  for await (const page of clientWatchPages(t, clientId, { ConsistentRead: true })) for (const item of page.Items ?? []) watches.push(toWatch(item));
  return watches.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.watchId.localeCompare(b.watchId));
}

/** After a failed attempt: starts the failing period, or disables the watch once it has lasted `disableAfterMs`. */
export async function recordWatchFailure(t: WatchTables, watch: WatchRecord, now: number, disableAfterMs: number): Promise<WatchStatus> {
  const since = watch.failingSince ?? new Date(now).toISOString();
  const disable = watch.status === 'active' && now - Date.parse(since) >= disableAfterMs;
  if (!disable && watch.failingSince !== null) return watch.status;
  await writtenIf(() =>
    t.client.send(
      new UpdateCommand({
        TableName: t.watchesTableName,
        Key: { clientId: watch.clientId, watchId: watch.watchId },
        // A new watch stores failingSince as null: the first failure replaces the null, not only a missing attribute.
        UpdateExpression: disable ? 'SET failingSince = :since, #status = :disabled, disabledAt = :now' : 'SET failingSince = :since',
        ConditionExpression: disable
          ? 'attribute_exists(watchId)'
          : 'attribute_exists(watchId) AND (attribute_not_exists(failingSince) OR attribute_type(failingSince, :null))',
        ExpressionAttributeNames: disable ? { '#status': 'status' } : undefined,
        ExpressionAttributeValues: disable ? { ':since': since, ':disabled': 'disabled', ':now': new Date(now).toISOString() } : { ':since': since, ':null': 'NULL' },
      }),
    ),
  );
  return disable ? 'disabled' : watch.status;
}

/** After a 2xx: the endpoint is not failing any more. */
export async function recordWatchSuccess(t: WatchTables, watch: WatchRecord): Promise<void> {
  if (watch.failingSince === null) return;
  await writtenIf(() =>
    t.client.send(
      new UpdateCommand({
        TableName: t.watchesTableName,
        Key: { clientId: watch.clientId, watchId: watch.watchId },
        UpdateExpression: 'REMOVE failingSince',
        ConditionExpression: 'attribute_exists(watchId)',
      }),
    ),
  );
}

/** Stores a new delivery; false when one with this key exists already (a batch read twice). */
export async function putDelivery(t: WatchTables, delivery: DeliveryRecord): Promise<boolean> {
  return writtenIf(() => t.client.send(new PutCommand({ TableName: t.deliveriesTableName, Item: delivery, ConditionExpression: 'attribute_not_exists(deliveryKey)' })));
}

export async function getDelivery(t: WatchTables, watchId: string, deliveryKey: string): Promise<DeliveryRecord | undefined> {
  const out = await t.client.send(new GetCommand({ TableName: t.deliveriesTableName, Key: { watchId, deliveryKey }, ConsistentRead: true }));
  return out.Item as DeliveryRecord | undefined;
}

/** Records the outcome of an attempt (or a drop): the fields given. */
export async function updateDelivery(
  t: WatchTables,
  watchId: string,
  deliveryKey: string,
  fields: Partial<Pick<DeliveryRecord, 'status' | 'attempts' | 'responseCode' | 'lastAttemptAt' | 'nextAttemptAt'>>,
): Promise<void> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(fields).map(([k, value], i) => {
    names[`#f${i}`] = k;
    values[`:v${i}`] = value;
    return `#f${i} = :v${i}`;
  });
  if (sets.length === 0) return;
  await writtenIf(() =>
    t.client.send(
      new UpdateCommand({
        TableName: t.deliveriesTableName,
        Key: { watchId, deliveryKey },
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(deliveryKey)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    ),
  );
}

/** A watch's most recent deliveries, newest first. */
export async function recentDeliveries(t: WatchTables, watchId: string, limit: number): Promise<DeliveryRecord[]> {
  const out = await t.client.send(
    new QueryCommand({
      TableName: t.deliveriesTableName,
      KeyConditionExpression: 'watchId = :w',
      ExpressionAttributeValues: { ':w': watchId },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []) as DeliveryRecord[];
}
