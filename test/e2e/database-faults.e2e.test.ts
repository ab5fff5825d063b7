import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { createKey } from '../../src/api-keys/store.js';
import { DATABASE_DEADLINE_MS } from '../../src/time-budget.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';

/**
 * `npm start` with its DynamoDB Local frozen (SIGSTOP: connections are accepted, nothing answers),
 * thawed (SIGCONT), then killed. A key the authorizer verified within the revocation bound is
 * still verified (a request that reads nothing, a bad parameter, gets its 400 at once); a request
 * that needs the database gets 503 SERVICE_UNAVAILABLE in the envelope within 5 s, never a 500 or
 * a 401 and never a hang, whether the authorizer has the key cached or must read it; the service
 * answers 200 again as soon as the database is back. Every request has its own 15 s abort, so a
 * hang fails the test instead of stalling it.
 */
const WITHIN_MS = 5_000;

let server: RunningService;
let keys: { fresh: string; forKill: string };
let frozen = false;

async function get(key: string, query: string): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${server.baseUrl}/open/v1/empty-legs${query}`, {
    headers: { 'X-API-Key': key },
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, ms: performance.now() - started };
}

function expectUnavailable(r: { status: number; body: Record<string, unknown>; ms: number }): void {
  expect(r.status).toBe(503);
  expect(r.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', data: null });
  expect(r.body.traceId).toMatch(/^[0-9a-f-]{36}$/);
  expect(r.ms).toBeLessThan(WITHIN_MS);
}

beforeAll(async () => {
  server = await startLocalServer({ fewLegs: true, timeoutMs: 90_000 });
  const client = createDocumentClient({ endpoint: server.dynamodbEndpoint, region: 'local' });
  try {
    const make = async () =>
      (await createKey(client, server.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], name: 'fault test' })).key;
    keys = { fresh: await make(), forKill: await make() };
  } finally {
    client.destroy();
  }
}, 120_000);

afterAll(async () => {
  if (frozen) process.kill(server.dynamodbPid, 'SIGCONT');
  await server?.stop();
});

describe('npm start with its database stalled, back, and gone', () => {
  test('stalled: 503 within 5 s for a cached and an uncached good key; back: 200 again', async () => {
    // The authorizer caches the start key; a 400 reads no legs, so nothing of the listing is cached.
    expect((await get(server.apiKey, '?page=x')).status).toBe(400);

    process.kill(server.dynamodbPid, 'SIGSTOP');
    frozen = true;
    // The key verified a moment ago is served from the authorizer's cache: the 400 needs no read.
    const verified = await get(server.apiKey, '?page=y');
    expect(verified.status).toBe(400);
    expect(verified.body).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect(verified.ms).toBeLessThan(DATABASE_DEADLINE_MS.authorizer);
    const [cached, uncached] = await Promise.all([get(server.apiKey, '?size=1'), get(keys.fresh, '?size=1')]);
    expectUnavailable(cached);
    expectUnavailable(uncached);
    // Still stalled: the next requests are refused as fast, nothing piles up.
    expectUnavailable(await get(keys.fresh, '?depCityName=London'));

    process.kill(server.dynamodbPid, 'SIGCONT');
    frozen = false;
    const until = Date.now() + 10_000;
    let back = await get(keys.fresh, '?size=1');
    while (back.status !== 200 && Date.now() < until) back = await get(keys.fresh, '?size=1');
    expect(back.status).toBe(200);
    expect((await get(server.apiKey, '?size=2')).status).toBe(200);
  }, 60_000);

  test('gone (java killed): 503 at once for a good key the authorizer must read', async () => {
    process.kill(server.dynamodbPid, 'SIGKILL');
    const r = await get(keys.forKill, '?size=1');
    expectUnavailable(r);
    expect(r.ms).toBeLessThan(WITHIN_MS);
  }, 30_000);
});
