import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { createRateLimiter } from '../../../../src/keys/limits/limiter.js';
import { MIN_SHARE, shareOf, utcDay } from '../../../../src/keys/limits/bucket.js';
import { memoryUsage } from '../../../support/usage-memory.js';
import { mulberry32 } from '../../../../local/demo/generator.js';
import { DEFAULT_RATE_LIMIT_SIM, referenceBucket, runRateLimitSim, worstWindow } from '../../../../bench/rate-limit.js';
import { parseBurst, parseRate, policyWindowSeconds, rateLimitField, rateLimitPolicyField, type RateLimit } from '../../../../src/keys/limits/rate-limit.js';
import { fcParams } from '../../../support/fast-check.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const limitArb = fc.record({ rate: fc.integer({ min: 1, max: 50 }), burst: fc.integer({ min: 1, max: 60 }) });

/**
 * The reference token bucket (GCRA, as ITU-T I.371 states it): a request at t conforms when the
 * theoretical arrival time is at most (burst - 1) / rate ahead of t. Kept a hair stricter than the
 * limiter so that floating-point ties never decide a case.
 */
function conforming(times: readonly number[], limit: RateLimit): number[] {
  const increment = 1000 / limit.rate;
  const tolerance = (limit.burst - 1) * increment - 1e-6;
  let tat = Number.NEGATIVE_INFINITY;
  const kept: number[] = [];
  for (const t of times) {
    if (tat - t <= tolerance) {
      tat = Math.max(tat, t) + increment;
      kept.push(t);
    }
  }
  return kept;
}

describe('rate limit fields and settings', () => {
  it('writes RateLimit-Policy and RateLimit as draft-ietf-httpapi-ratelimit-headers-11 items', () => {
    expect(rateLimitPolicyField({ rate: 10, burst: 20 })).toBe('"per-key";q=20;w=2');
    expect(rateLimitPolicyField({ rate: 3, burst: 10 })).toBe('"per-key";q=10;w=4'); // q / w never above the rate
    expect(rateLimitPolicyField({ rate: 50, burst: 5 })).toBe('"per-key";q=5;w=1');
    expect(rateLimitField(7.9, 0.2)).toBe('"per-key";r=7;t=1');
    expect(rateLimitField(-1, 0)).toBe('"per-key";r=0;t=0');
  });

  it('reads --rate and --burst, naming the flag when a value is bad', () => {
    expect(parseRate('2.5')).toBe(2.5);
    expect(parseBurst('40')).toBe(40);
    for (const bad of ['0', '0.05', '1001', 'abc', '1e3', '1.234', '-1']) expect(() => parseRate(bad)).toThrow(/--rate/);
    for (const bad of ['0', '10001', '2.5', 'x']) expect(() => parseBurst(bad)).toThrow(/--burst/);
  });

  it('bounds the share to MIN_SHARE..1 and says nothing of an interval without growth', () => {
    expect(shareOf(5, 20)).toBe(0.25);
    expect(shareOf(0, 20)).toBe(MIN_SHARE);
    expect(shareOf(5, 0)).toBeUndefined();
    expect(shareOf(5, 4)).toBeUndefined();
  });
});

