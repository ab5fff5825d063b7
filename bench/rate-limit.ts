import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mulberry32 } from '../local/demo/generator.js';
import { createRateLimiter } from '../src/keys/limits/limiter.js';
import type { RateLimiter, UsageCounter, UsageReserver } from '../src/keys/limits/limiter-ports.js';
import { policyWindowSeconds, type RateLimit } from '../src/keys/limits/rate-limit.js';
import { addUsage, reserveUsage } from '../src/keys/limits/usage.js';

/**
 * The rate-limit simulation (docs/performance.md, "Rate limits across containers"): many authorizer
 * containers, each with its own limiter (src/keys/limits/limiter.ts), serve one key on a simulated clock
 * (nothing waits), and write their counts and reservations to the usage items of a keys table on
 * DynamoDB Local with the authorizer's own UpdateItems (src/keys/limits/usage.ts), or to any store of the
 * same semantics (the unit tests' test/support/usage-memory.ts). Four scenarios, each on a key of its own:
 *
 * - steady: requests arrive at random (Poisson) at several times the key's limit, each to a random
 *   container; the rate served is measured after a warm-up, over the whole steady span and per
 *   window, and the write units the counting consumed per request (DynamoDB Local's ConsumedCapacity);
 * - bursts: the key sends under its limit, pauses, then sends `burst` requests at one instant to
 *   random containers; a request of such a burst that is refused is counted;
 * - cold start: new containers, the key at `coldDemandFactor` times its rate from the first instant;
 * - pulses: `pulseSeconds` at `pulseDemandFactor` times the rate, then `pauseSeconds` of nothing.
 * The last two are measured against one token bucket of the key's limit (`scenarioFigures`).
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
  /** Cold start: demand as a multiple of the key's rate, and how long. */
  coldDemandFactor: number;
  coldSeconds: number;
  /** Pulses: demand as a multiple of the rate for `pulseSeconds`, then `pauseSeconds` of nothing, `pulses` times. */
  pulseDemandFactor: number;
  pulseSeconds: number;
  pauseSeconds: number;
  pulses: number;
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
  coldDemandFactor: 20,
  coldSeconds: 60,
  pulseDemandFactor: 5,
  pulseSeconds: 5,
  pauseSeconds: 10,
  pulses: 6,
};

/** What one key's traffic got in a scenario, against what one token bucket of its limit would serve. */
export interface ScenarioFigures {
  requests: number;
  served: number;
  /** Served by one token bucket of the key's limit (GCRA) on the same arrivals: the limit, exactly. */
  reference: number;
  /** The most served in any `windowSeconds` (sliding), and when that window starts (ms from the scenario's start). */
  worstWindow: { served: number; startMs: number };
  /** The most one token bucket can serve in a window: burst + rate x windowSeconds. */
  windowLimit: number;
  /** worstWindow.served / windowLimit - 1 (negative: under the limit). */
  worstWindowExcess: number;
  /** served / reference - 1 over the whole scenario. */
  longRunDeviation: number;
  writes: number;
  writeUnits: number;
}

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
  /** `containers` new containers at once, the key at `coldDemandFactor` x its rate (Poisson). */
  coldStart: ScenarioFigures;
  /** `pulseSeconds` at `pulseDemandFactor` x the rate, `pauseSeconds` of nothing, repeated. */
  pulses: ScenarioFigures;
}

const T0 = Date.parse('2026-06-01T08:00:00.000Z');

/** The cold-start and pulse scenarios with what they are, as the report names them. */
export function rateLimitScenarios(r: RateLimitSimResult): [string, ScenarioFigures][] {
  const o = r.options;
  return [
    [`${o.containers} new containers at ${o.coldDemandFactor}x the limit for ${o.coldSeconds} s`, r.coldStart],
    [`${o.pulseSeconds} s at ${o.pulseDemandFactor}x the limit, ${o.pauseSeconds} s of nothing, ${o.pulses} times`, r.pulses],
  ];
}

/** The instants (ms) one token bucket of `limit` serves of `arrivals` (sorted, ms): GCRA, ITU-T I.371. */
export function referenceBucket(arrivals: readonly number[], limit: RateLimit): number[] {
  const increment = 1000 / limit.rate;
  const tolerance = (limit.burst - 1) * increment;
  let tat = Number.NEGATIVE_INFINITY;
  const served: number[] = [];
  for (const t of arrivals) {
    if (tat - t <= tolerance + 1e-6) {
      tat = Math.max(tat, t) + increment;
      served.push(t);
    }
  }
  return served;
}

/** The most instants of `times` (sorted) in any half-open window [t, t + windowMs), and its start. */
export function worstWindow(times: readonly number[], windowMs: number): { served: number; startMs: number } {
  let best = { served: 0, startMs: 0 };
  for (let i = 0, j = 0; j < times.length; j++) {
    while (times[j]! - times[i]! >= windowMs) i++;
    if (j - i + 1 > best.served) best = { served: j - i + 1, startMs: times[i]! };
  }
  return best;
}

export function scenarioFigures(input: {
  arrivals: readonly number[];
  served: readonly number[];
  limit: RateLimit;
  windowSeconds: number;
  writes: number;
  writeUnits: number;
}): ScenarioFigures {
  const reference = referenceBucket(input.arrivals, input.limit).length;
  const worst = worstWindow(input.served, input.windowSeconds * 1000);
  const windowLimit = input.limit.burst + input.limit.rate * input.windowSeconds;
  return {
    requests: input.arrivals.length,
    served: input.served.length,
    reference,
    worstWindow: worst,
    windowLimit,
    worstWindowExcess: worst.served / windowLimit - 1,
    longRunDeviation: reference > 0 ? input.served.length / reference - 1 : 0,
    writes: input.writes,
    writeUnits: input.writeUnits,
  };
}

