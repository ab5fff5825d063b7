import { processClock } from '../clock.js';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { KeyEnvironment } from '../auth/verdict.js';
import { KEYS_BY_ID_INDEX } from '../tables.js';
import { DAY_MS, DEFAULT_GRACE_MS } from './grace.js';
import { clientIdOf, generateClientId, generateKey, generateKeyId, hashKey, isKeyId } from './format.js';
import type { RateLimit } from './rate-limit.js';
import { bumpKeysVersion, bumpKeysVersionItem } from './version.js';

/**
 * The keys table (src/tables.ts KEYS_TABLE): one item per key, keyed by `keyHash` (SHA-256 hex of
 * the whole key). The clear key is returned once by `createKey`/`rotateKey` and never stored.
 *
 * Item attributes: keyHash, keyId, clientId? (the client the key belongs to; a key stored before
 * clients has one derived from its id, `clientIdOf`), name?, environment, scopes (list), status (active | rotated |
 * revoked), createdAt, rotatedAt?, revokedAt?, graceUntil? (ISO), successorKeyId?,
 * predecessorKeyId?, rateLimit? ({rate, burst}: the key's own limit; without it the default of
 * src/keys/rate-limit.ts applies), ttl? (epoch seconds). "expired" is not stored: a rotated key is expired once
 * `graceUntil` has passed.
 *
 * Every change also bumps the keys version (src/keys/version.ts), an item of its own in the table.
 *
 * `ttl` is set when a key is rotated (grace deadline + 30 days) or revoked (revocation + 30 days),
 * so DynamoDB TTL removes the item a month after it stopped working. Until then the authorizer can
 * still answer API_KEY_EXPIRED rather than API_KEY_INVALID, and `list` still shows it.
 */
export const RETENTION_AFTER_END_MS = 30 * DAY_MS;

export type StoredStatus = 'active' | 'rotated' | 'revoked';
/** What a caller sees: `rotated` while in grace, `expired` after it. */
export type KeyState = 'active' | 'rotated' | 'expired' | 'revoked';

export interface KeyRecord {
  keyHash: string;
  keyId: string;
  clientId?: string;
  name?: string;
  environment: KeyEnvironment;
  scopes: string[];
  status: StoredStatus;
  createdAt: string;
  rotatedAt?: string;
  revokedAt?: string;
  graceUntil?: string;
  successorKeyId?: string;
  predecessorKeyId?: string;
  rateLimit?: RateLimit;
  ttl?: number;
}

/** A key as `list` shows it: no secret, no hash. */
export type PublicKeyRecord = Omit<KeyRecord, 'keyHash' | 'ttl' | 'status' | 'clientId'> & { status: KeyState; clientId: string };

export interface CreatedKey {
  /** The clear key: shown once, stored nowhere. */
  key: string;
  record: KeyRecord;
}

export type KeyStoreRefusal = 'not_found' | 'already_rotated' | 'revoked';

/** A refused management operation (unknown key id, rotating a key twice, a revoked key). */
export class KeyStoreError extends Error {
  readonly reason: KeyStoreRefusal;

  constructor(reason: KeyStoreRefusal, message: string) {
    super(message);
    this.name = 'KeyStoreError';
    this.reason = reason;
  }
}

const Iso = v.pipe(v.string(), v.isoTimestamp());
const RecordSchema = v.object({
  keyHash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  keyId: v.string(),
  clientId: v.optional(v.string()),
  name: v.optional(v.string()),
  environment: v.picklist(['live', 'test']),
  scopes: v.pipe(
    v.union([v.array(v.string()), v.set(v.string())]),
    v.transform((s) => [...s]),
  ),
  status: v.picklist(['active', 'rotated', 'revoked']),
  createdAt: Iso,
  rotatedAt: v.optional(Iso),
  revokedAt: v.optional(Iso),
  graceUntil: v.optional(Iso),
  successorKeyId: v.optional(v.string()),
  predecessorKeyId: v.optional(v.string()),
  rateLimit: v.optional(v.object({ rate: v.number(), burst: v.number() })),
  ttl: v.optional(v.number()),
});

/** Validates an item read from the table; a damaged item is an error, never a verified key. */
export function toKeyRecord(item: Record<string, unknown>): KeyRecord {
  const parsed = v.safeParse(RecordSchema, item);
  if (!parsed.success) {
    const path = v.getDotPath(parsed.issues[0]) ?? 'item';
    throw new Error(`Malformed key item (keyId ${String(item.keyId)}): ${path}: ${parsed.issues[0].message}`);
  }
  return parsed.output;
}

/** The state of a key at `now` (epoch ms). */
export function keyState(record: Pick<KeyRecord, 'status' | 'graceUntil'>, now: number): KeyState {
  if (record.status === 'rotated') {
    const deadline = record.graceUntil === undefined ? Number.NaN : Date.parse(record.graceUntil);
    return Number.isNaN(deadline) || now >= deadline ? 'expired' : 'rotated';
  }
  return record.status;
}

