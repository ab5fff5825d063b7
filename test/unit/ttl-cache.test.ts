import { describe, expect, it } from '@jest/globals';
import { ttlCache } from '../../src/platform/ttl-cache.js';

describe('ttlCache', () => {
  it('serves an entry until its expiry, exactly, on the injected clock (from 0)', () => {
    let t = 0;
    const cache = ttlCache<string>(10, () => t);
    cache.set('a', 'A', 1_000);
    t = 999;
    expect(cache.get('a')).toBe('A');
    t = 1_000;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not keep an entry whose expiry has already passed', () => {
    let t = 5_000;
    const cache = ttlCache<string>(10, () => t);
    cache.set('a', 'A', 5_000);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
    t = 4_000;
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps at most its size, dropping the least recently used', () => {
    const cache = ttlCache<number>(2, () => 0);
    cache.set('one', 1, 10);
    cache.set('two', 2, 10);
    expect(cache.get('one')).toBe(1);
    cache.set('three', 3, 10);
    expect(cache.size).toBe(2);
    expect(cache.get('two')).toBeUndefined();
    expect(cache.get('one')).toBe(1);
    expect(cache.get('three')).toBe(3);
  });

  it('empties on clear', () => {
    const cache = ttlCache<number>(2, () => 0);
    cache.set('one', 1, 10);
    cache.clear();
    expect(cache.get('one')).toBeUndefined();
  });
});