describe('rate limiter, one container', () => {
  it('serves the burst at once, refuses the next with Retry-After, then serves the rate', async () => {
    let now = T0;
    const limiter = createRateLimiter({ ...memoryUsage(), now: () => now });
    const limit = { rate: 2, burst: 4 };
    const first = await limiter.check('key_a', limit);
    expect(first).toEqual({ allowed: true, limit, remaining: 3, resetSeconds: 1, retryAfterSeconds: 0 });
    for (let i = 0; i < 3; i++) expect((await limiter.check('key_a', limit)).allowed).toBe(true);
    const refused = await limiter.check('key_a', limit);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    now += 500; // half a second at 2/s: one request's worth
    expect((await limiter.check('key_a', limit)).allowed).toBe(true);
    expect((await limiter.check('key_a', limit)).allowed).toBe(false);
    expect((await limiter.check('key_b', limit)).allowed).toBe(true); // another key is not affected
  });

  it('never serves more than burst + rate x elapsed in any interval (any arrivals)', async () => {
    await fc.assert(
      fc.asyncProperty(limitArb, fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 150 }), async (limit, gaps) => {
        let now = T0;
        const limiter = createRateLimiter({ ...memoryUsage(), now: () => now });
        const served: number[] = [];
        for (const gap of gaps) {
          now += gap;
          if ((await limiter.check('key_p', limit)).allowed) served.push(now);
        }
        for (let i = 0; i < served.length; i++) {
          for (let j = i; j < served.length; j++) {
            expect(j - i + 1).toBeLessThanOrEqual(limit.burst + (limit.rate * (served[j]! - served[i]!)) / 1000 + 1e-9);
          }
        }
      }),
      fcParams(100),
    );
  });

  it('serves every request of traffic that conforms to the limit (a reference token bucket)', async () => {
    await fc.assert(
      fc.asyncProperty(limitArb, fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 150 }), async (limit, gaps) => {
        let t = T0;
        const arrivals = gaps.map((g) => (t += g));
        let now = T0;
        const limiter = createRateLimiter({ ...memoryUsage(), now: () => now });
        for (const at of conforming(arrivals, limit)) {
          now = at;
          expect((await limiter.check('key_p', limit)).allowed).toBe(true);
        }
      }),
      fcParams(100),
    );
  });
});

describe('rate limiter, many containers on one counter', () => {
  it('learns each container its share of the traffic and serves the rate in total', async () => {
    let now = T0;
    const counter = memoryUsage();
    const limit = { rate: 10, burst: 20 };
    const containers = [createRateLimiter({ ...counter, now: () => now }), createRateLimiter({ ...counter, now: () => now })];
    let served = 0;
    // 90 s: container 0 gets 30 requests/s, container 1 gets 10/s (four times the limit in all).
    for (let ms = 0; ms < 90_000; ms += 25) {
      now = T0 + ms;
      const target = ms % 100 === 0 ? containers[1]! : containers[0]!;
      const d = await target.check('key_m', limit);
      if (d.allowed && ms >= 30_000) served++;
    }
    expect(containers[0]!.shareOf('key_m')).toBeCloseTo(0.75, 1);
    expect(containers[1]!.shareOf('key_m')).toBeCloseTo(0.25, 1);
    expect(served / 60).toBeGreaterThan(limit.rate * 0.9);
    expect(served / 60).toBeLessThan(limit.rate * 1.1);
    // One write per container per 10 s at most, and the start: the shared bucket's burst, a
    // reservation each, and one refused reservation per container.
    expect(counter.writes).toBeLessThanOrEqual(2 * (90 / 10 + 1) + limit.burst + 2);
  });

  it('never refuses a burst within the limit after a pause, however the burst is spread and whatever came before', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ rate: fc.integer({ min: 1, max: 8 }), burst: fc.integer({ min: 1, max: 60 }) }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.nat(), { minLength: 500, maxLength: 800 }),
        fc.oneof(fc.nat().map((one) => (_i: number) => one), fc.array(fc.nat(), { minLength: 60, maxLength: 60 }).map((a) => (i: number) => a[i]!)),
        async (limit, n, warmTargets, burstTarget) => {
          let now = T0;
          const counter = memoryUsage();
          const containers = Array.from({ length: n }, () => createRateLimiter({ ...counter, now: () => now }));
          // 25-40 s of traffic above the limit: the containers learn their shares and empty their buckets.
          for (const target of warmTargets) {
            now += 50;
            await containers[target % n]!.check('key_b', limit);
          }
          now += Math.max(10_000, policyWindowSeconds(limit) * 1000); // the pause
          // The burst, all on one container or spread at random.
          for (let i = 0; i < limit.burst; i++) {
            expect((await containers[burstTarget(i) % n]!.check('key_b', limit)).allowed).toBe(true);
          }
        },
      ),
      fcParams(40),
    );
  });

  it('keeps serving when the counter fails (fail open), on its last share, and writes the counts it kept once it can', async () => {
    let now = T0;
    const counter = memoryUsage();
    let down = false;
    const errors: string[] = [];
    const limiter = createRateLimiter({
      counter: (keyId, day, add) => (down ? Promise.reject(new Error('unavailable')) : counter.counter(keyId, day, add)),
      reserve: (keyId, day, add, pool) => (down ? Promise.reject(new Error('unavailable')) : counter.reserve(keyId, day, add, pool)),
      now: () => now,
      onSyncError: (keyId) => errors.push(keyId),
    });
    const limit = { rate: 5, burst: 5 };
    await limiter.check('key_f', limit);
    down = true;
    let served = 1;
    let refused = 0;
    for (let ms = 100; ms <= 30_000; ms += 100) {
      now = T0 + ms;
      const d = await limiter.check('key_f', limit);
      if (d.allowed) served++;
      else refused++;
    }
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(served).toBeGreaterThan(5 * 30 * 0.9); // still its whole share (1): the rate, not nothing
    expect(served).toBeLessThanOrEqual(5 + 5 * 30);
    down = false;
    await limiter.flush();
    expect(counter.totals.get(`key_f#${utcDay(T0)}`)).toEqual({ served, refused });
  });

  it("writes a day's counts to that day's item when the day changes", async () => {
    let now = Date.parse('2026-03-01T23:59:55.000Z');
    const counter = memoryUsage();
    const limiter = createRateLimiter({ ...counter, now: () => now });
    const limit = { rate: 100, burst: 100 };
    for (let i = 0; i < 3; i++) await limiter.check('key_d', limit);
    now += 10_000;
    await limiter.check('key_d', limit);
    await limiter.flush();
    expect(counter.totals.get('key_d#2026-03-01')).toEqual({ served: 3, refused: 0 });
    expect(counter.totals.get('key_d#2026-03-02')).toEqual({ served: 1, refused: 0 });
  });
});

