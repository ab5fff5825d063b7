import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { createKey, revokeKey, rotateKey } from '../../../src/api-keys/store.js';
import { readClient, setApprovedScopes } from '../../../src/api-keys/clients.js';
import { createOwnKey, MAX_KEYS_PER_CLIENT, revokeOwnKey, rotateOwnKey, type Caller } from '../../../src/api-keys/manage.js';
import { KeyStoreError, type CreatedKey } from '../../../src/api-keys/rules.js';
import { HISTORY_PREFIX, KEYS_BY_CLIENT_INDEX } from '../../../src/tables.js';
import { createActiveClients } from '../../../src/watches/match/active-clients.js';
import { AppError } from '../../../src/errors.js';

/**
 * Key management's rules against a strongly read client item (issue 40, point 3): the cap counts keys
 * in grace, only an active key changes keys, a narrowed approval survives rotation, approve moves the
 * client's revision, names refuse control and bidi characters, history expires, and the client's
 * keyring says whether it has a working key.
 */
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const HOUR = 3_600_000;
const MANAGER = ['api_key:read', 'api_key:write', 'empty_leg:read'];

describe('managing keys through the API on DynamoDB Local', () => {
  let t: TestTables;
  beforeAll(async () => {
    t = await createTestTables();
  });
  afterAll(async () => t.drop());

  const deps = (at: number) => ({ client: t.client, tableName: t.keysTableName, clock: () => at });
  const callerOf = (k: CreatedKey): Caller => ({ keyId: k.record.keyId, clientId: k.record.clientId!, environment: k.record.environment, keyHash: sha256(k.key) });
  const manager = (scopes = MANAGER) => createKey(t.client, t.keysTableName, { environment: 'test', scopes, now: T0 });
  const refusal = async (p: Promise<unknown>): Promise<AppError> => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  };

  it('a key in its grace period cannot create, rotate or revoke a key (403 API_KEY_DEPRECATED); a revoked key gets 401 API_KEY_INVALID, though its verdict said ok', async () => {
    const old = await manager();
    const spare = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], clientId: old.record.clientId, now: T0 });
    const rotated = await rotateOwnKey(callerOf(old), old.record.keyId, { graceHours: 24 }, deps(T0 + 1));
    const inGrace = callerOf(old);
    const at = deps(T0 + HOUR);
    expect((await refusal(createOwnKey(inGrace, { scopes: ['empty_leg:read'] }, at))).code).toBe('API_KEY_DEPRECATED');
    expect((await refusal(rotateOwnKey(inGrace, spare.record.keyId, {}, at))).code).toBe('API_KEY_DEPRECATED');
    expect((await refusal(revokeOwnKey(inGrace, spare.record.keyId, at))).code).toBe('API_KEY_DEPRECATED');
    // Past its grace: expired.
    expect((await refusal(createOwnKey(inGrace, { scopes: ['empty_leg:read'] }, deps(T0 + 25 * HOUR)))).code).toBe('API_KEY_EXPIRED');
    // The successor is active and may; once revoked (by the command), it may not, at once.
    const next = { keyId: rotated.key.id, clientId: old.record.clientId!, environment: 'test' as const, keyHash: sha256(rotated.key.key) };
    const made = await createOwnKey(next, { name: 'reader', scopes: ['empty_leg:read'] }, at);
    expect(made.state).toBe('active');
    await revokeKey(t.client, t.keysTableName, next.keyId, { now: T0 + HOUR });
    const revoked = await refusal(createOwnKey(next, { scopes: ['empty_leg:read'] }, deps(T0 + HOUR + 1)));
    expect([revoked.code, revoked.status]).toEqual(['API_KEY_INVALID', 401]);
  });

  it(`61 chained rotations with graceHours 168 stop at the cap: ${MAX_KEYS_PER_CLIENT} keys authenticate, then 409 KEY_LIMIT_REACHED; a rotation with grace 0 still works`, async () => {
    let caller = callerOf(await manager());
    let done = 0;
    let refused: AppError | undefined;
    for (let i = 1; i <= 61 && refused === undefined; i++) {
      try {
        const r = await rotateOwnKey(caller, caller.keyId, { graceHours: 168 }, deps(T0 + i * 1000));
        caller = { ...caller, keyId: r.key.id, keyHash: sha256(r.key.key) };
        done++;
      } catch (err) {
        refused = err as AppError;
      }
    }
    // One active key and the rotated ones in grace: the cap counts them all.
    expect(done).toBe(MAX_KEYS_PER_CLIENT - 1);
    expect(refused).toBeInstanceOf(AppError);
    expect([refused!.code, refused!.status]).toEqual(['KEY_LIMIT_REACHED', 409]);
    expect(refused!.message).toMatch(/grace/);
    const state = await readClient(t.client, t.keysTableName, caller.clientId);
    expect(state.keyring!.test.active + Object.keys(state.keyring!.test.grace).length).toBe(MAX_KEYS_PER_CLIENT);
    // A create is refused as well, and a rotation that ends the old key at once is not.
    expect((await refusal(createOwnKey(caller, { scopes: ['empty_leg:read'] }, deps(T0 + 100_000)))).code).toBe('KEY_LIMIT_REACHED');
    const zero = await rotateOwnKey(caller, caller.keyId, { graceHours: 0 }, deps(T0 + 100_000));
    expect(zero.previous.state).toBe('expired');
  }, 120_000);

  it('a narrowed approval survives rotation: the removed scope is dropped and the answer says so (the API and the command)', async () => {
    const old = await manager(['api_key:write', 'empty_leg:read', 'watch:read']);
    const clientId = old.record.clientId!;
    await setApprovedScopes(t.client, t.keysTableName, clientId, ['api_key:write', 'empty_leg:read'], T0);
    const rotated = await rotateOwnKey(callerOf(old), old.record.keyId, {}, deps(T0 + 1));
    expect(rotated.key.scopes).toEqual(['api_key:write', 'empty_leg:read']);
    expect(rotated.droppedScopes).toEqual(['watch:read']);
    // Rotated again (the command): nothing more to drop, the scope stays away.
    const again = await rotateKey(t.client, t.keysTableName, rotated.key.id, { now: T0 + 2 });
    expect(again.record.scopes).toEqual(['api_key:write', 'empty_leg:read']);
    expect(again.droppedScopes).toEqual([]);
    // Approved for none of a key's scopes: the rotation is refused, nothing written.
    const reader = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['watch:read'], clientId, now: T0 });
    const next = { keyId: again.record.keyId, clientId, environment: 'test' as const, keyHash: sha256(again.key) };
    expect((await refusal(rotateOwnKey(next, reader.record.keyId, {}, deps(T0 + 3)))).code).toBe('PERMISSION_DENIED');
  });

  it('approve moves the client\'s revision: a create checked under the old approvals fails its transaction', async () => {
    const old = await manager();
    const clientId = old.record.clientId!;
    const before = (await readClient(t.client, t.keysTableName, clientId)).revision;
    await setApprovedScopes(t.client, t.keysTableName, clientId, ['api_key:write'], T0 + 1);
    expect((await readClient(t.client, t.keysTableName, clientId)).revision).toBe(before + 1);
    const late = createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], clientId, now: T0 + 2 }, { seenRevision: before });
    await expect(late).rejects.toThrow(KeyStoreError);
    await expect(late).rejects.toMatchObject({ reason: 'concurrent' });
  });

  it.each([
    ['a C1 control (NEL)', 'Partner\u0085A'],
    ['a C1 control (CSI)', 'Partner\u009bA'],
    ['a right-to-left override', 'Partner \u202eA'],
    ['a left-to-right isolate', 'Partner \u2066A\u2069'],
    ['a C0 control', 'Partner\u0007A'],
  ])('a name with %s is 400 INVALID_PARAMETER naming the field', async (_what, name) => {
    const old = await manager();
    const err = await refusal(createOwnKey(callerOf(old), { name, scopes: ['empty_leg:read'] }, deps(T0 + 1)));
    expect(err.code).toBe('INVALID_PARAMETER');
    expect(err.message).toContain("'name'");
  });

  it('history items expire a year after their change (ttl), and each change writes whether its client has a working key (keyedUntil)', async () => {
    const old = await manager();
    const clientId = old.record.clientId!;
    const history = await t.client.send(
      new QueryCommand({ TableName: t.keysTableName, IndexName: KEYS_BY_CLIENT_INDEX.indexName, KeyConditionExpression: 'clientId = :c', ExpressionAttributeValues: { ':c': HISTORY_PREFIX + clientId } }),
    );
    expect(history.Items!.map((i): unknown => i.ttl)).toEqual([Math.ceil((T0 + 365 * 24 * HOUR) / 1000)]);

    const keyedUntil = async (): Promise<unknown> => (await t.client.send(new GetCommand({ TableName: t.keysTableName, Key: { keyHash: `client#${clientId}` } }))).Item?.keyedUntil;
    expect(await keyedUntil()).toBe(Number.MAX_SAFE_INTEGER);
    const rotated = await rotateKey(t.client, t.keysTableName, old.record.keyId, { now: T0 + 1, graceMs: 2 * HOUR });
    await revokeKey(t.client, t.keysTableName, rotated.record.keyId, { now: T0 + 2 });
    // Only the old key in grace is left: the client has a key until its grace ends.
    expect(await keyedUntil()).toBe(T0 + 1 + 2 * HOUR);
    const clients = createActiveClients({ client: t.client, keysTableName: t.keysTableName, clock: () => T0 + 3, intervalMs: 0 });
    expect((await clients([clientId])).has(clientId, T0 + 3)).toBe(true);
    expect((await clients([clientId])).has(clientId, T0 + 1 + 2 * HOUR)).toBe(false);
    await revokeKey(t.client, t.keysTableName, old.record.keyId, { now: T0 + 4 });
    expect(await keyedUntil()).toBe(0);
    expect((await clients([clientId])).has(clientId, T0 + 5)).toBe(false);
  });
});
