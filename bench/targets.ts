import { describeMachine, LIMITS_REFERENCE_MS, type Calibration, type Machine } from './calibration.js';

/** The targets of the benchmark (docs/performance.md) and their evaluation. Pure. */

export interface Target {
  name: string;
  value: number;
  limit: number;
  unit: string;
  holds: boolean;
  /** Set when the run is smaller than the target is stated for: the figure is reported, not judged (it then holds). */
  notJudged?: string;
}

/** The size the targets marked "stated at 20,000 legs" are judged from. */
export const STATED_LEGS = 20_000;
/** Traffic simulations shorter than this spread the containers' cold reads over too few requests to judge read units. */
export const TRAFFIC_STATED_SECONDS = 30;

/** `t` judged against its limit, or reported only (`notJudged`: why). */
function judge(t: Omit<Target, 'holds'>, notJudged?: string): Target {
  return notJudged === undefined ? { ...t, holds: t.value <= t.limit } : { ...t, holds: true, notJudged };
}

/**
 * An absolute figure (CPU or wall time), reported beside the ratio that judges it, never judged
 * itself (docs/performance.md, "Gates: ratios and counts"); `limit` is the judged limit in the same
 * unit on this run's machine.
 */
export function reported(t: Omit<Target, 'holds' | 'notJudged'>, machine: Machine): Target {
  return { ...t, holds: true, notJudged: `absolute, read on ${describeMachine(machine)}` };
}

/** One line of a command's report: the target, its value and limit, and its verdict (or why it is not judged). */
export function targetLine(t: Target): string {
  const verdict = t.notJudged !== undefined ? `reported, not judged (${t.notJudged})` : t.holds ? 'holds' : 'DOES NOT HOLD';
  return `${t.notJudged !== undefined ? 'figure' : 'target'} ${t.name}: ${t.value} <= ${t.limit}: ${verdict}`;
}

const belowStatedLegs = (legs: number) => (legs < STATED_LEGS ? `stated at ${STATED_LEGS} legs; this run has ${legs}` : undefined);

/** Read units per request with an empty cache: at most this fraction of the whole-item figure. */
export const READ_UNITS_MAX_FRACTION = 1 / 8;
export const IMPORT_MAX_RATIO = 3;

/**
 * Warm-cache handler CPU time p95 limit (process.cpuUsage, not wall time, which this shared machine
 * cannot hold steady) where the reference workload takes LIMITS_REFERENCE_MS: 2 ms up to 20,000
 * legs, 5 ms above (stated for 50,000).
 */
export function warmP95LimitMs(legs: number): number {
  return legs <= 20_000 ? 2 : 5;
}

/** The same limit as judged: a fraction of the reference workload's CPU in the same run. */
export function warmP95LimitReferences(legs: number): number {
  return warmP95LimitMs(legs) / LIMITS_REFERENCE_MS;
}

export interface QueryFigures {
  name: string;
  /** Its parameters (the price targets find the same search without the price ones). */
  params?: Readonly<Record<string, string>>;
  /** Measured read units of one request with an empty cache. */
  coldReadUnits: number;
  /** The same request when whole items are read. */
  wholeItemReadUnits: number;
  /** Warm-cache handler CPU time p95, ms. */
  warmP95Ms: number;
  /** Buckets read that the window does not need. */
  excessBuckets: readonly string[];
}

export interface TargetInputs {
  legs: number;
  queries: readonly QueryFigures[];
  /** CPU time of a fresh process importing the bundle (bench/bundle.ts), ms. */
  listImportCpuMs: number;
  helloImportCpuMs: number;
  /** The reference workload's CPU around the warm runs: the unit of the warm CPU target. */
  calibration: Pick<Calibration, 'referenceMs' | 'machine'>;
}

/** cold / whole; 0 when both are 0, infinite when only the whole-item figure is 0. */
export function readUnitFraction(cold: number, whole: number): number {
  if (whole > 0) return cold / whole;
  return cold === 0 ? 0 : Number.POSITIVE_INFINITY;
}

const round = (n: number, digits: number) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : n);

