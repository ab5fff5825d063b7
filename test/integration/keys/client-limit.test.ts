// @dateIndependent: fixed instants only; the clock is injected into the authorizers
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { createKeyAuthorizer, REVOCATION_BOUND_MS } from '../../../src/keys/authorizer.js';
import { createRateLimiter } from '../../../src/keys/limits/limiter.js';
import { addUsage, reserveUsage } from '../../../src/keys/limits/usage.js';
import { createClientCheck } from '../../../src/keys/limits/client-check.js';
import { getKeyByHash } from '../../../src/keys/store.js';
import { readKeysVersion } from '../../../src/keys/version.js';
import { createKey } from '../../../src/api-keys/store.js';
import { clientIdOf } from '../../../src/keys/format.js';
import { DEFAULT_CLIENT_RATE_LIMIT, readClientRateLimit, setClientRateLimit } from '../../../src/keys/limits/client-limit.js';

/**
 * The per-client limit on DynamoDB Local (docs/api.md, "Rate limits"): every key of a client draws
 * from one client bucket, across the authorizer's containers; another client is not affected.
 */
jest.setTimeout(300_000);
const T0 = Date.parse('2026-03-10T12:00:00.000Z');
const withKey = (key: string) => ({ key });
type Context = Record<string, string | boolean | undefined>;

/** Requests at one instant of the injected clock, 10 in flight at a time (DynamoDB Local on a busy machine). */
async function inWaves<T>(requests: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < requests.length; i += 10) out.push(...(await Promise.all(requests.slice(i, i + 10).map((r) => r()))));
  return out;
}

describe('a client with 30 keys', () => {
  let t: TestTables;
  let now = T0;
  /**
   * Three authorizer containers composed as createAuthorizerHandler composes them (src/keys/authorizer-handler.ts),
   * without its deadlines: this machine's DynamoDB Local may take seconds under load, which the deadlines would
   * answer SERVICE_UNAVAILABLE (or fail open) rather than exercise the limit.
   */
  const containers = () =>
    Array.from({ length: 3 }, () => {
      const limiter = () =>
        createRateLimiter({
          now: () => now,
          counter: (id, day, add) => addUsage(t.client, t.keysTableName, id, day, add),
          reserve: (id, day, add, pool) => reserveUsage(t.client, t.keysTableName, id, day, add, pool),
        });
      const authorizer = createKeyAuthorizer({
        stage: 'sandbox',
        now: () => now,
        lookup: (hash) => getKeyByHash(t.client, t.keysTableName, hash),
        keysVersion: () => readKeysVersion(t.client, t.keysTableName),
        limiter: limiter(),
        clientCheck: createClientCheck({ limiter: limiter(), read: (id) => readClientRateLimit(t.client, t.keysTableName, id), now: () => now, ttlMs: REVOCATION_BOUND_MS, maxEntries: 100 }),
      });
      return (event: { key: string }) => authorizer.authorize(event.key).then((context) => ({ context }));
    });
  let keysOfA: string[] = [];
  let keyOfB = '';
  let clientA = '';

  beforeAll(async () => {
    t = await createTestTables();
    const first = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'] });
    clientA = clientIdOf(first.record);
    keysOfA = [first.key];
    for (let i = 1; i < 30; i++) keysOfA.push((await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], clientId: clientA })).key);
    keyOfB = (await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'] })).key;
  });
  afterAll(async () => t.drop());

  it('cannot pass its own limit sending on every key at once, across containers; another client is served whole', async () => {
    const authorizers = containers();
    // Each key sends 3 requests at one instant (within its own burst of 20): 90 in all, over three containers.
    const verdicts = (await inWaves(keysOfA.flatMap((key, i) => [0, 1, 2].map((j) => () => authorizers[(i + j) % 3]!(withKey(key)))))).map((r) => r.context as unknown as Context);
    const served = verdicts.filter((c) => c.verdict === 'ok').length;
    expect(served).toBeLessThanOrEqual(DEFAULT_CLIENT_RATE_LIMIT.burst);
    expect(served).toBeGreaterThan(0);
    const refused = verdicts.filter((c) => c.verdict !== 'ok');
    expect(refused.length).toBe(90 - served);
    for (const c of refused) {
      expect(c).toMatchObject({ verdict: 'error', errorCode: 'RATE_LIMITED', rateLimitPolicy: `"per-client";q=${DEFAULT_CLIENT_RATE_LIMIT.burst};w=2`, rateLimit: expect.stringMatching(/^"per-client";r=0;t=\d+$/) });
      expect(Number(c.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(String(c.message)).toContain('all its API keys together');
    }
    // Another client at the same instant, on the same containers: its whole key burst.
    const other = await Promise.all(Array.from({ length: 20 }, (_, i) => authorizers[i % 3]!(withKey(keyOfB))));
    expect(other.map((r) => (r.context as unknown as Context).verdict)).toEqual(Array(20).fill('ok'));
  });

  it('sustained for 30 s, is served at most its rate (20/s) however many keys send', async () => {
    const authorizers = containers();
    now = T0 + 3_600_000;
    let served = 0;
    // 30 s: every 100 ms, 10 of its keys send once (100 requests/s, five times the client's rate; 3.3/s per key, within each key's own).
    for (let step = 0; step < 300; step++) {
      now = T0 + 3_600_000 + step * 100;
      const batch = Array.from({ length: 10 }, (_, i) => authorizers[(step + i) % 3]!(withKey(keysOfA[(step * 10 + i) % 30]!)));
      served += (await Promise.all(batch)).filter((r) => (r.context as unknown as Context).verdict === 'ok').length;
    }
    // One token bucket of the client's limit: 40 + 30 x 20 = 640; the limiter's promise is within 25 % in any 10 s.
    console.log(`client limit, 30 s at five times the rate over 30 keys and 3 containers: ${served} served`);
    expect(served).toBeLessThanOrEqual(Math.ceil((DEFAULT_CLIENT_RATE_LIMIT.burst + 30 * DEFAULT_CLIENT_RATE_LIMIT.rate) * 1.25));
    expect(served).toBeGreaterThan(30 * DEFAULT_CLIENT_RATE_LIMIT.rate * 0.8);
  });

  it("follows the client's own limit, set by the operator, within the revocation bound", async () => {
    await setClientRateLimit(t.client, t.keysTableName, clientA, { rate: 100, burst: 200 });
    expect(await readClientRateLimit(t.client, t.keysTableName, clientA)).toEqual({ rate: 100, burst: 200 });
    const authorizers = containers();
    now = T0 + 7_200_000;
    const verdicts = await inWaves(keysOfA.flatMap((key, i) => [0, 1, 2].map((j) => () => authorizers[(i + j) % 3]!(withKey(key)))));
    // 90 requests, each key within its own burst: all under the client's burst of 200.
    expect(verdicts.filter((r) => (r.context as unknown as Context).verdict === 'ok')).toHaveLength(90);
    await setClientRateLimit(t.client, t.keysTableName, clientA, undefined);
    expect(await readClientRateLimit(t.client, t.keysTableName, clientA)).toBeUndefined();
  });
});
