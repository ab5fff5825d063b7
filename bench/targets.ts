/** The targets of the benchmark (docs/performance.md) and their evaluation. Pure. */

export interface Target {
  name: string;
  value: number;
  limit: number;
  unit: string;
  holds: boolean;
}

/** Read units per request with an empty cache: at most this fraction of the whole-item figure. */
export const READ_UNITS_MAX_FRACTION = 1 / 8;
export const BUNDLE_MAX_BYTES = 300_000;
export const IMPORT_MAX_RATIO = 3;

/** Warm-cache handler p95 limit: 5 ms up to 20,000 legs, 15 ms above (stated for 50,000). */
export function warmP95LimitMs(legs: number): number {
  return legs <= 20_000 ? 5 : 15;
}

export interface QueryFigures {
  name: string;
  /** Measured read units of one request with an empty cache. */
  coldReadUnits: number;
  /** The same request when whole items are read. */
  wholeItemReadUnits: number;
  /** Warm-cache handler latency p95, ms. */
  warmP95Ms: number;
  /** Buckets read that the window does not need. */
  excessBuckets: readonly string[];
}

export interface TargetInputs {
  legs: number;
  queries: readonly QueryFigures[];
  listBundleBytes: number;
  listImportMs: number;
  helloImportMs: number;
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
  const p95Limit = warmP95LimitMs(input.legs);
  const importRatio = input.helloImportMs > 0 ? input.listImportMs / input.helloImportMs : Number.POSITIVE_INFINITY;
  const excess = input.queries.filter((q) => q.excessBuckets.length > 0).length;
  const targets: Omit<Target, 'holds'>[] = [
    {
      name: 'read units per request with an empty cache / whole-item read units (worst query; stated at 20,000 legs)',
      value: round(worstFraction, 4),
      limit: round(READ_UNITS_MAX_FRACTION, 4),
      unit: 'ratio',
    },
    {
      name: `warm-cache handler p95 at ${input.legs} legs (worst query)`,
      value: round(worstP95, 3),
      limit: p95Limit,
      unit: 'ms',
    },
    { name: 'list function bundle size', value: input.listBundleBytes, limit: BUNDLE_MAX_BYTES, unit: 'bytes' },
    {
      name: 'list function import time / hello-world import time',
      value: round(importRatio, 3),
      limit: IMPORT_MAX_RATIO,
      unit: 'ratio',
    },
    { name: 'queries that read a bucket the window does not need', value: excess, limit: 0, unit: 'queries' },
  ];
  return targets.map((t) => ({ ...t, holds: t.value <= t.limit }));
}