export function evaluateTargets(input: TargetInputs): Target[] {
  const worstFraction = Math.max(0, ...input.queries.map((q) => readUnitFraction(q.coldReadUnits, q.wholeItemReadUnits)));
  const worstP95 = Math.max(0, ...input.queries.map((q) => q.warmP95Ms));
  const p95Limit = warmP95LimitReferences(input.legs);
  const referenceMs = input.calibration.referenceMs;
  const importRatio = input.helloImportCpuMs > 0 ? input.listImportCpuMs / input.helloImportCpuMs : Number.POSITIVE_INFINITY;
  const excess = input.queries.filter((q) => q.excessBuckets.length > 0).length;
  const readUnits = judge(
    {
      name: 'read units per request with an empty cache / whole-item read units (worst query; stated at 20,000 legs)',
      value: round(worstFraction, 4),
      limit: round(READ_UNITS_MAX_FRACTION, 4),
      unit: 'ratio',
    },
    belowStatedLegs(input.legs),
  );
  const targets: Omit<Target, 'holds'>[] = [
    {
      name: `warm-cache handler CPU time p95 at ${input.legs} legs (worst query) / the reference workload's CPU`,
      value: round(worstP95 / referenceMs, 4),
      limit: p95Limit,
      unit: 'ratio',
    },
    {
      name: 'list function import CPU time / hello-world import CPU time',
      value: round(importRatio, 3),
      limit: IMPORT_MAX_RATIO,
      unit: 'ratio',
    },
    { name: 'queries that read a bucket the window does not need', value: excess, limit: 0, unit: 'queries' },
  ];
  const absolute = reported(
    {
      name: `warm-cache handler CPU time p95 at ${input.legs} legs (worst query; the limit: the calibrated one times this run's reference, ${round(referenceMs, 1)} ms CPU)`,
      value: round(worstP95, 3),
      limit: round(p95Limit * referenceMs, 3),
      unit: 'ms CPU',
    },
    input.calibration.machine,
  );
  return [readUnits, ...targets.map((t) => judge(t)), absolute, ...searchTargets(input), ...priceTargets(input), ...sellerTargets(input), ...includeTargets(input), ...groupTargets(input)];
}

/** Trip and area searches (docs/performance.md, "Trips and areas"): their read units within 10 % of the plain listing's. */
export const SEARCH_MAX_READ_UNIT_RATIO = 1.1;
/** Warm CPU of a trip search over the whole horizon: at most 3 times the plain listing's. */
export const TRIP_MAX_WARM_CPU_RATIO = 3;
const PLAIN = 'no filter, page 1';

/** The trip and area targets, over the mix's queries whose names start with `trip` or `area`; none when the mix has none. */
function searchTargets(input: TargetInputs): Target[] {
  const plain = input.queries.find((q) => q.name === PLAIN);
  const searches = input.queries.filter((q) => q.name.startsWith('trip') || q.name.startsWith('area'));
  const wholeTrip = input.queries.find((q) => q.name.startsWith('trip') && q.name.includes('whole horizon'));
  if (plain === undefined || searches.length === 0 || wholeTrip === undefined) return [];
  const worstUnits = Math.max(...searches.map((q) => q.coldReadUnits)) / (plain.coldReadUnits || 1);
  const cpuRatio = wholeTrip.warmP95Ms / (plain.warmP95Ms || Number.MIN_VALUE);
  return [
    judge({
      name: 'read units per request of a trip or area search / the plain listing\'s (worst search, empty cache)',
      value: round(worstUnits, 3),
      limit: SEARCH_MAX_READ_UNIT_RATIO,
      unit: 'ratio',
    }),
    judge({
      name: 'warm-cache handler CPU time p95 of a trip search over the whole horizon / the plain listing\'s',
      value: round(cpuRatio, 3),
      limit: TRIP_MAX_WARM_CPU_RATIO,
      unit: 'ratio',
    }),
  ];
}

/** A search of the price targets: the mix names them `price ...` (bench/mix.ts). */
export const isPriceSearch = (q: { name: string }): boolean => q.name.startsWith('price');

/** Price searches (docs/performance.md, "Prices"): read units within 10 % of the same search without its price parameters. */
export const PRICE_MAX_READ_UNIT_RATIO = 1.1;
/** Warm CPU of a price-sorted search over the whole horizon: at most 3 times the plain listing's. */
export const PRICE_MAX_WARM_CPU_RATIO = 3;
/** The parameters a price search adds (docs/api.md, "Prices"), `sort=price|-price` among them. */
const PRICE_PARAMETERS = new Set(['currency', 'minPrice', 'maxPrice', 'pricedOnly']);

