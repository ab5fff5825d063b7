import { beforeEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { createDocumentClient } from '../../../src/aws/dynamodb.js';
import { createAuthorizerHandler } from '../../../src/keys/authorizer-handler.js';
import { DEFAULT_VERSION_CHECK_MS, REVOCATION_BOUND_MS } from '../../../src/keys/authorizer.js';
import { generateKey } from '../../../src/keys/format.js';
import { KEYS_VERSION_HASH } from '../../../src/keys/version.js';
import { authorizerEvent } from '../../support/events.js';

/**
 * The revocation bound (docs/api-keys.md, "What the authorizer caches"), on an injected clock: a
 * key revoked with the commands (its item changed, the keys version bumped) is never verified
 * later than REVOCATION_BOUND_MS after the change, whether the keys version can be read or not;
 * and a key read that spans a revocation is answered but never cached.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = 'api-keys-test';
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const key = generateKey('test');
const item = {
  keyHash: sha256(key),
  keyId: 'key_RevokedRevoked0000',
  environment: 'test',
  scopes: ['empty_leg:read'],
  status: 'active',
  createdAt: new Date(T0 - 86_400_000).toISOString(),
};
const revokedItem = (at: number) => ({ ...item, status: 'revoked', revokedAt: new Date(at).toISOString() });

/** The table as the mock answers it: the key's item, the keys version, and whether reads fail. */
interface Table {
  record: Record<string, unknown>;
  version: number;
  versionReads: 'answer' | 'fail';
  keyReads: 'answer' | 'fail';
}
let table: Table;
let clock = T0;

const keyReads = () => ddb.commandCalls(GetCommand).filter((c) => c.args[0].input.Key?.keyHash !== KEYS_VERSION_HASH && !String(c.args[0].input.Key?.keyHash).startsWith('client#')).length;

function make() {
  return createAuthorizerHandler({
    client: createDocumentClient({ endpoint: 'http://127.0.0.1:9' }),
    tableName: TABLE,
    stage: 'sandbox',
    now: () => clock,
    // This file is about keys, not rate limits (test/handler/keys/authorizer.test.ts): every request is allowed.
    limiter: {
      check: (_keyId, limit) => Promise.resolve({ allowed: true, limit, remaining: limit.burst - 1, resetSeconds: 1, retryAfterSeconds: 0 }),
      flush: () => Promise.resolve(),
      shareOf: () => 1,
    },
  });
}

const unavailable = () => Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable', $fault: 'server' });

beforeEach(() => {
  ddb.reset();
  clock = T0;
  table = { record: item, version: 1, versionReads: 'answer', keyReads: 'answer' };
  ddb.on(UpdateCommand).resolves({ Attributes: { served: 1, refused: 0 } });
  ddb.on(GetCommand).callsFake((input: { Key: { keyHash: string } }) => {
    if (input.Key.keyHash === KEYS_VERSION_HASH) {
      if (table.versionReads === 'fail') throw unavailable();
      return { Item: { keyHash: KEYS_VERSION_HASH, v: table.version } };
    }
    if (table.keyReads === 'fail') throw unavailable();
    return input.Key.keyHash === item.keyHash ? { Item: table.record } : {};
  });
});

describe('the revocation bound', () => {
  it('is a single number, longer than the version check', () => {
    expect(REVOCATION_BOUND_MS).toBe(10_000);
    expect(REVOCATION_BOUND_MS).toBeGreaterThan(2 * DEFAULT_VERSION_CHECK_MS);
  });

  it('with the database answering, a revoked key is refused at the first request a version check after the revocation', async () => {
    const authorize = make();
    expect((await authorize(authorizerEvent(key))).context).toMatchObject({ verdict: 'ok' });
    clock = T0 + 300;
    table = { ...table, record: revokedItem(clock), version: 2 };
    clock = T0 + 900;
    expect((await authorize(authorizerEvent(key))).context).toMatchObject({ verdict: 'ok' }); // no version read yet
    clock = T0 + DEFAULT_VERSION_CHECK_MS;
    expect((await authorize(authorizerEvent(key))).context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_INVALID' });
  });

  it('holds whatever the keys version and the key reads do after the revocation (property)', async () => {
    // Requests at arbitrary instants; after the revocation, version reads and key reads fail or
    // answer at random. No request later than the bound after the revocation is verified.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 30_000 }),
        fc.array(fc.record({ gap: fc.integer({ min: 1, max: 4_000 }), version: fc.boolean(), read: fc.boolean() }), { minLength: 1, maxLength: 40 }),
        async (revokeAfter, requests) => {
          ddb.resetHistory();
          clock = T0;
          table = { record: item, version: 1, versionReads: 'answer', keyReads: 'answer' };
          const authorize = make();
          expect((await authorize(authorizerEvent(key))).context).toMatchObject({ verdict: 'ok' });
          let revokedAt: number | undefined;
          for (const r of requests) {
            clock += r.gap;
            if (revokedAt === undefined && clock >= T0 + revokeAfter) {
              revokedAt = T0 + revokeAfter;
              table = { ...table, record: revokedItem(revokedAt), version: 2 };
            }
            if (revokedAt !== undefined) {
              table = { ...table, versionReads: r.version ? 'answer' : 'fail', keyReads: r.read ? 'answer' : 'fail' };
            }
            const verdict = (await authorize(authorizerEvent(key))).context;
            if (revokedAt !== undefined && clock > revokedAt + REVOCATION_BOUND_MS) expect(verdict.verdict).toBe('error');
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('with the keys version unreadable, a cached key is served up to the bound after the last good version read, and not after', async () => {
    const authorize = make();
    expect((await authorize(authorizerEvent(key))).context).toMatchObject({ verdict: 'ok' });
    table.versionReads = 'fail';
    table.keyReads = 'fail';
    const reads = keyReads();
    clock = T0 + REVOCATION_BOUND_MS;
    expect((await authorize(authorizerEvent(key))).context).toMatchObject({ verdict: 'ok' });
    expect(keyReads()).toBe(reads);
    clock = T0 + REVOCATION_BOUND_MS + 1;
    expect((await authorize(authorizerEvent(key))).context).toMatchObject({ verdict: 'error', errorCode: 'SERVICE_UNAVAILABLE' });
    // The database back: read again and served.
    table.versionReads = 'answer';
    table.keyReads = 'answer';
    clock += DEFAULT_VERSION_CHECK_MS;
    expect((await authorize(authorizerEvent(key))).context).toMatchObject({ verdict: 'ok' });
  });

  it('each version read that finds the version unchanged carries the cached entry on', async () => {
    const authorize = make();
    await authorize(authorizerEvent(key));
    for (let t = 1; t <= 5 * REVOCATION_BOUND_MS; t += DEFAULT_VERSION_CHECK_MS) {
      clock = T0 + t;
      expect((await authorize(authorizerEvent(key))).context).toMatchObject({ verdict: 'ok' });
    }
    // One read a minute at most: the cache's own lifetime (60 s), not the bound.
    expect(keyReads()).toBeLessThanOrEqual(2);
  });
});

describe('a key read that spans a revocation', () => {
  it('is answered, but not cached: the next request reads the key again and refuses it', async () => {
    const authorize = make();
    // A first request learns the keys version (1) and verifies another key.
    await authorize(authorizerEvent(generateKey('test')));
    // The key's read is held in flight...
    let release: (() => void) | undefined;
    ddb.on(GetCommand, { Key: { keyHash: item.keyHash } }).callsFake(
      () => new Promise((resolve) => (release = () => resolve({ Item: item }))),
    );
    clock = T0 + 10;
    const spanning = authorize(authorizerEvent(key));
    await new Promise((r) => setImmediate(r));
    expect(release).toBeDefined();
    // ...while the key is revoked and another request reads the new keys version (2).
    table = { ...table, record: revokedItem(T0 + 20), version: 2 };
    clock = T0 + DEFAULT_VERSION_CHECK_MS + 20;
    await authorize(authorizerEvent(generateKey('test')));
    // The read answers with the item as it was before the revocation.
    release!();
    expect((await spanning).context).toMatchObject({ verdict: 'ok' });
    expect(authorize.authorizer.cacheSizes().keys).toBe(0);
    // It was not cached: the next request reads the key again and sees the revocation.
    ddb.on(GetCommand, { Key: { keyHash: item.keyHash } }).callsFake(() => ({ Item: table.record }));
    const before = keyReads();
    clock += 100;
    expect((await authorize(authorizerEvent(key))).context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_INVALID' });
    expect(keyReads()).toBe(before + 1);
  });
});
