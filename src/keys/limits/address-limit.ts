import { LRUCache } from 'lru-cache';
import type { Clock } from '../../clock.js';
import { refilled, secondsUntil } from './bucket.js';
import type { RateLimit } from './rate-limit.js';

/**
 * The authorizer's limit on failed authentications per source address, per container (docs/api-keys.md,
 * "Floods of made-up keys"): a token bucket per address that every refused key or request draws on;
 * an address with no token left is refused before any read, unless its key is one this container verified.
 */
export const DEFAULT_FAILED_AUTH_LIMIT: RateLimit = { rate: 1, burst: 20 };
export const DEFAULT_MAX_ADDRESSES = 10_000;

export interface AddressLimiter {
  /** Seconds until `address` may try an unverified key again; undefined while it may. */
  blockedFor(address: string): number | undefined;
  /** Counts one failed authentication of `address`. */
  fail(address: string): void;
  readonly size: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * The address as the limit counts it: IPv4 whole, IPv6 by its /64 (one host holds a whole /64),
 * an IPv4-mapped IPv6 address as its IPv4. Anything else is counted as given.
 */
export function addressKey(address: string): string {
  const a = address.trim().toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a);
  if (mapped) return mapped[1]!;
  if (!a.includes(':')) return a;
  const [head = '', tail] = a.split('::', 2) as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return a;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

export function createAddressLimiter(
  options: { limit?: RateLimit; now: Clock; maxAddresses?: number },
): AddressLimiter {
  const limit = options.limit ?? DEFAULT_FAILED_AUTH_LIMIT;
  const buckets = new LRUCache<string, Bucket>({ max: options.maxAddresses ?? DEFAULT_MAX_ADDRESSES });
  const refill = (key: string, at: number): Bucket => {
    const b = buckets.get(key) ?? { tokens: limit.burst, at };
    const next = { tokens: refilled(b.tokens, limit, 1, at - b.at), at };
    buckets.set(key, next);
    return next;
  };
  return {
    blockedFor(address) {
      const key = addressKey(address);
      if (!buckets.has(key)) return undefined;
      const b = refill(key, options.now());
      return b.tokens >= 1 ? undefined : secondsUntil(b.tokens, 1, limit, 1);
    },
    fail(address) {
      const key = addressKey(address);
      const b = refill(key, options.now());
      // Refusals count too, down to a debt that one policy window (burst / rate) repays: a
      // sustained flood gets no read, and Retry-After stays within the window.
      b.tokens = Math.max(1 - limit.burst, b.tokens - 1);
    },
    get size() {
      return buckets.size;
    },
  };
}
