import { describe, expect, it } from '@jest/globals';
import { evaluateTargets, readUnitFraction, warmP95LimitMs, type TargetInputs } from '../../../bench/targets.js';

const base: TargetInputs = {
  legs: 20_000,
  queries: [
    { name: 'a', coldReadUnits: 100, wholeItemReadUnits: 1000, warmP95Ms: 2, excessBuckets: [] },
    { name: 'b', coldReadUnits: 50, wholeItemReadUnits: 500, warmP95Ms: 4, excessBuckets: [] },
  ],
  listBundleBytes: 250_000,
  listImportMs: 90,
  helloImportMs: 40,
};

const byUnit = (targets: ReturnType<typeof evaluateTargets>, fragment: string) => targets.find((t) => t.name.includes(fragment))!;

describe('evaluateTargets', () => {
  it('gives one target per point of the issue, all holding within the limits', () => {
    const targets = evaluateTargets(base);
    expect(targets).toHaveLength(5);
    expect(targets.every((t) => t.holds)).toBe(true);
    for (const t of targets) expect(Object.keys(t).sort()).toEqual(['holds', 'limit', 'name', 'unit', 'value']);
  });

  it('judges read units on the worst query against 1/8 of the whole-item figure', () => {
    const t = byUnit(
      evaluateTargets({
        ...base,
        queries: [...base.queries, { name: 'c', coldReadUnits: 130, wholeItemReadUnits: 1000, warmP95Ms: 1, excessBuckets: [] }],
      }),
      'read units',
    );
    expect(t.value).toBe(0.13);
    expect(t.limit).toBe(0.125);
    expect(t.holds).toBe(false);
  });

  it('limits warm p95 to 5 ms up to 20,000 legs and 15 ms above', () => {
    expect(warmP95LimitMs(5_000)).toBe(5);
    expect(warmP95LimitMs(20_000)).toBe(5);
    expect(warmP95LimitMs(50_000)).toBe(15);
    const slow = { ...base, queries: base.queries.map((q) => ({ ...q, warmP95Ms: 6 })) };
    expect(byUnit(evaluateTargets(slow), 'p95').holds).toBe(false);
    expect(byUnit(evaluateTargets({ ...slow, legs: 50_000 }), 'p95').holds).toBe(true);
  });

  it('limits the bundle to 300 kB and its import time to 3 times the hello-world one', () => {
    expect(byUnit(evaluateTargets({ ...base, listBundleBytes: 300_001 }), 'bundle size').holds).toBe(false);
    expect(byUnit(evaluateTargets({ ...base, listBundleBytes: 300_000 }), 'bundle size').holds).toBe(true);
    const ratio = byUnit(evaluateTargets({ ...base, listImportMs: 121, helloImportMs: 40 }), 'import time');
    expect(ratio.value).toBe(3.025);
    expect(ratio.holds).toBe(false);
  });

  it('counts the queries that read a bucket the window does not need', () => {
    const t = byUnit(
      evaluateTargets({ ...base, queries: [{ ...base.queries[0]!, excessBuckets: ['2027-01'] }, base.queries[1]!] }),
      'bucket',
    );
    expect(t.value).toBe(1);
    expect(t.holds).toBe(false);
  });
});

describe('readUnitFraction', () => {
  it('is cold / whole, 0 when nothing is read, infinite when only the whole-item figure is 0', () => {
    expect(readUnitFraction(10, 80)).toBe(0.125);
    expect(readUnitFraction(0, 0)).toBe(0);
    expect(readUnitFraction(1, 0)).toBe(Number.POSITIVE_INFINITY);
  });
});
