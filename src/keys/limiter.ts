import { processClock } from '../clock.js';
import { policyWindowSeconds, type RateLimit } from './rate-limit.js';

/**
 * The per-key rate limiter of the authorizer (docs/api.md, "Rate limits"; the design and its figures:
 * docs/performance.md, "Rate limits across containers").
 *
 * Each container keeps, per key, a token bucket of `burst` tokens that refills at `rate x share`
 * per second, where `share` is the part of the key's traffic this container saw lately: the
 * containers serving one key together refill at `rate`, so a limit holds across containers instead
 * of each container letting `rate` through on its own.
 *
 * The shared state is one counter item per key and UTC day (src/keys/usage.ts). A container does
 * not write per request: it adds what it counted (served and refused) at most once per
 * `syncIntervalMs` (10 s), on its first request for a key, and when the day changes, with one
 * UpdateItem ADD whose answer is the day's totals of all containers. Between two of its writes the
 * day's total grew by `global` requests, of which `own` were its own: `share = own / global`.
 * Refused requests count as demand, so the shares follow where a runaway key's requests land, not
 * what each container let through.
 *
 * - A burst within the limit is never refused: a key that sent nothing to a container for
 *   `idleMs` (the longer of the sync interval and the policy window, burst / rate) has that
 *   container's share reset to 1 and its bucket refilled at the whole rate, so after such a pause
 *   every container holds `burst` tokens and any `burst` requests, however spread, are served.
 *   (The price: when a key's traffic is so thin on each container that each sees a request less
 *   often than `idleMs`, N containers can serve it up to N requests per `idleMs`.)
 * - A key that bursts on N containers at once after being idle may be served up to N x `burst`
 *   once; at steady state the total is `rate` within the figures of the simulation.
 * - The first interval of a key in a container has share 1 (nothing known yet).
 * - When the counter cannot be written (`counter` throws), the container keeps its counts for the
 *   next write and goes on with the share it last learned: each container enforces its local
 *   share, fail open, never refusing because the store is down (`onSyncError` reports it).
 * The clock is injected (`now`): tests and the benchmark's simulation run it on simulated time.
 */
export interface UsageTotals {
  served: number;
  refused: number;
}

/** Adds `add` to the key's counter of `day`; answers the day's totals after the add (all containers). */
export type UsageCounter = (keyId: string, day: string, add: UsageTotals) => Promise<UsageTotals>;

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

export const DEFAULT_SYNC_INTERVAL_MS = 10_000;
export const DEFAULT_MAX_KEYS = 10_000;
/** The least share: a container that saw almost none of a key's traffic still refills a little. */
export const MIN_SHARE = 0.01;

/** The UTC day (yyyy-MM-dd) of an instant. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `own / global`, bounded to MIN_SHARE..1; undefined when `global` says nothing (no growth, or less than own). */
export function shareOf(own: number, global: number): number | undefined {
  if (!(global > 0) || own > global) return undefined;
  return Math.min(1, Math.max(MIN_SHARE, own / global));
}

/** Tokens after refilling `tokens` for `elapsedMs` at `rate x share`, at most `burst`. */
export function refilled(tokens: number, limit: RateLimit, share: number, elapsedMs: number): number {
  return Math.min(limit.burst, tokens + (limit.rate * share * Math.max(0, elapsedMs)) / 1000);
}

/** Whole seconds until the bucket holds `wanted` tokens, at least 1 and at most the policy window. */
export function secondsUntil(tokens: number, wanted: number, limit: RateLimit, share: number): number {
  const seconds = Math.ceil((wanted - tokens) / (limit.rate * share));
  return Math.min(policyWindowSeconds(limit), Math.max(1, Number.isFinite(seconds) ? seconds : 1));
}

interface KeyState {
  tokens: number;
  at: number;
  share: number;
  /** Counts not written yet, by UTC day. */
  pending: Map<string, UsageTotals>;
  lastSyncAt: number;
  /** The day's total (served + refused, all containers) at this container's last write. */
  seen?: { day: string; total: number };
  syncing?: Promise<void>;
}

function addTo(pending: Map<string, UsageTotals>, day: string, add: UsageTotals): void {
  const p = pending.get(day) ?? { served: 0, refused: 0 };
  pending.set(day, { served: p.served + add.served, refused: p.refused + add.refused });
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? processClock;
  const syncIntervalMs = options.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS;
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  const keys = new Map<string, KeyState>();

  function stateOf(keyId: string, limit: RateLimit, at: number): KeyState {
    let s = keys.get(keyId);
    if (!s) {
      if (keys.size >= maxKeys) keys.delete(keys.keys().next().value as string);
      s = { tokens: limit.burst, at, share: 1, pending: new Map(), lastSyncAt: Number.NEGATIVE_INFINITY };
      keys.set(keyId, s);
    }
    return s;
  }

  function learn(s: KeyState, day: string, own: number, total: number): void {
    if (s.seen?.day === day) s.share = shareOf(own, total - s.seen.total) ?? s.share;
    s.seen = { day, total };
  }

  function sync(keyId: string, s: KeyState): Promise<void> {
    if (s.syncing) return s.syncing;
    s.lastSyncAt = now();
    const batch = [...s.pending];
    s.pending = new Map();
    s.syncing = (async () => {
      for (let i = 0; i < batch.length; i++) {
        const [day, add] = batch[i]!;
        try {
          const totals = await options.counter(keyId, day, add);
          learn(s, day, add.served + add.refused, totals.served + totals.refused);
        } catch (err) {
          // Keep what was not written for the next write; go on with the share last learned.
          for (const [d, a] of batch.slice(i)) addTo(s.pending, d, a);
          options.onSyncError?.(keyId, err);
          return;
        }
      }
    })().finally(() => {
      s.syncing = undefined;
    });
    return s.syncing;
  }

  const idleMs = (limit: RateLimit): number => Math.max(syncIntervalMs, policyWindowSeconds(limit) * 1000);

  function due(s: KeyState, at: number): boolean {
    return s.pending.size > 0 && s.syncing === undefined && (at - s.lastSyncAt >= syncIntervalMs || s.pending.size > 1);
  }

  return {
    async check(keyId, limit) {
      const at = now();
      const s = stateOf(keyId, limit, at);
      // After a pause on this container the share it learned says nothing of what comes next.
      if (at - s.at >= idleMs(limit)) s.share = 1;
      s.tokens = refilled(Math.min(s.tokens, limit.burst), limit, s.share, at - s.at);
      s.at = at;
      const allowed = s.tokens >= 1;
      if (allowed) s.tokens -= 1;
      addTo(s.pending, utcDay(at), { served: allowed ? 1 : 0, refused: allowed ? 0 : 1 });
      const retryAfterSeconds = allowed ? 0 : secondsUntil(s.tokens, 1, limit, s.share);
      const decision: LimitDecision = {
        allowed,
        limit,
        remaining: allowed ? Math.floor(s.tokens) : 0,
        resetSeconds: allowed ? secondsUntil(s.tokens, Math.floor(s.tokens) + 1, limit, s.share) : retryAfterSeconds,
        retryAfterSeconds,
      };
      if (due(s, at)) await sync(keyId, s);
      return decision;
    },
    async flush() {
      // Twice: counts made while a write was in flight are written by the second pass.
      for (let pass = 0; pass < 2; pass++) {
        await Promise.all([...keys].filter(([, s]) => s.pending.size > 0 || s.syncing !== undefined).map(([keyId, s]) => sync(keyId, s)));
      }
    },
    shareOf: (keyId) => keys.get(keyId)?.share,
  };
}