/** Where the limiters write: the keys table (its DynamoDB calls), or any other store of the same semantics. */
export type UsageStore = { client: DynamoDBDocumentClient; keysTableName: string } | { counter: UsageCounter; reserve: UsageReserver };

export async function runRateLimitSim(input: UsageStore & {
  options?: RateLimitSimOptions;
  /** Only these scenarios (default: all); the others' figures are zeros. */
  only?: readonly ('steady' | 'bursts' | 'coldStart' | 'pulses')[];
}): Promise<RateLimitSimResult> {
  const o = input.options ?? DEFAULT_RATE_LIMIT_SIM;
  const wanted = (name: 'steady' | 'bursts' | 'coldStart' | 'pulses') => !input.only || input.only.includes(name);
  // Each new scenario draws from its own seed: its figures are the same whether it runs alone or not.
  let random = mulberry32(o.seed);
  let now = T0;
  let writes = 0;
  let writeUnits = 0;
  const fleet = (): RateLimiter[] =>
    Array.from({ length: o.containers }, () =>
      createRateLimiter({
        now: () => now,
        counter: (keyId, day, add) => {
          writes++;
          if ('counter' in input) return (writeUnits++, input.counter(keyId, day, add));
          return addUsage(input.client, input.keysTableName, keyId, day, add, (units) => (writeUnits += units));
        },
        reserve: (keyId, day, add, pool) => {
          writes++;
          if ('reserve' in input) return (writeUnits++, input.reserve(keyId, day, add, pool));
          return reserveUsage(input.client, input.keysTableName, keyId, day, add, pool, (units) => (writeUnits += units));
        },
      }),
    );
  const pick = (containers: readonly RateLimiter[]) => containers[Math.floor(random() * containers.length)]!;
  const exponentialMs = (perSecond: number) => (-Math.log(1 - random()) / perSecond) * 1000;

  // Steady: Poisson arrivals at demandPerSecond.
  const windows = Array.from({ length: Math.ceil((o.seconds - o.warmupSeconds) / o.windowSeconds) }, () => 0);
  let requests = 0;
  let served = 0;
  if (wanted('steady')) {
    const steadyFleet = fleet();
    for (let t = exponentialMs(o.demandPerSecond); t < o.seconds * 1000; t += exponentialMs(o.demandPerSecond)) {
      now = T0 + t;
      requests++;
      const d = await pick(steadyFleet).check('key_SimSteadySteady0001', o.limit);
      if (d.allowed && t >= o.warmupSeconds * 1000) {
        served++;
        windows[Math.floor((t - o.warmupSeconds * 1000) / (o.windowSeconds * 1000))]!++;
      }
    }
  }
  const steadyWrites = { writes, writeUnits };
  const steadySeconds = o.seconds - o.warmupSeconds;
  const servedPerSecond = served / steadySeconds;
  const windowRates = windows.map((n) => n / o.windowSeconds);

  // Bursts: under the limit (half of it) for 20 s, a pause, a burst of `burst` requests at once.
  let sent = 0;
  let refused = 0;
  if (wanted('bursts')) {
    const burstFleet = fleet();
    const pauseMs = Math.max(10_000, policyWindowSeconds(o.limit) * 1000);
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
  }

  /** Runs `arrivals` (ms from the scenario's start, sorted) on a fleet of new containers. */
  const scenario = async (keyId: string, arrivals: readonly number[]): Promise<ScenarioFigures> => {
    const containers = fleet();
    const start = now + 60_000;
    const before = { writes, writeUnits };
    const servedAt: number[] = [];
    for (const t of arrivals) {
      now = start + t;
      if ((await pick(containers).check(keyId, o.limit)).allowed) servedAt.push(t);
    }
    return scenarioFigures({ arrivals, served: servedAt, limit: o.limit, windowSeconds: o.windowSeconds, writes: writes - before.writes, writeUnits: writeUnits - before.writeUnits });
  };
  const poisson = (perSecond: number, fromMs: number, toMs: number, into: number[]) => {
    for (let t = fromMs + exponentialMs(perSecond); t < toMs; t += exponentialMs(perSecond)) into.push(t);
  };
  const empty = scenarioFigures({ arrivals: [], served: [], limit: o.limit, windowSeconds: o.windowSeconds, writes: 0, writeUnits: 0 });

  // Cold start: every container new, the key at coldDemandFactor x its rate from the first instant.
  let coldStart = empty;
  if (wanted('coldStart')) {
    random = mulberry32(o.seed + 1);
    const arrivals: number[] = [];
    poisson(o.limit.rate * o.coldDemandFactor, 0, o.coldSeconds * 1000, arrivals);
    coldStart = await scenario('key_SimColdColdCold00001', arrivals);
  }

  // Pulses: pulseSeconds at pulseDemandFactor x the rate, then pauseSeconds of nothing.
  let pulses = empty;
  if (wanted('pulses')) {
    random = mulberry32(o.seed + 2);
    const arrivals: number[] = [];
    const cycleMs = (o.pulseSeconds + o.pauseSeconds) * 1000;
    for (let p = 0; p < o.pulses; p++) poisson(o.limit.rate * o.pulseDemandFactor, p * cycleMs, p * cycleMs + o.pulseSeconds * 1000, arrivals);
    pulses = await scenario('key_SimPulsePulsePuls001', arrivals);
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
    coldStart,
    pulses,
  };
}
