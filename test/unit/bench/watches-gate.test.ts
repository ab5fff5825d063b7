// @dateIndependent: one fixed instant for the legs, the watches and the changes.
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { LIMITS_REFERENCE_MS, referenceWorkload } from '../../../bench/calibration.js';
import { MATCH_MAX_REFERENCE_PER_CHANGE, measureWatchMatching, watchMatchingTargets, type WatchMatchingOptions } from '../../../bench/watches.js';

/**
 * The watch matching benchmark's gate (`npm run bench:watches -- --check`, a step of npm test) is a
 * ratio to the reference workload's CPU in the same process: it holds with another process keeping
 * a core busy, and fails when the measured matching is made slower on purpose, by work counted in
 * the same unit (a run of the reference workload every few changes), whatever the machine's speed.
 */
const NOW = Date.parse('2026-11-27T12:00:00Z');
const SMALL: WatchMatchingOptions = { watches: 1_000, legs: 2_000, changes: 240, today: '2026-11-27', now: NOW, seed: 20_260_301 };
/** A run of the reference workload every this many changes: 1 / 40 = 0.025 references per change, twice the limit. */
const EVERY = 40;

const ratioTarget = (targets: ReturnType<typeof watchMatchingTargets>) => targets.find((t) => t.name.includes('reference workload'))!;

describe('the watch matching gate', () => {
  it('is stated as 0.6 ms where the reference workload takes LIMITS_REFERENCE_MS', () => {
    expect(MATCH_MAX_REFERENCE_PER_CHANGE * LIMITS_REFERENCE_MS).toBeCloseTo(0.6, 9);
    expect(1 / EVERY).toBeGreaterThanOrEqual(2 * MATCH_MAX_REFERENCE_PER_CHANGE);
  });

  it('holds with another process keeping a core busy, judges only ratios, and reports the absolute figure with the machine', async () => {
    const busy = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
    try {
      // Let the busy process start before the measurement does.
      await new Promise((r) => setTimeout(r, 300));
      const figures = measureWatchMatching(SMALL);
      const targets = watchMatchingTargets(figures);
      expect(targets.filter((t) => t.notJudged === undefined).map((t) => t.unit)).toEqual(['ratio', 'ratio']);
      expect(targets.every((t) => t.holds)).toBe(true);
      const absolute = targets.find((t) => t.notJudged !== undefined)!;
      expect(absolute).toMatchObject({ unit: 'µs', value: Number(figures.perChangeUs.toFixed(1)) });
      expect(absolute.notJudged).toContain(`${figures.machine.cores} cores`);
    } finally {
      busy.kill();
    }
  }, 120_000);

  it('fails when the measured matching is made slower on purpose', () => {
    const figures = measureWatchMatching({ ...SMALL, extraWork: (k) => void (k % EVERY === 0 && referenceWorkload()) });
    const ratio = ratioTarget(watchMatchingTargets(figures));
    expect(ratio.value).toBeGreaterThan(MATCH_MAX_REFERENCE_PER_CHANGE);
    expect(ratio.holds).toBe(false);
  }, 120_000);
});
