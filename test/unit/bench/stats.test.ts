import { describe, expect, it } from '@jest/globals';
import { median, percentile, summarize } from '../../../bench/stats.js';

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100

  it('is the smallest sample with at least p % of the samples at or below it', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 95)).toBe(95);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile(hundred, 0.5)).toBe(1);
  });

  it('rounds the rank up on small samples', () => {
    const ten = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
    expect(percentile(ten, 95)).toBe(100);
    expect(percentile(ten, 50)).toBe(50);
    expect(percentile(ten, 51)).toBe(60);
    expect(percentile([7], 99)).toBe(7);
  });

  it('is NaN without samples and refuses p outside (0, 100]', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 0)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });
});

describe('summarize', () => {
  it('sorts a copy and reports count, percentiles, mean, min and max', () => {
    const samples = [5, 1, 4, 2, 3];
    const s = summarize(samples);
    expect(s).toEqual({ n: 5, p50: 3, p95: 5, p99: 5, mean: 3, min: 1, max: 5 });
    expect(samples).toEqual([5, 1, 4, 2, 3]);
  });

  it('gives the median of an even count as the lower middle sample', () => {
    expect(median([4, 1, 3, 2])).toBe(2);
  });
});