/** `params` without the price parameters: the same search, unconverted, unfiltered by price, in the default order. */
export function withoutPrice(params: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter(([k, v]) => !PRICE_PARAMETERS.has(k) && !(k === 'sort' && (v === 'price' || v === '-price'))));
}

const sameParams = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

type Query = TargetInputs['queries'][number];

/** Each search of the mix that `isSearch` names, with the mix's query of its parameters but those `without` drops; a search without one is left out. */
function searchPairs(input: TargetInputs, isSearch: (q: Query) => boolean, without: (params: Readonly<Record<string, string>>) => Record<string, string>): { q: Query; base: Query }[] {
  const others = input.queries.filter((q) => !isSearch(q));
  return input.queries
    .filter((q) => isSearch(q) && q.params !== undefined)
    .flatMap((q) => {
      const base = others.find((o) => o.params !== undefined && sameParams(o.params, without(q.params!)));
      return base === undefined ? [] : [{ q, base }];
    });
}

/**
 * The price targets, over the mix's queries whose names start with `price`, each against the query of
 * the mix with its parameters but the price ones (a price search without one is left out); none when
 * the mix has no price search.
 */
function priceTargets(input: TargetInputs): Target[] {
  const plain = input.queries.find((q) => q.name === PLAIN);
  const pairs = searchPairs(input, isPriceSearch, withoutPrice);
  const sorted = input.queries.find((q) => isPriceSearch(q) && q.params?.sort === 'price' && q.name.includes('whole horizon'));
  if (plain === undefined || pairs.length === 0 || sorted === undefined) return [];
  const worstUnits = Math.max(...pairs.map(({ q, base }) => q.coldReadUnits / (base.coldReadUnits || 1)));
  return [
    judge({
      name: 'read units per request of a price search / the same search without its price parameters (worst search, empty cache)',
      value: round(worstUnits, 3),
      limit: PRICE_MAX_READ_UNIT_RATIO,
      unit: 'ratio',
    }),
    judge({
      name: "warm-cache handler CPU time p95 of a price-sorted search over the whole horizon / the plain listing's",
      value: round(sorted.warmP95Ms / (plain.warmP95Ms || Number.MIN_VALUE), 3),
      limit: PRICE_MAX_WARM_CPU_RATIO,
      unit: 'ratio',
    }),
  ];
}

/** A search of the seller targets: the mix names them `seller ...` (bench/mix.ts). */
export const isSellerSearch = (q: { name: string }): boolean => q.name.startsWith('seller');

/** Seller searches (issue 41; docs/performance.md, "Sellers"): read units within 10 % of the same search without `source`, `kind`, `verifiedOnly`, `maxAgeHours`. */
export const SELLER_MAX_READ_UNIT_RATIO = 1.1;
/** Their warm CPU: at most 1.5 times the same search's without them. */
export const SELLER_MAX_WARM_CPU_RATIO = 1.5;
const SELLER_PARAMETERS = new Set(['source', 'kind', 'verifiedOnly', 'maxAgeHours']);

/** `params` without the seller parameters. */
export const withoutSeller = (params: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(params).filter(([k]) => !SELLER_PARAMETERS.has(k)));

/** The seller targets: each seller search of the mix against the mix's query with its other parameters (worst pair); none without a pair. */
function sellerTargets(input: TargetInputs): Target[] {
  const pairs = searchPairs(input, isSellerSearch, withoutSeller);
  if (pairs.length === 0) return [];
  return [
    judge({
      name: 'read units per request of a seller search (source, kind, verifiedOnly, maxAgeHours) / the same search without them (worst search, empty cache)',
      value: round(Math.max(...pairs.map(({ q, base }) => q.coldReadUnits / (base.coldReadUnits || 1))), 3),
      limit: SELLER_MAX_READ_UNIT_RATIO,
      unit: 'ratio',
    }),
    judge({
      name: 'warm-cache handler CPU time p95 of a seller search / the same search without its seller parameters (worst search)',
      value: round(Math.max(...pairs.map(({ q, base }) => q.warmP95Ms / (base.warmP95Ms || Number.MIN_VALUE))), 3),
      limit: SELLER_MAX_WARM_CPU_RATIO,
      unit: 'ratio',
    }),
  ];
}

