import type { Clock } from '../../clock.js';
import { ttlCache } from '../../platform/ttl-cache.js';
import type { LimitDecision, RateLimiter } from './limiter-ports.js';
import type { RateLimit } from './rate-limit.js';
import { DEFAULT_CLIENT_RATE_LIMIT } from './client-limit.js';

/**
 * The per-client limit on the authorizer's path: each client's limit cached per container for at
 * most `ttlMs` (and emptied when the keys version moves), its requests counted by the same limiter
 * as a key's, under the client's id. A failed read applies the default (logged by `onReadError`).
 */
export interface ClientCheck {
  check(clientId: string): Promise<LimitDecision>;
  clear(): void;
}

export interface ClientCheckOptions {
  limiter: RateLimiter;
  read: (clientId: string) => Promise<RateLimit | undefined>;
  now: Clock;
  /** Longest use of a client's limit read earlier: the revocation bound, 10 s. */
  ttlMs: number;
  maxEntries: number;
  onReadError?: (clientId: string, error: unknown) => void;
}

export function createClientCheck(options: ClientCheckOptions): ClientCheck {
  const limits = ttlCache<RateLimit>(options.maxEntries, options.now);
  async function limitOf(clientId: string): Promise<RateLimit> {
    const cached = limits.get(clientId);
    if (cached) return cached;
    const readAt = options.now();
    try {
      const limit = (await options.read(clientId)) ?? DEFAULT_CLIENT_RATE_LIMIT;
      limits.set(clientId, limit, readAt + options.ttlMs);
      return limit;
    } catch (err) {
      options.onReadError?.(clientId, err);
      return DEFAULT_CLIENT_RATE_LIMIT;
    }
  }
  return {
    async check(clientId) {
      return options.limiter.check(clientId, await limitOf(clientId));
    },
    clear: () => limits.clear(),
  };
}
