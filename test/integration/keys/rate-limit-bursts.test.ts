import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { DEFAULT_RATE_LIMIT_SIM, runRateLimitSim, type ScenarioFigures } from '../../../bench/rate-limit.js';
import { RATE_LIMIT_MAX_DEVIATION, RATE_LIMIT_MAX_WINDOW_DEVIATION } from '../../../bench/targets.js';
import { poolCostMs } from '../../../src/keys/limits/bucket.js';
import { addUsage, reserveUsage, usageItemKey } from '../../../src/keys/limits/usage.js';

/**
 * Limits that hold in bursts (docs/api.md, "Rate limits"): the benchmark's simulation
 * (bench/rate-limit.ts, simulated time) with the limiters writing to DynamoDB Local, and the shared
 * bucket's conditional writes themselves (src/keys/limits/usage.ts).
 */
const limit = DEFAULT_RATE_LIMIT_SIM.limit;

function expectWithinTargets(figures: ScenarioFigures): void {
  // At most 25 % over what one token bucket serves in 10 s (burst + 10 x rate), in any 10 s.
  expect(figures.windowLimit).toBe(limit.burst + 10 * limit.rate);
  expect(figures.worstWindow.served).toBeLessThanOrEqual(figures.windowLimit * (1 + RATE_LIMIT_MAX_WINDOW_DEVIATION));
  // The whole run within 10 % of one token bucket on the same arrivals.
  expect(Math.abs(figures.served / figures.reference - 1)).toBeLessThanOrEqual(RATE_LIMIT_MAX_DEVIATION);
}

describe('rate limits in bursts, on DynamoDB Local', () => {
  let t: TestTables;
  beforeAll(async () => {
    t = await createTestTables();
  });
  afterAll(async () => t.drop());

  it('20 new containers at 20 times the limit: the worst 10 s window and the long run hold', async () => {
    const r = await runRateLimitSim({ client: t.client, keysTableName: t.keysTableName, only: ['coldStart'] });
    expect(r.coldStart.requests).toBeGreaterThan(20 * limit.rate * r.options.coldSeconds * 0.9);
    expectWithinTargets(r.coldStart);
  }, 120_000);

  it('pulses of 5 s and pauses of 10 s: every window and the long run hold; a burst after a pause is served whole', async () => {
    const r = await runRateLimitSim({ client: t.client, keysTableName: t.keysTableName, only: ['pulses', 'bursts'] });
    expectWithinTargets(r.pulses);
    expect(r.bursts).toEqual({ sent: limit.burst * r.options.bursts, refused: 0 });
  }, 120_000);

  it('reserves a burst from the shared bucket, then refuses and writes nothing; refills with time; one write unit a reservation', async () => {
    const keyId = 'key_PoolPoolPoolPool001';
    const day = '2026-06-01';
    const now = Date.parse('2026-06-01T10:00:00.000Z');
    const small = { rate: 2, burst: 3 };
    const pool = { now, costMs: poolCostMs(small), capacityMs: small.burst * poolCostMs(small), quietMs: 10_000 };
    let units = 0;
    const reserve = (at: number, add = { served: 1, refused: 0 }, tat?: number) =>
      reserveUsage(t.client, t.keysTableName, keyId, day, add, { ...pool, now: at, ...(tat !== undefined ? { tat } : {}) }, (u) => (units += u));
    // A new container knows no tat: it tries the form of a bucket in use, then the full one.
    const first = await reserve(now);
    expect(first).toEqual({ granted: true, busy: false, totals: { served: 1, refused: 0 }, tat: now + 500, servedSinceFull: 1, fullAt: now });
    expect(units).toBe(2);
    units = 0;
    // Served counts written with a reservation that are not its own request (here 4 of them) do not count as the bucket's.
    expect(await reserve(now, { served: 5, refused: 2 }, first.tat)).toMatchObject({ granted: true, totals: { served: 6, refused: 2 }, tat: now + 1000, servedSinceFull: 2 });
    expect(await reserve(now, undefined, now + 1000)).toMatchObject({ granted: true, tat: now + 1500, servedSinceFull: 3 });
    expect(units).toBe(2);
    const refused = await reserve(now, { served: 1, refused: 9 }, now + 1500);
    expect(refused).toEqual({ granted: false, busy: false, totals: { served: 7, refused: 2 }, tat: now + 1500, servedSinceFull: 3, fullAt: now });
    // Half a second later one request's worth is back; after 1.5 s more the bucket is full again and starts afresh.
    expect(await reserve(now + 500, undefined, now + 1500)).toMatchObject({ granted: true, tat: now + 2000 });
    expect(await reserve(now + 2001, undefined, now + 2000)).toEqual({ granted: true, busy: false, totals: { served: 9, refused: 2 }, tat: now + 2501, servedSinceFull: 1, fullAt: now + 2001 });
    const item = await t.client.send(new GetCommand({ TableName: t.keysTableName, Key: { keyHash: usageItemKey(keyId, day) } }));
    expect(item.Item).toMatchObject({ served: 9, refused: 2, tat: now + 2501, poolFrom: now + 2001, poolBase: 8 });
    expect(item.Item?.keyId).toBeUndefined();
    // A container refused the key a request from its own bucket (the key is over its limit): no
    // reservation for quietMs after that refusal, the bucket full or not.
    await addUsage(t.client, t.keysTableName, keyId, day, { served: 0, refused: 1, busyAt: now + 5000 });
    expect(await reserve(now + 14_999)).toMatchObject({ granted: false, busy: true, totals: { served: 9, refused: 3 } });
    expect(await reserve(now + 15_000)).toMatchObject({ granted: true, busy: false, totals: { served: 10, refused: 3 } });
  });
});