/** `include` (docs/performance.md, "Provenance and departure"): read units within 10 % of the same search without it. */
export const INCLUDE_MAX_READ_UNIT_RATIO = 1.1;
/** Its warm CPU: at most 1.5 times the same search's without it. */
export const INCLUDE_MAX_WARM_CPU_RATIO = 1.5;

/** A search of the include targets: the mix names them `include ...` (bench/mix.ts). */
export const isIncludeSearch = (q: { name: string }): boolean => q.name.startsWith('include');

/**
 * The include targets, over the mix's queries whose names start with `include`, each against the
 * query of the mix with its parameters but `include`; none when the mix has no such pair.
 */
export function includeTargets(input: Pick<TargetInputs, 'queries' | 'legs'>): Target[] {
  return pairedTargets(input, { isSearch: isIncludeSearch, param: 'include', label: 'include=provenance,departure', units: INCLUDE_MAX_READ_UNIT_RATIO, cpu: INCLUDE_MAX_WARM_CPU_RATIO });
}

/** `group=flight` (docs/performance.md, "Flights"): read units within 10 % of the same search ungrouped. */
export const GROUP_MAX_READ_UNIT_RATIO = 1.1;
/** Its warm CPU: at most 2 times the same search's ungrouped. */
export const GROUP_MAX_WARM_CPU_RATIO = 2;

/** A search of the group targets: the mix names them `group ...` (bench/mix.ts). */
export const isGroupSearch = (q: { name: string }): boolean => q.name.startsWith('group');

/** The group targets, over the mix's `group ...` searches, each against its query without `group`. */
export function groupTargets(input: Pick<TargetInputs, 'queries' | 'legs'>): Target[] {
  return pairedTargets(input, { isSearch: isGroupSearch, param: 'group', label: 'group=flight', units: GROUP_MAX_READ_UNIT_RATIO, cpu: GROUP_MAX_WARM_CPU_RATIO });
}

/** Targets of searches that add one parameter: read units and warm CPU, worst search, as ratios to the search without it. */
function pairedTargets(
  input: Pick<TargetInputs, 'queries' | 'legs'>,
  how: { isSearch: (q: { name: string }) => boolean; param: string; label: string; units: number; cpu: number },
): Target[] {
  const pairs = input.queries
    .filter((q) => how.isSearch(q) && q.params !== undefined)
    .flatMap((q) => {
      const { [how.param]: _added, ...rest } = q.params!;
      const base = input.queries.find((o) => !how.isSearch(o) && o.params !== undefined && sameParams(o.params, rest));
      return base === undefined ? [] : [{ q, base }];
    });
  if (pairs.length === 0) return [];
  const worstUnits = Math.max(...pairs.map(({ q, base }) => readUnitFraction(q.coldReadUnits, base.coldReadUnits)));
  const worstCpu = Math.max(...pairs.map(({ q, base }) => q.warmP95Ms / (base.warmP95Ms || Number.MIN_VALUE)));
  // Stated at 20,000 legs: a smaller run reports them.
  return [
    judge(
      { name: `read units per request of ${how.label} / the same search without it (worst search, empty cache)`, value: round(worstUnits, 3), limit: how.units, unit: 'ratio' },
      belowStatedLegs(input.legs),
    ),
    judge(
      { name: `warm-cache handler CPU time p95 of ${how.label} / the same search without it (worst search)`, value: round(worstCpu, 3), limit: how.cpu, unit: 'ratio' },
      belowStatedLegs(input.legs),
    ),
  ];
}

/** What the traffic simulation and the compression check measured (src/bench/traffic.ts). */
export interface TrafficTargetInputs {
  /** Simulated seconds of traffic. */
  seconds: number;
  before: { readUnitsPerRequest: number; busiestBucketRps: number };
  after: { readUnitsPerRequest: number; busiestBucketRps: number; stalenessP99Ms: number; inconsistent: number };
  /** Revocation and rotation, measured in the simulation's containers (ms of simulated time). */
  keysSeenWithinMs: number | undefined;
}

