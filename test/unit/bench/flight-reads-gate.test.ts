// @dateIndependent: one fixed instant for the legs, the changes and the reads.
import { describe, expect, it } from '@jest/globals';
import { flightReadTargets, measureFlightReads, FLIGHT_BATCH } from '../../../bench/flight-reads.js';
import { watchBenchData } from '../../../bench/watches.js';
import { MAX_BUCKET_READS } from '../../../src/listing/limits.js';

/**
 * The flight watches' reads in the watch benchmark (`npm run bench:watches -- --check`): counts of
 * each batch of changes against their stated bounds (docs/watches.md, "Reads, bounded"), judged as
 * counts, and failing when a count passes its bound.
 */
const NOW = Date.parse('2026-11-27T12:00:00Z');

describe('the flight reads gate', () => {
  it('holds over the demo data (flights re-posted by brokers): each bucket read once per batch, fewer reads than one per leg range', async () => {
    const data = watchBenchData({ watches: 1, legs: 2_000, changes: 4 * FLIGHT_BATCH, today: '2026-11-27', now: NOW, seed: 20_260_301 });
    const figures = await measureFlightReads(data.legs, data.transitions, NOW);
    expect(figures.batches).toBe(Math.ceil(data.transitions.length / FLIGHT_BATCH));
    expect(figures.bucketReadsMax).toBeLessThanOrEqual(MAX_BUCKET_READS);
    expect(figures.rangesPerBatch).toBeGreaterThan(figures.bucketReadsPerBatch);
    expect(figures.legsFetchedPerChange).toBeGreaterThan(0);
    const targets = flightReadTargets(figures);
    expect(targets.map((t) => [t.unit, t.holds, t.notJudged])).toEqual([
      ['reads', true, undefined],
      ['ratio', true, undefined],
    ]);
  }, 60_000);

  it('fails when a batch reads more buckets than the bound, or fetches more legs than its keys allow', () => {
    const figures = { batches: 1, changes: 100, bucketReadsMax: MAX_BUCKET_READS, rangesPerBatch: 40, bucketReadsPerBatch: 8, legsFetchedPerChange: 1, legsFetchedOfBound: 1, offersCapped: 0 };
    expect(flightReadTargets(figures).map((t) => t.holds)).toEqual([true, true]);
    expect(flightReadTargets({ ...figures, bucketReadsMax: MAX_BUCKET_READS + 1 }).map((t) => t.holds)).toEqual([false, true]);
    expect(flightReadTargets({ ...figures, legsFetchedOfBound: 1.01 }).map((t) => t.holds)).toEqual([true, false]);
  });
});
