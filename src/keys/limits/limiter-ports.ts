import type { RateLimit } from './rate-limit.js';

/** What the rate limiter needs (the usage store, src/keys/limits/usage.ts) and what it answers (the authorizer). */
export interface UsageTotals {
  served: number;
  refused: number;
}

/** Counts to add, and the last time this container refused the key a request from its own bucket, if it did since its last write. */
export interface UsageWrite extends UsageTotals {
  /** Whole ms (epoch), as PoolRequest.now it is compared with. */
  busyAt?: number;
}

/** Adds `add` to the key's counter of `day`; answers the day's totals after the add (all containers). */
export type UsageCounter = (keyId: string, day: string, add: UsageWrite) => Promise<UsageTotals>;

/**
 * One reservation from a key's shared bucket, kept as GCRA's theoretical arrival time `tat` (epoch
 * ms): the bucket holds `(now + capacityMs - max(tat, now)) / costMs` requests.
 */
export interface PoolRequest {
  /** Whole ms (epoch). */
  now: number;
  /** One request's worth, poolCostMs(limit). */
  costMs: number;
  /** The whole burst's worth: burst x costMs. */
  capacityMs: number;
  /** No reservation while a container refused the key a request from its own bucket within this (ms). */
  quietMs: number;
  /** The `tat` last seen, a hint for the form of the write. */
  tat?: number;
}

export interface PoolAnswer {
  /** True when the request was reserved and `add` written; false: nothing was written. */
  granted: boolean;
  /** Refused because the key is busy (over its limit on some container). */
  busy: boolean;
  /** The day's totals (after the add when granted). */
  totals: UsageTotals;
  /** The bucket's `tat` (after the reservation when granted). */
  tat: number;
  /** Requests served (all containers) since the bucket was last found full, and when that was. */
  servedSinceFull: number;
  fullAt: number;
}

/** Reserves one request from the key's bucket of `day` and adds `add` when it fits; writes nothing otherwise. */
export type UsageReserver = (keyId: string, day: string, add: UsageTotals, pool: PoolRequest) => Promise<PoolAnswer>;

export interface LimitDecision {
  allowed: boolean;
  limit: RateLimit;
  /** Whole requests available after this one (0 when refused). */
  remaining: number;
  /** Seconds within which no more than `remaining` can be used (the RateLimit field's `t`). */
  resetSeconds: number;
  /** For a refusal: seconds until a request may be served again (Retry-After). */
  retryAfterSeconds: number;
}

export interface RateLimiterOptions {
  counter: UsageCounter;
  reserve: UsageReserver;
  /** Clock, epoch ms. */
  now?: () => number;
  /** Least time between two writes of one key's counts by one container. Default 10,000 ms. */
  syncIntervalMs?: number;
  /** Keys remembered per container (the oldest is forgotten, with its unwritten counts). */
  maxKeys?: number;
  /** A failed write of the counter (the limiter goes on, fail open). */
  onSyncError?: (keyId: string, error: unknown) => void;
}

export interface RateLimiter {
  /** Decides one request of `keyId` under `limit`; writes the counts when due. Never throws. */
  check(keyId: string, limit: RateLimit): Promise<LimitDecision>;
  /** Writes every key's unwritten counts now (tests, the simulation, shutdown). */
  flush(): Promise<void>;
  /** The share of `keyId` this container serves (for tests and diagnostics). */
  shareOf(keyId: string): number | undefined;
}