export const TRAFFIC_MAX_READ_UNITS = 0.5;
export const TRAFFIC_MAX_RATIO = 0.1;
export const STALENESS_MAX_MS = 2_000;
export const GZIP_MAX_RATIO = 0.2;

export function trafficTargets(input: TrafficTargetInputs): Target[] {
  const ratio = (a: number, b: number) => (b > 0 ? a / b : a === 0 ? 0 : Number.POSITIVE_INFINITY);
  const short = input.seconds < TRAFFIC_STATED_SECONDS ? `stated for ${TRAFFIC_STATED_SECONDS} simulated seconds or more; this run has ${input.seconds}` : undefined;
  const readUnits: Omit<Target, 'holds'>[] = [
    {
      name: 'traffic: read units per request, change-aware cache',
      value: round(input.after.readUnitsPerRequest, 4),
      limit: TRAFFIC_MAX_READ_UNITS,
      unit: 'RU',
    },
    {
      name: 'traffic: read units per request, change-aware / TTL cache',
      value: round(ratio(input.after.readUnitsPerRequest, input.before.readUnitsPerRequest), 4),
      limit: TRAFFIC_MAX_RATIO,
      unit: 'ratio',
    },
  ];
  const targets: Omit<Target, 'holds'>[] = [
    {
      name: 'traffic: requests to the busiest bucket partition, change-aware / TTL cache',
      value: round(ratio(input.after.busiestBucketRps, input.before.busiestBucketRps), 4),
      limit: TRAFFIC_MAX_RATIO,
      unit: 'ratio',
    },
    { name: 'traffic: staleness p99, change-aware cache', value: round(input.after.stalenessP99Ms, 1), limit: STALENESS_MAX_MS, unit: 'ms simulated' },
    { name: 'traffic: responses equal to no state of the table, change-aware cache', value: input.after.inconsistent, limit: 0, unit: 'responses' },
  ];
  if (input.keysSeenWithinMs !== undefined) {
    targets.push({ name: 'traffic: revocation and rotation seen by every authorizer container', value: input.keysSeenWithinMs, limit: STALENESS_MAX_MS, unit: 'ms simulated' });
  }
  return [...readUnits.map((t) => judge(t, short)), ...targets.map((t) => judge(t))];
}

/**
 * Past 20,000 legs: the cold-cache CPU of the no-filter query at `legs` over the same at `baseLegs`,
 * in the same run, at most legs / baseLegs (the cost grows no faster than the data; at 100,000 legs,
 * 5).
 */
export function coldGrowthTarget(legs: number, baseLegs: number, ratio: number): Target {
  const limit = round(legs / baseLegs, 4);
  const value = round(ratio, 4);
  return {
    name: `cold-cache handler CPU time, no-filter query, this size / ${baseLegs} legs (median, same run; limit: the ratio of the sizes)`,
    value,
    limit,
    unit: 'ratio',
    holds: value <= limit,
  };
}

export function gzipTarget(compressedBytes: number, plainBytes: number): Target {
  const value = plainBytes > 0 ? round(compressedBytes / plainBytes, 4) : 0;
  return { name: 'gzip: bytes on the wire of a size=100 page / uncompressed body', value, limit: GZIP_MAX_RATIO, unit: 'ratio', holds: value <= GZIP_MAX_RATIO };
}

/** Loading legs with the airport checks: CPU at most this many times the loader's before them (same run). */
export const IMPORT_CPU_MAX_RATIO = 1.25;

export function importCpuTarget(legs: number, ratio: number): Target {
  return judge(
    {
      name: `loading ${legs} legs: CPU with the airport checks / without (median, same run; stated at 20,000 legs)`,
      value: round(ratio, 3),
      limit: IMPORT_CPU_MAX_RATIO,
      unit: 'ratio',
    },
    belowStatedLegs(legs),
  );
}

/** What the rate-limit simulation measured (bench/rate-limit.ts). */
export interface RateLimitTargetInputs {
  containers: number;
  demandPerSecond: number;
  deviation: number;
  worstWindowDeviation: number;
  burstRefused: number;
  writeUnitsPerRequest: number;
  /** The scenarios of keys starting at once (cold start, pulses), against one token bucket. */
  bursty?: readonly BurstyScenarioFigures[];
}

