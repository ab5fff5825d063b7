import { describe, expect, it } from '@jest/globals';
import { allowedBuckets, checkBuckets, windowOf } from '../../../bench/buckets.js';

const rules = { horizonEnd: '2027-11-22', maxSpanDays: 28, longBucket: 'long' };

describe('windowOf', () => {
  it('is depDate ± offset, clipped to today, null when wholly past, open without depDate', () => {
    expect(windowOf('2026-12-05', 3, '2026-11-21')).toEqual({ from: '2026-12-02', to: '2026-12-08' });
    expect(windowOf('2026-11-20', 3, '2026-11-21')).toEqual({ from: '2026-11-21', to: '2026-11-23' });
    expect(windowOf('2026-11-10', 0, '2026-11-21')).toBeNull();
    expect(windowOf(undefined, 0, '2026-11-21')).toEqual({ from: '2026-11-20', to: undefined });
  });
});

describe('allowedBuckets', () => {
  it('allows the month of the window alone when no leg of the month before can reach it', () => {
    // From March 31, 28 days back is March 3: February's legs end by March 28 at the latest.
    expect(allowedBuckets({ from: '2027-03-31', to: '2027-03-31' }, rules)).toEqual(['2027-03', 'long']);
  });

  it('allows the month before when a leg started there can still be flying', () => {
    // A leg starting January 31 can last until February 28.
    expect(allowedBuckets({ from: '2027-02-28', to: '2027-03-02' }, rules)).toEqual(['2027-01', '2027-02', '2027-03', 'long']);
    expect(allowedBuckets({ from: '2027-03-01', to: '2027-03-02' }, rules)).toEqual(['2027-02', '2027-03', 'long']);
  });

  it('allows every month to the horizon for an open window', () => {
    const buckets = allowedBuckets({ from: '2026-11-20', to: undefined }, rules);
    expect(buckets[0]).toBe('2026-10');
    expect(buckets.at(-2)).toBe('2027-11');
    expect(buckets).toHaveLength(15);
  });
});

describe('checkBuckets', () => {
  it('reports the buckets read beyond the allowed ones and the needed ones not read', () => {
    const check = checkBuckets(['2027-01', '2027-02', '2027-02', 'long', '2027-05'], ['2027-01', '2027-02', 'long'], ['2027-02', '2027-03']);
    expect(check.queried).toEqual(['2027-01', '2027-02', '2027-05', 'long']);
    expect(check.excess).toEqual(['2027-05']);
    expect(check.missing).toEqual(['2027-03']);
  });

  it('is clean when the reads are within the window and cover every match', () => {
    const check = checkBuckets(['2027-02', 'long'], ['2027-01', '2027-02', 'long'], ['2027-02']);
    expect(check.excess).toEqual([]);
    expect(check.missing).toEqual([]);
  });
});
