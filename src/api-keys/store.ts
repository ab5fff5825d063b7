import { processClock } from '../clock.js';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  ScanCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { DEFAULT_GRACE_MS } from './grace.js';
import {
  bumpKeysVersion,
  clientIdOf,
  epochSeconds,
  getKeyByHash,
  getKeyById,
  iso,
  keyState,
  RETENTION_AFTER_END_MS,
  toKeyRecord,
  toPublicRecord,
  type KeyRecord,
  type PublicKeyRecord,
  type RateLimit,
} from '../keys/index.js';
import { KeyStoreError, newRecord, refusalToRotate, type CreatedKey, type NewKeyInput } from './rules.js';
import { BY_COMMAND, historyEntry } from './history.js';
import { clientBefore, writeChange, type ChangeOptions } from './change.js';

export type { ChangeOptions } from './change.js';

/** Key management's writes (the command, the /open/v1/api-keys routes): create, rotate, revoke, limit, list. */
/** Creates a key; returns the clear key (once) and what was stored (its hash only). */
export async function createKey(
  client: DynamoDBDocumentClient,
  tableName: string,
  input: NewKeyInput,
  options: ChangeOptions = {},
): Promise<CreatedKey> {
  if (input.scopes.length === 0) throw new Error('A key needs at least one scope');
  const now = input.now ?? processClock();
  const created = newRecord(input, now);
  const r = created.record;
  const entry = historyEntry('create', { ...r, clientId: clientIdOf(r) }, options.actor ?? BY_COMMAND, r.createdAt);
  const before = await clientBefore(client, tableName, clientIdOf(r), r.keyId, options, now, input.clientId === undefined);
  const put = { Put: { TableName: tableName, Item: r, ConditionExpression: 'attribute_not_exists(keyHash)' } };
  await writeChange(client, tableName, [put], entry, before, { action: 'create', environment: r.environment }, options);
  return created;
}

async function requireKey(client: DynamoDBDocumentClient, tableName: string, keyId: string): Promise<KeyRecord> {
  const record = await getKeyById(client, tableName, keyId);
  if (!record) throw new KeyStoreError('not_found', `No key with id ${keyId}`);
  return record;
}


export interface RotateOptions extends ChangeOptions {
  /** Grace of the old key in ms; default 7 days; 0 expires it at once. */
  graceMs?: number;
  now?: number;
}

export interface RotatedKey extends CreatedKey {
  previous: KeyRecord;
  /** The old key's scopes the client is no longer approved for: the new key does not hold them. */
  droppedScopes: string[];
}

/**
 * Rotates an active key: a new key with the same name and the scopes of the old one the client is
 * still approved for, and the old one `rotated` with `graceUntil = now + grace`. The new item and the
 * old item's change are one transaction whose condition is that the old key is still active, so of
 * two concurrent rotations exactly one wins.
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
  const before = await clientBefore(client, tableName, clientIdOf(old), old.keyId, options, now);
  const approved = before.state.approvedScopes;
  const scopes = approved === undefined ? old.scopes : old.scopes.filter((s) => approved.includes(s));
  const droppedScopes = old.scopes.filter((s) => !scopes.includes(s));
  if (scopes.length === 0) {
    throw new KeyStoreError('not_approved', `Key ${keyId}'s client is no longer approved for any of its scopes (${old.scopes.join(', ')}): revoke it, or ask the operator to approve them`);
  }

  const created = newRecord(
    { environment: old.environment, scopes, name: old.name, rateLimit: old.rateLimit, clientId: clientIdOf(old) },
    now,
    old.keyId,
  );
  const graceUntil = iso(now + graceMs);
  const ttl = epochSeconds(now + graceMs + RETENTION_AFTER_END_MS);
  const entry = historyEntry('rotate', { ...old, clientId: clientIdOf(old) }, options.actor ?? BY_COMMAND, iso(now), {
    successorKeyId: created.record.keyId,
    graceUntil,
  });
  try {
    await writeChange(
      client,
      tableName,
      [
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
      ],
      entry,
      before,
      { action: 'rotate', environment: old.environment, keyId: old.keyId, graceUntil },
      options,
    );
  } catch (err) {
    // The old key is no longer active (ConditionalCheckFailed) or another change is in flight:
    // either way this rotation wrote nothing.
    if (err instanceof KeyStoreError) {
      const current = await getKeyByHash(client, tableName, old.keyHash);
      if (!current) throw new KeyStoreError('not_found', `No key with id ${keyId}`);
      if (current.status !== 'active') throw refusalToRotate(current, now);
    }
    throw err;
  }
  return {
    ...created,
    droppedScopes,
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
  options: ChangeOptions & { now?: number } = {},
): Promise<KeyRecord> {
  const now = options.now ?? processClock();
  const record = await requireKey(client, tableName, keyId);
  const alreadyRevoked = () => new KeyStoreError('revoked', `Key ${keyId} is already revoked`);
  if (record.status === 'revoked') throw alreadyRevoked();
  const ttl = epochSeconds(now + RETENTION_AFTER_END_MS);
  const entry = historyEntry('revoke', { ...record, clientId: clientIdOf(record) }, options.actor ?? BY_COMMAND, iso(now));
  const update = {
    Update: {
      TableName: tableName,
      Key: { keyHash: record.keyHash },
      UpdateExpression: 'SET #status = :revoked, revokedAt = :now, #ttl = :ttl',
      ConditionExpression: 'attribute_exists(keyHash) AND #status <> :revoked',
      ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':revoked': 'revoked', ':now': iso(now), ':ttl': ttl },
    },
  };
  const before = await clientBefore(client, tableName, clientIdOf(record), record.keyId, options, now);
  try {
    await writeChange(client, tableName, [update], entry, before, { action: 'revoke', environment: record.environment, keyId: record.keyId, wasActive: keyState(record, now) === 'active' }, options);
  } catch (err) {
    if (err instanceof KeyStoreError && (await getKeyByHash(client, tableName, record.keyHash))?.status === 'revoked') throw alreadyRevoked();
    throw err;
  }
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