export interface BurstyScenarioFigures {
  /** What the scenario is, as the target names it. */
  label: string;
  /** Served in the worst 10 s window / (burst + 10 x rate) - 1. */
  worstWindowExcess: number;
  /** Served / served by one token bucket on the same arrivals - 1. */
  longRunDeviation: number;
}

/** Served rate at steady state within 10% of the limit, each 10 s window within 25%. */
export const RATE_LIMIT_MAX_DEVIATION = 0.1;
export const RATE_LIMIT_MAX_WINDOW_DEVIATION = 0.25;
/**
 * Write units the counting adds per request, at one key at 50 requests/s over 20 containers. The
 * listing reads about 0.35 read units per request; a write unit costs five read units on demand
 * ($1.25 and $0.25 per million), so 0.05 write units (0.25 read units' worth) keeps the counting
 * cheaper than the listing.
 */
export const RATE_LIMIT_MAX_WRITE_UNITS = 0.05;

export function rateLimitTargets(input: RateLimitTargetInputs): Target[] {
  const at = `${input.demandPerSecond} req/s over ${input.containers} containers`;
  const targets: Omit<Target, 'holds'>[] = [
    { name: `rate limit: |served rate at steady state / limit - 1|, one key at ${at}`, value: round(input.deviation, 4), limit: RATE_LIMIT_MAX_DEVIATION, unit: 'ratio' },
    { name: 'rate limit: the same, worst 10 s window', value: round(input.worstWindowDeviation, 4), limit: RATE_LIMIT_MAX_WINDOW_DEVIATION, unit: 'ratio' },
    { name: 'rate limit: requests of a burst within the limit refused', value: input.burstRefused, limit: 0, unit: 'requests' },
    { name: `rate limit: write units per request, one key at ${at}`, value: round(input.writeUnitsPerRequest, 4), limit: RATE_LIMIT_MAX_WRITE_UNITS, unit: 'WU' },
    ...(input.bursty ?? []).flatMap((b) => [
      {
        name: `rate limit: ${b.label}: worst 10 s window / (burst + 10 x rate) - 1`,
        value: round(b.worstWindowExcess, 4),
        limit: RATE_LIMIT_MAX_WINDOW_DEVIATION,
        unit: 'ratio',
      },
      {
        name: `rate limit: ${b.label}: |served / one token bucket's on the same requests - 1|`,
        value: round(Math.abs(b.longRunDeviation), 4),
        limit: RATE_LIMIT_MAX_DEVIATION,
        unit: 'ratio',
      },
    ]),
  ];
  return targets.map((t) => ({ ...t, holds: t.value <= t.limit }));
}

/** The MCP search (docs/performance.md, "MCP"): its warm CPU at most this many times the same REST listing's (median, same run). */
export const MCP_MAX_WARM_CPU_RATIO = 1.3;

/** One query of the MCP comparison (bench/mcp.ts): each side's read units per empty-cache request, and its warm CPU median. */
export interface McpTargetInputs {
  name: string;
  restReadUnits: readonly number[];
  mcpReadUnits: readonly number[];
  restCpuMs: number;
  mcpCpuMs: number;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * A `tools/call` of `search_empty_legs` against the same REST listing: the queries whose read units
 * differ (a count, limit 0: the rounds' totals compared), and the worst ratio of warm CPU medians. None
 * when the comparison did not run.
 */
export function mcpTargets(queries: readonly McpTargetInputs[]): Target[] {
  if (queries.length === 0) return [];
  const differ = queries.filter((q) => q.restReadUnits.length !== q.mcpReadUnits.length || Math.abs(sum(q.restReadUnits) - sum(q.mcpReadUnits)) > 1e-9).length;
  const worst = Math.max(...queries.map((q) => q.mcpCpuMs / (q.restCpuMs || Number.MIN_VALUE)));
  return [
    judge({
      name: `MCP: searches whose read units with an empty cache differ from the same REST listing's (of ${queries.length})`,
      value: differ,
      limit: 0,
      unit: 'queries',
    }),
    judge({
      name: "MCP: warm-cache handler CPU time (median) of a tools/call search_empty_legs / the same REST listing's (worst query, same run)",
      value: round(worst, 3),
      limit: MCP_MAX_WARM_CPU_RATIO,
      unit: 'ratio',
    }),
  ];
}
