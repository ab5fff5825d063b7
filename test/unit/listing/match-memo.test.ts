import { describe, expect, it } from '@jest/globals';
import { MatchMemo } from '../../../src/listing/match-memo.js';
import type { IndexEntry } from '../../../src/kernel/index-entry.js';
import { indexEntry } from '../../support/index-entries.js';

function entry(id: string, expiresAt: number): IndexEntry {
  return indexEntry({ id, startDate: '2026-12-01', endDate: '2026-12-02', expiresAt, depCity: '', depIcao: '', depIata: '', arrCity: '', arrIcao: '', arrIata: '' });
}

describe('MatchMemo', () => {
  const bucketA = [entry('a', 5_000), entry('b', 9_000)];
  const bucketB = [entry('c', 7_000)];

  it('returns the memoised matches for the same key and the very same bucket arrays', () => {
    const memo = new MatchMemo();
    const matches = { months: [bucketA[1]!], long: [bucketB[0]!] };
    memo.set('q', [bucketA, bucketB], matches);
    expect(memo.get('q', [bucketA, bucketB], 1_000)).toEqual(matches);
    expect(memo.get('other', [bucketA, bucketB], 1_000)).toBeUndefined();
  });

  it('misses once a bucket read was refreshed (a new array, even with equal contents)', () => {
    const memo = new MatchMemo();
    memo.set('q', [bucketA, bucketB], { months: [], long: [] });
    expect(memo.get('q', [[...bucketA], bucketB], 1_000)).toBeUndefined();
    expect(memo.size).toBe(0);
  });

  it('misses from the moment the first matched leg expires', () => {
    const memo = new MatchMemo();
    memo.set('q', [bucketA, bucketB], { months: [bucketA[1]!], long: [bucketB[0]!] });
    expect(memo.get('q', [bucketA, bucketB], 6_999)).toBeDefined();
    expect(memo.get('q', [bucketA, bucketB], 7_000)).toBeUndefined();
  });

  it('keeps at most its size, dropping the least recently used', () => {
    const memo = new MatchMemo(2);
    memo.set('one', [bucketA], { months: [], long: [] });
    memo.set('two', [bucketA], { months: [], long: [] });
    expect(memo.get('one', [bucketA], 0)).toBeDefined();
    memo.set('three', [bucketA], { months: [], long: [] });
    expect(memo.size).toBe(2);
    expect(memo.get('two', [bucketA], 0)).toBeUndefined();
    expect(memo.get('one', [bucketA], 0)).toBeDefined();
  });
});