export function toPublicRecord(record: KeyRecord, now: number): PublicKeyRecord {
  const { keyHash: _hash, ttl: _ttl, status: _status, ...rest } = record;
  return { ...rest, clientId: clientIdOf(record), status: keyState(record, now) };
}

const iso = (ms: number): string => new Date(ms).toISOString();
const epochSeconds = (ms: number): number => Math.ceil(ms / 1000);

export interface NewKeyInput {
  environment: KeyEnvironment;
  scopes: readonly string[];
  name?: string | undefined;
  /** The client the key belongs to (an existing one); undefined: a new client. */
  clientId?: string | undefined;
  /** The key's own rate limit; undefined: the default. */
  rateLimit?: RateLimit | undefined;
  /** Epoch ms; defaults to the system clock. */
  now?: number;
}

function newRecord(input: NewKeyInput, now: number, predecessorKeyId?: string): CreatedKey {
  const key = generateKey(input.environment);
  const record: KeyRecord = {
    keyHash: hashKey(key),
    keyId: generateKeyId(),
    clientId: input.clientId ?? generateClientId(),
    ...(input.name !== undefined && input.name !== '' ? { name: input.name } : {}),
    environment: input.environment,
    scopes: [...input.scopes],
    status: 'active',
    createdAt: iso(now),
    ...(predecessorKeyId !== undefined ? { predecessorKeyId } : {}),
    ...(input.rateLimit !== undefined ? { rateLimit: { rate: input.rateLimit.rate, burst: input.rateLimit.burst } } : {}),
  };
  return { key, record };
}

/** Creates a key; returns the clear key (once) and what was stored (its hash only). */
export async function createKey(client: DynamoDBDocumentClient, tableName: string, input: NewKeyInput): Promise<CreatedKey> {
  if (input.scopes.length === 0) throw new Error('A key needs at least one scope');
  const created = newRecord(input, input.now ?? processClock());
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: created.record,
      ConditionExpression: 'attribute_not_exists(keyHash)',
    }),
  );
  await bumpKeysVersion(client, tableName);
  return created;
}

/** The key whose hash is `keyHash`, or undefined. A strongly consistent read: a new key works at once. */
export async function getKeyByHash(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyHash: string,
): Promise<KeyRecord | undefined> {
  const out = await client.send(new GetCommand({ TableName: tableName, Key: { keyHash }, ConsistentRead: true }));
  return out.Item ? toKeyRecord(out.Item) : undefined;
}

/** The key with public id `keyId` (index `byKeyId`), or undefined. */
export async function getKeyById(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
): Promise<KeyRecord | undefined> {
  if (!isKeyId(keyId)) return undefined;
  const out = await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: KEYS_BY_ID_INDEX.indexName,
      KeyConditionExpression: 'keyId = :id',
      ExpressionAttributeValues: { ':id': keyId },
    }),
  );
  const item = out.Items?.[0];
  return item ? toKeyRecord(item) : undefined;
}

async function requireKey(client: DynamoDBDocumentClient, tableName: string, keyId: string): Promise<KeyRecord> {
  const record = await getKeyById(client, tableName, keyId);
  if (!record) throw new KeyStoreError('not_found', `No key with id ${keyId}`);
  return record;
}

function refusalToRotate(record: KeyRecord, now: number): KeyStoreError {
  if (keyState(record, now) === 'revoked') {
    return new KeyStoreError('revoked', `Key ${record.keyId} is revoked and cannot be rotated`);
  }
  const grace =
    keyState(record, now) === 'expired' ? 'its grace period has ended' : `it is in grace until ${record.graceUntil ?? '?'}`;
  const successor = record.successorKeyId ? `; rotate its successor ${record.successorKeyId} instead` : '';
  return new KeyStoreError('already_rotated', `Key ${record.keyId} was already rotated (${grace})${successor}`);
}

export interface RotateOptions {
  /** Grace of the old key in ms; default 7 days; 0 expires it at once. */
  graceMs?: number;
  now?: number;
}

export interface RotatedKey extends CreatedKey {
  previous: KeyRecord;
}

/**
 * Rotates an active key: a new key with the same name and scopes, and the old one `rotated` with
 * `graceUntil = now + grace`. The new item and the old item's change are one transaction whose
 * condition is that the old key is still active, so of two concurrent rotations exactly one wins.
 */
