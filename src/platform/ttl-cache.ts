import { LRUCache } from 'lru-cache';

/**
 * A least-recently-used map of at most `maxEntries`, each entry with its own expiry on the caller's
 * clock (epoch ms): an entry is gone from `expiresAt` on, exactly (docs/api-keys.md, "What the
 * authorizer caches, and for how long").
 */
export interface TtlCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V, expiresAt: number): void;
  readonly size: number;
  clear(): void;
}

export function ttlCache<V extends NonNullable<unknown>>(maxEntries: number, now: () => number): TtlCache<V> {
  const cache = new LRUCache<string, { value: V; expiresAt: number }>({ max: maxEntries, ttlResolution: 0, perf: { now } });
  return {
    get(key) {
      const entry = cache.get(key);
      if (entry === undefined) return undefined;
      if (now() < entry.expiresAt) return entry.value;
      cache.delete(key);
      return undefined;
    },
    set(key, value, expiresAt) {
      const ttl = expiresAt - now();
      if (ttl > 0) cache.set(key, { value, expiresAt }, { ttl });
      else cache.delete(key);
    },
    get size() {
      return cache.size;
    },
    clear: () => cache.clear(),
  };
}
