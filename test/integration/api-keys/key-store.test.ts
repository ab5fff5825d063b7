import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { getKeyByHash, getKeyById } from '../../../src/keys/store.js';
import { createKey, listKeys, revokeKey, rotateKey } from '../../../src/api-keys/store.js';
import { KeyStoreError } from '../../../src/api-keys/rules.js';
import { createKeyAuthorizer } from '../../../src/keys/authorizer.js';
import { rotateOwnKey } from '../../../src/api-keys/manage.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const DAY = 86_400_000;
const T0 = Date.parse('2026-03-01T12:00:00.000Z');

describe('key store on DynamoDB Local', () => {
  let t: TestTables;
  const clearKeys: string[] = [];
  const remember = <T extends { key: string }>(created: T): T => {
    clearKeys.push(created.key);
    return created;
  };

  beforeAll(async () => {
    t = await createTestTables();
  });
  afterAll(async () => t.drop());

  async function scanAll(): Promise<Record<string, unknown>[]> {
    const out = await t.client.send(new ScanCommand({ TableName: t.keysTableName, ConsistentRead: true }));
    // Key items only: the keys version (keyHash `~version`, src/keys/version.ts) shares the table.
    return (out.Items ?? []).filter((i) => i.keyHash !== '~version');
  }
  /** The key items: the table also holds each client's approved scopes and the history (src/api-keys/). */
  const keyItems = async () => (await scanAll()).filter((i) => typeof i.keyId === 'string');

  it('creates a key, stores only its hash, and finds it by hash and by id', async () => {
    const created = remember(
      await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], name: 'partner A', now: T0 }),
    );
    expect(created.key).toMatch(/^elk_test_[0-9A-Za-z]{38}$/);
    expect(created.record.keyId).toMatch(/^key_[0-9A-Za-z]{20}$/);

    const byHash = await getKeyByHash(t.client, t.keysTableName, sha256(created.key));
    expect(byHash).toEqual({
      keyHash: sha256(created.key),
      keyId: created.record.keyId,
      // A new client of its own (no --client).
      clientId: expect.stringMatching(/^cli_[0-9A-Za-z]{20}$/),
      name: 'partner A',
      environment: 'test',
      scopes: ['empty_leg:read'],
      status: 'active',
      createdAt: new Date(T0).toISOString(),
    });
    expect(await getKeyById(t.client, t.keysTableName, created.record.keyId)).toEqual(byHash);
    expect(await getKeyByHash(t.client, t.keysTableName, sha256('elk_test_nothing'))).toBeUndefined();
    expect(await getKeyById(t.client, t.keysTableName, 'key_00000000000000000000')).toBeUndefined();
    expect(await getKeyById(t.client, t.keysTableName, 'not-an-id')).toBeUndefined();
  });

  it('rotates with the default grace of 7 days: same name and scopes, old key in grace with ttl', async () => {
    const old = remember(
      await createKey(t.client, t.keysTableName, { environment: 'live', scopes: ['a:read', 'empty_leg:read'], name: 'B', now: T0 }),
    );
    const now = T0 + 1000;
    const rotated = remember(await rotateKey(t.client, t.keysTableName, old.record.keyId, { now }));
    expect(rotated.key).toMatch(/^elk_live_/);
    expect(rotated.key).not.toBe(old.key);
    expect(rotated.record.keyId).not.toBe(old.record.keyId);

    const fresh = await getKeyByHash(t.client, t.keysTableName, sha256(rotated.key));
    expect(fresh).toMatchObject({
      keyId: rotated.record.keyId,
      name: 'B',
      environment: 'live',
      scopes: ['a:read', 'empty_leg:read'],
      status: 'active',
      predecessorKeyId: old.record.keyId,
    });
    expect(fresh?.ttl).toBeUndefined();

    const previous = await getKeyByHash(t.client, t.keysTableName, sha256(old.key));
    const graceUntil = now + 7 * DAY;
    expect(previous).toMatchObject({
      status: 'rotated',
      rotatedAt: new Date(now).toISOString(),
      graceUntil: new Date(graceUntil).toISOString(),
      successorKeyId: rotated.record.keyId,
    });
    // Removed by DynamoDB TTL 30 days after the grace ends.
    expect(previous?.ttl).toBe(Math.ceil((graceUntil + 30 * DAY) / 1000));
  });

  it('rotates with zero grace: the old key is expired at once', async () => {
    const old = remember(await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], now: T0 }));
    const rotated = remember(await rotateKey(t.client, t.keysTableName, old.record.keyId, { graceMs: 0, now: T0 }));
    const previous = await getKeyByHash(t.client, t.keysTableName, sha256(old.key));
    expect(previous?.graceUntil).toBe(new Date(T0).toISOString());
    expect(previous?.ttl).toBe(Math.ceil((T0 + 30 * DAY) / 1000));

    const authorizer = createKeyAuthorizer({
      stage: 'sandbox',
      now: () => T0,
      lookup: (h) => getKeyByHash(t.client, t.keysTableName, h),
    });
    expect(await authorizer.authorize(old.key)).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_EXPIRED' });
    expect(await authorizer.authorize(rotated.key)).toMatchObject({ verdict: 'ok', deprecated: false });
  });

  it('a rotation through the API with graceHours: the old key works, deprecated, until the grace ends on the clock, then is refused', async () => {
    const HOUR = 3_600_000;
    const old = remember(await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read', 'api_key:write'], now: T0 }));
    const caller = { keyId: old.record.keyId, clientId: old.record.clientId!, environment: 'test' as const, keyHash: sha256(old.key) };
    const rotated = await rotateOwnKey(caller, old.record.keyId, { graceHours: 2 }, { client: t.client, tableName: t.keysTableName, clock: () => T0 });
    remember(rotated.key);
    expect(rotated.previous).toMatchObject({ state: 'in_grace', sunsetAt: new Date(T0 + 2 * HOUR).toISOString() });
    // A fresh authorizer at each instant: no cache carries a verdict from one to the next.
    const at = (ms: number) => createKeyAuthorizer({ stage: 'sandbox', now: () => ms, lookup: (h) => getKeyByHash(t.client, t.keysTableName, h) });
    expect(await at(T0 + 2 * HOUR - 1_000).authorize(old.key)).toMatchObject({ verdict: 'ok', deprecated: true });
    expect(await at(T0 + 2 * HOUR + 1_000).authorize(old.key)).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_EXPIRED' });
    expect(await at(T0 + 2 * HOUR + 1_000).authorize(rotated.key.key)).toMatchObject({ verdict: 'ok', deprecated: false });
  });

  it('refuses to rotate a key twice, and an unknown key', async () => {
    const old = remember(await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], now: T0 }));
    remember(await rotateKey(t.client, t.keysTableName, old.record.keyId, { now: T0 }));
    await expect(rotateKey(t.client, t.keysTableName, old.record.keyId, { now: T0 + 1 })).rejects.toMatchObject({
      name: 'KeyStoreError',
      reason: 'already_rotated',
      message: expect.stringMatching(/already rotated.*grace/),
    });
    // Also after the grace has ended.
    await expect(rotateKey(t.client, t.keysTableName, old.record.keyId, { now: T0 + 8 * DAY })).rejects.toMatchObject({
      reason: 'already_rotated',
    });
    await expect(rotateKey(t.client, t.keysTableName, 'key_00000000000000000000')).rejects.toMatchObject({
      reason: 'not_found',
      message: 'No key with id key_00000000000000000000',
    });
  });

  it('lets exactly one of three concurrent rotations win', async () => {
    const old = remember(await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], now: T0 }));
    const before = (await keyItems()).length;
    const results = await Promise.allSettled([
      rotateKey(t.client, t.keysTableName, old.record.keyId, { now: T0 }),
      rotateKey(t.client, t.keysTableName, old.record.keyId, { now: T0 }),
      rotateKey(t.client, t.keysTableName, old.record.keyId, { now: T0 }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    for (const r of lost) {
      // Refused because the key is no longer active, or (rarely) because the transactions collided.
      expect(r.reason).toBeInstanceOf(Error);
      expect(String(r.reason)).toMatch(/already rotated|at the same time/);
    }
    for (const r of won) remember(r.value);
    // Only the winner's new key was written.
    expect((await keyItems()).length).toBe(before + 1);
  });

  it('revokes at once (ttl set), refuses to revoke twice or rotate a revoked key', async () => {
    const created = remember(await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], now: T0 }));
    const now = T0 + 5000;
    await revokeKey(t.client, t.keysTableName, created.record.keyId, { now });
    const stored = await getKeyByHash(t.client, t.keysTableName, sha256(created.key));
    expect(stored).toMatchObject({ status: 'revoked', revokedAt: new Date(now).toISOString() });
    expect(stored?.ttl).toBe(Math.ceil((now + 30 * DAY) / 1000));
    await expect(revokeKey(t.client, t.keysTableName, created.record.keyId)).rejects.toMatchObject({ reason: 'revoked' });
    await expect(rotateKey(t.client, t.keysTableName, created.record.keyId)).rejects.toMatchObject({
      reason: 'revoked',
      message: expect.stringMatching(/revoked/),
    });
    await expect(revokeKey(t.client, t.keysTableName, 'key_00000000000000000000')).rejects.toBeInstanceOf(KeyStoreError);
    await expect(revokeKey(t.client, t.keysTableName, 'key_00000000000000000000')).rejects.toMatchObject({ reason: 'not_found' });
  });

  it('revokes a key in grace', async () => {
    const old = remember(await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], now: T0 }));
    remember(await rotateKey(t.client, t.keysTableName, old.record.keyId, { now: T0 }));
    await revokeKey(t.client, t.keysTableName, old.record.keyId, { now: T0 + 1 });
    expect(await getKeyByHash(t.client, t.keysTableName, sha256(old.key))).toMatchObject({ status: 'revoked' });
  });

  it('lists every key with its state, without secrets or hashes', async () => {
    const items = await keyItems();
    const list = await listKeys(t.client, t.keysTableName, { now: T0 + 2000 });
    expect(list).toHaveLength(items.length);
    expect(new Set(list.map((k) => k.keyId))).toEqual(new Set(items.map((i) => i.keyId)));
    const states = new Set(list.map((k) => k.status));
    expect(states).toEqual(new Set(['active', 'rotated', 'expired', 'revoked']));
    const text = JSON.stringify(list);
    expect(text).not.toMatch(/keyHash|"ttl"/);
    for (const item of items) expect(text).not.toContain(String(item.keyHash));
    for (const key of clearKeys) expect(text).not.toContain(key);
    const sorted = [...list].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
    expect(list).toEqual(sorted);
  });

  it('stores no clear key anywhere in the table', async () => {
    const items = await scanAll();
    expect(items.length).toBeGreaterThan(0);
    expect(clearKeys.length).toBeGreaterThan(5);
    const values: string[] = [];
    const walk = (v: unknown): void => {
      if (typeof v === 'string') values.push(v);
      else if (typeof v === 'number') values.push(String(v));
      else if (v instanceof Set || Array.isArray(v)) for (const x of v) walk(x);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          values.push(k);
          walk(x);
        }
      }
    };
    for (const item of items) walk(item);
    const haystack = values.join('\n');
    for (const key of clearKeys) {
      expect(haystack).not.toContain(key);
      expect(haystack).not.toContain(key.slice(9, 41)); // the random part
      expect(haystack).not.toContain(key.slice(9, 25)); // half of it
    }
    // Each key is there, as its hash.
    const hashes = new Set(items.map((i) => i.keyHash));
    for (const key of clearKeys) expect(hashes.has(sha256(key))).toBe(true);
  });
});