export async function rotateKey(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
  options: RotateOptions = {},
): Promise<RotatedKey> {
  const now = options.now ?? processClock();
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  if (!Number.isSafeInteger(graceMs) || graceMs < 0) throw new RangeError(`Bad grace period: ${graceMs}`);
  const old = await requireKey(client, tableName, keyId);
  if (old.status !== 'active') throw refusalToRotate(old, now);

  const created = newRecord(
    { environment: old.environment, scopes: old.scopes, name: old.name, rateLimit: old.rateLimit, clientId: clientIdOf(old) },
    now,
    old.keyId,
  );
  const graceUntil = iso(now + graceMs);
  const ttl = epochSeconds(now + graceMs + RETENTION_AFTER_END_MS);
  try {
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: created.record,
              ConditionExpression: 'attribute_not_exists(keyHash)',
            },
          },
          {
            Update: {
              TableName: tableName,
              Key: { keyHash: old.keyHash },
              UpdateExpression:
                'SET #status = :rotated, rotatedAt = :now, graceUntil = :graceUntil, successorKeyId = :successor, #ttl = :ttl',
              ConditionExpression: '#status = :active',
              ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl' },
              ExpressionAttributeValues: {
                ':rotated': 'rotated',
                ':active': 'active',
                ':now': iso(now),
                ':graceUntil': graceUntil,
                ':successor': created.record.keyId,
                ':ttl': ttl,
              },
            },
          },
          // The keys version, in the same transaction: authorizers see the rotation within a second.
          bumpKeysVersionItem(tableName),
        ],
      }),
    );
  } catch (err) {
    // The old key is no longer active (ConditionalCheckFailed) or another transaction on it is in
    // flight (TransactionConflict): either way this rotation wrote nothing.
    if (err instanceof TransactionCanceledException) {
      const current = await getKeyByHash(client, tableName, old.keyHash);
      if (!current) throw new KeyStoreError('not_found', `No key with id ${keyId}`);
      if (current.status !== 'active') throw refusalToRotate(current, now);
      throw new Error(`Key ${keyId} is being changed by another command at the same time; try again`, { cause: err });
    }
    throw err;
  }
  return {
    ...created,
    previous: {
      ...old,
      status: 'rotated',
      rotatedAt: iso(now),
      graceUntil,
      successorKeyId: created.record.keyId,
      ttl,
    },
  };
}

/** Revokes a key at once (active, in grace or expired); refuses an unknown or already revoked key. */
export async function revokeKey(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
  options: { now?: number } = {},
): Promise<KeyRecord> {
  const now = options.now ?? processClock();
  const record = await requireKey(client, tableName, keyId);
  const alreadyRevoked = () => new KeyStoreError('revoked', `Key ${keyId} is already revoked`);
  if (record.status === 'revoked') throw alreadyRevoked();
  const ttl = epochSeconds(now + RETENTION_AFTER_END_MS);
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { keyHash: record.keyHash },
        UpdateExpression: 'SET #status = :revoked, revokedAt = :now, #ttl = :ttl',
        ConditionExpression: 'attribute_exists(keyHash) AND #status <> :revoked',
        ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':revoked': 'revoked', ':now': iso(now), ':ttl': ttl },
      }),
    );
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) throw alreadyRevoked();
    throw err;
  }
  await bumpKeysVersion(client, tableName);
  return { ...record, status: 'revoked', revokedAt: iso(now), ttl };
}

/**
 * Sets a key's own rate limit, or with `undefined` removes it (the default applies again). Refuses an
 * unknown key; a revoked or expired key may still be changed (it has no effect). Bumps the keys
 * version: authorizers apply the new limit within about a second.
 */
export async function setKeyRateLimit(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
  limit: RateLimit | undefined,
): Promise<KeyRecord> {
  const record = await requireKey(client, tableName, keyId);
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { keyHash: record.keyHash },
        ...(limit
          ? { UpdateExpression: 'SET rateLimit = :limit', ExpressionAttributeValues: { ':limit': { rate: limit.rate, burst: limit.burst } } }
          : { UpdateExpression: 'REMOVE rateLimit' }),
        ConditionExpression: 'attribute_exists(keyHash)',
      }),
    );
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) throw new KeyStoreError('not_found', `No key with id ${keyId}`);
    throw err;
  }
  await bumpKeysVersion(client, tableName);
  const { rateLimit: _old, ...rest } = record;
  return limit ? { ...rest, rateLimit: limit } : rest;
}

/** Every key, without secrets or hashes, oldest first. */
export async function listKeys(
  client: DynamoDBDocumentClient,
  tableName: string,
  options: { now?: number } = {},
): Promise<PublicKeyRecord[]> {
  const now = options.now ?? processClock();
  const records: PublicKeyRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }));
    for (const item of out.Items ?? []) {
      // Only key items: the keys version (src/keys/version.ts) shares the table.
      if (typeof item.keyHash === 'string' && /^[0-9a-f]{64}$/.test(item.keyHash)) records.push(toPublicRecord(toKeyRecord(item), now));
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
}