describe('rate limiter, containers that start or come back at once (one shared burst)', () => {
  it('20 new containers each sent a burst at one instant serve one burst in all, not one each', async () => {
    const now = T0;
    const usage = memoryUsage();
    const limit = { rate: 10, burst: 20 };
    const containers = Array.from({ length: 20 }, () => createRateLimiter({ ...usage, now: () => now }));
    let served = 0;
    for (const c of containers) for (let i = 0; i < limit.burst; i++) if ((await c.check('key_n', limit)).allowed) served++;
    expect(served).toBe(limit.burst);
  });

  it('after a pause, containers that each had their share come back to one burst in all, and serve it whole', async () => {
    await fc.assert(
      fc.asyncProperty(limitArb, fc.integer({ min: 2, max: 20 }), fc.array(fc.nat(), { minLength: 60, maxLength: 60 }), async (limit, n, spread) => {
        let now = T0;
        const usage = memoryUsage();
        const containers = Array.from({ length: n }, () => createRateLimiter({ ...usage, now: () => now }));
        // 30 s at three times the limit, round robin: every container learns its share.
        for (let ms = 0; ms < 30_000; ms += 1000 / (3 * limit.rate)) {
          now = T0 + ms;
          await containers[Math.floor(ms / (1000 / (3 * limit.rate))) % n]!.check('key_q', limit);
        }
        now += Math.max(10_000, policyWindowSeconds(limit) * 1000);
        // Every container sent a burst at one instant; the first `burst` requests spread as `spread` says.
        let served = 0;
        for (let i = 0; i < limit.burst; i++) {
          expect((await containers[spread[i % spread.length]! % n]!.check('key_q', limit)).allowed).toBe(true);
          served++;
        }
        for (const c of containers) for (let i = 0; i < limit.burst; i++) if ((await c.check('key_q', limit)).allowed) served++;
        expect(served).toBeLessThanOrEqual(limit.burst + 1);
      }),
      // The example: a pause of exactly `w` after a refusal at a fraction of a ms (it once found the key busy).
      { ...fcParams(30), examples: [[{ rate: 2, burst: 59 }, 2, Array.from({ length: 60 }, () => 0)]] },
    );
  });

  it.each([11, 21, 31])(
    'the simulation (seed %i): 20 new containers at 20x the limit, and pulses at 5x and 20x with pauses, hold the worst 10 s window and the long run',
    async (seed) => {
      for (const pulseDemandFactor of [5, 20]) {
        const r = await runRateLimitSim({ ...memoryUsage(), only: ['coldStart', 'pulses', 'bursts'], options: { ...DEFAULT_RATE_LIMIT_SIM, seed, pulseDemandFactor } });
        for (const f of [r.coldStart, r.pulses]) {
          expect(f.worstWindow.served).toBeLessThanOrEqual(1.25 * (r.options.limit.burst + 10 * r.options.limit.rate));
          expect(Math.abs(f.served / f.reference - 1)).toBeLessThanOrEqual(0.1);
        }
        expect(r.bursts.refused).toBe(0);
      }
    },
  );
});

