import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mulberry32 } from '../local/demo/generator.js';
import { createRateLimiter, type RateLimiter } from '../src/keys/limiter.js';
import { policyWindowSeconds, type RateLimit } from '../src/keys/rate-limit.js';
import { addUsage } from '../src/keys/usage.js';

/**
 * The rate-limit simulation (docs/performance.md, "Rate limits across containers"): many authorizer
 * containers, each with its own limiter (src/keys/limiter.ts), serve one key on a simulated clock
 * (nothing waits), and write their counts to the usage counters of a keys table on DynamoDB Local
 * with the authorizer's own UpdateItem (src/keys/usage.ts). Two scenarios, each on a key of its own:
 *
 * - steady: requests arrive at random (Poisson) at several times the key's limit, each to a random
 *   container; the rate served is measured after a warm-up, over the whole steady span and per
 *   window, and the write units the counting consumed per request (DynamoDB Local's ConsumedCapacity);
 * - bursts: the key sends under its limit, pauses, then sends `burst` requests at one instant to
 *   random containers; a request of such a burst that is refused is counted.
 */
export interface RateLimitSimOptions {
  containers: number;
  limit: RateLimit;
  /** Requests per second the key sends in the steady scenario. */
  demandPerSecond: number;
  seconds: number;
  warmupSeconds: number;
  windowSeconds: number;
  bursts: number;
  seed: number;
}

export const DEFAULT_RATE_LIMIT_SIM: RateLimitSimOptions = {
  containers: 20,
  limit: { rate: 10, burst: 20 },
  demandPerSecond: 50,
  seconds: 120,
  warmupSeconds: 30,
  windowSeconds: 10,
  bursts: 10,
  seed: 11,
};

export interface RateLimitSimResult {
  options: RateLimitSimOptions;
  steady: {
    requests: number;
    served: number;
    /** Served per second after the warm-up, over the whole steady span. */
    servedPerSecond: number;
    /** |served rate / limit - 1| over the steady span, and the worst window's. */
    deviation: number;
    worstWindowDeviation: number;
    windows: number[];
    writes: number;
    writeUnits: number;
    writeUnitsPerRequest: number;
  };
  bursts: { sent: number; refused: number };
}

const T0 = Date.parse('2026-06-01T08:00:00.000Z');

export async function runRateLimitSim(input: {
  client: DynamoDBDocumentClient;
  keysTableName: string;
  options?: RateLimitSimOptions;
}): Promise<RateLimitSimResult> {
  const o = input.options ?? DEFAULT_RATE_LIMIT_SIM;
  const random = mulberry32(o.seed);
  let now = T0;
  let writes = 0;
  let writeUnits = 0;
  const fleet = (): RateLimiter[] =>
    Array.from({ length: o.containers }, () =>
      createRateLimiter({
        now: () => now,
        counter: (keyId, day, add) => {
          writes++;
          return addUsage(input.client, input.keysTableName, keyId, day, add, (units) => (writeUnits += units));
        },
      }),
    );
  const pick = (containers: readonly RateLimiter[]) => containers[Math.floor(random() * containers.length)]!;
  const exponentialMs = (perSecond: number) => (-Math.log(1 - random()) / perSecond) * 1000;

  // Steady: Poisson arrivals at demandPerSecond.
  const steadyFleet = fleet();
  const windows = Array.from({ length: Math.ceil((o.seconds - o.warmupSeconds) / o.windowSeconds) }, () => 0);
  let requests = 0;
  let served = 0;
  for (let t = exponentialMs(o.demandPerSecond); t < o.seconds * 1000; t += exponentialMs(o.demandPerSecond)) {
    now = T0 + t;
    requests++;
    const d = await pick(steadyFleet).check('key_SimSteadySteady0001', o.limit);
    if (d.allowed && t >= o.warmupSeconds * 1000) {
      served++;
      windows[Math.floor((t - o.warmupSeconds * 1000) / (o.windowSeconds * 1000))]!++;
    }
  }
  const steadyWrites = { writes, writeUnits };
  const steadySeconds = o.seconds - o.warmupSeconds;
  const servedPerSecond = served / steadySeconds;
  const windowRates = windows.map((n) => n / o.windowSeconds);

  // Bursts: under the limit (half of it) for 20 s, a pause, a burst of `burst` requests at once.
  const burstFleet = fleet();
  const pauseMs = Math.max(10_000, policyWindowSeconds(o.limit) * 1000);
  let sent = 0;
  let refused = 0;
  for (let b = 0; b < o.bursts; b++) {
    const start = now;
    for (let t = exponentialMs(o.limit.rate / 2); t < 20_000; t += exponentialMs(o.limit.rate / 2)) {
      now = start + t;
      await pick(burstFleet).check('key_SimBurstBurstBur0001', o.limit);
    }
    now = start + 20_000 + pauseMs;
    for (let i = 0; i < o.limit.burst; i++) {
      sent++;
      if (!(await pick(burstFleet).check('key_SimBurstBurstBur0001', o.limit)).allowed) refused++;
    }
  }

  return {
    options: o,
    steady: {
      requests,
      served,
      servedPerSecond,
      deviation: Math.abs(servedPerSecond / o.limit.rate - 1),
      worstWindowDeviation: Math.max(0, ...windowRates.map((r) => Math.abs(r / o.limit.rate - 1))),
      windows: windowRates,
      writes: steadyWrites.writes,
      writeUnits: steadyWrites.writeUnits,
      writeUnitsPerRequest: requests > 0 ? steadyWrites.writeUnits / requests : 0,
    },
    bursts: { sent, refused },
  };
}