describe('rate limiter, containers that start while the key is over its limit', () => {
  it.each([11, 12, 13])('get no burst of their own: 10 new containers joining 20 busy ones keep every 10 s window within 25 %% (seed %i)', async (seed) => {
    const random = mulberry32(seed);
    const usage = memoryUsage();
    let now = T0;
    const limit = { rate: 10, burst: 20 };
    const make = () => createRateLimiter({ ...usage, now: () => now });
    const fleet = Array.from({ length: 20 }, make);
    const served: number[] = [];
    let joined = 0;
    // 200 requests/s for 120 s; from 60 s on, a new container every 2 s, ten in all.
    for (let t = 0; t < 120_000; t += (-Math.log(1 - random()) / 200) * 1000) {
      while (t >= 60_000 + joined * 2000 && joined < 10) {
        fleet.push(make());
        joined++;
      }
      now = T0 + t;
      if ((await fleet[Math.floor(random() * fleet.length)]!.check('key_j', limit)).allowed) served.push(t);
    }
    expect(worstWindow(served.filter((t) => t >= 40_000), 10_000).served).toBeLessThanOrEqual(1.25 * (limit.burst + 10 * limit.rate));
    expect(served.filter((t) => t >= 60_000).length / 60).toBeGreaterThan(limit.rate * 0.9);
  });
});

describe('the simulation\'s measures', () => {
  it('one token bucket (GCRA) and the worst sliding window', () => {
    const limit = { rate: 2, burst: 2 };
    expect(referenceBucket([0, 0, 0, 400, 500, 1000, 1001], limit)).toEqual([0, 0, 500, 1000]);
    expect(worstWindow([0, 100, 9_999, 10_000, 10_050], 10_000)).toEqual({ served: 4, startMs: 100 });
    expect(worstWindow([], 10_000)).toEqual({ served: 0, startMs: 0 });
  });
});

describe('rate limiter, requests of one key at the same time in one container', () => {
  it('serves the shared burst exactly once when the requests are decided concurrently (npm start serves them so), then again after Retry-After', async () => {
    let now = T0;
    const usage = memoryUsage();
    // The store answers in the reverse order of the writes, as a busy one may.
    const answers: (() => void)[] = [];
    const reserve: typeof usage.reserve = (...args) =>
      new Promise((resolve) => {
        const answer = usage.reserve(...args);
        answers.unshift(() => void answer.then(resolve));
        if (answers.length === 12) for (const a of answers) a();
      });
    const limiter = createRateLimiter({ ...usage, reserve, now: () => now });
    const limit = { rate: 1, burst: 5 };
    const decisions = await Promise.all(Array.from({ length: 12 }, () => limiter.check('key_c', limit)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused.every((d) => d.retryAfterSeconds >= 1 && d.retryAfterSeconds <= 5)).toBe(true);
    now += 1000 * refused[0]!.retryAfterSeconds;
    expect((await limiter.check('key_c', limit)).allowed).toBe(true);
  });
});
