import { processClock } from '../../clock.js';
import { policyWindowSeconds, type RateLimit } from './rate-limit.js';
import { MIN_SHARE, poolAvailable, poolCostMs, refilled, secondsUntil, SHARE_INTERVALS, shareOf, utcDay } from './bucket.js';
import type { LimitDecision, PoolAnswer, RateLimiter, RateLimiterOptions, UsageTotals } from './limiter-ports.js';

/**
 * The per-key rate limiter: each request from the key's shared bucket (`reserve`) while the key is new
 * or back from a pause, then from this container's own bucket at its learned share, counts written
 * (`counter`) at most once per `syncIntervalMs`, failing open. Design: docs/api-keys.md, "Rate limits and usage".
 */

export const DEFAULT_SYNC_INTERVAL_MS = 10_000;
export const DEFAULT_MAX_KEYS = 10_000;
/** A pool episode: the container reserves each request from the key's shared bucket. */
interface PoolEpisode {
  startedAt: number;
  /** No reservation before this instant (the bucket said when its next request's worth comes back). */
  waitUntil: number;
  /** Of the requests served since the bucket was last full (`since`, as last answered), this container's. */
  own: number;
  since?: number;
  /** The instant the bucket was last found full (the answers' `fullAt`), and its day. */
  fullAt?: number;
  day?: string;
}

interface KeyState {
  tokens: number;
  at: number;
  /** Undefined until learned (a new container). */
  share: number | undefined;
  /** Set while the container serves the key from the shared bucket; the last one, once it ended. */
  pool?: PoolEpisode;
  ended?: PoolEpisode;
  /** The shared bucket's `tat` as last seen. */
  tat?: number;
  /** The last time this container refused the key a request from its own bucket. */
  refusedAt?: number;
  /** Counts not written yet, by UTC day. */
  pending: Map<string, UsageTotals>;
  lastSyncAt: number;
  /** The day's total (served + refused, all containers) at this container's last write. */
  seen?: { day: string; total: number };
  /** The last SHARE_INTERVALS intervals between two writes: own requests written, the total's growth. */
  intervals: { own: number; global: number }[];
  /** The next write only sets `seen` (the first after a pool episode: the others' counts of it land later). */
  baselineOnly: boolean;
  syncing?: Promise<void>;
}

function addTo(pending: Map<string, UsageTotals>, day: string, add: UsageTotals): void {
  const p = pending.get(day) ?? { served: 0, refused: 0 };
  pending.set(day, { served: p.served + add.served, refused: p.refused + add.refused });
}

const newEpisode = (at: number): PoolEpisode => ({ startedAt: at, waitUntil: Number.NEGATIVE_INFINITY, own: 0 });

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? processClock;
  const syncIntervalMs = options.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS;
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  const keys = new Map<string, KeyState>();

  function stateOf(keyId: string, at: number): KeyState {
    let s = keys.get(keyId);
    if (!s) {
      if (keys.size >= maxKeys) keys.delete(keys.keys().next().value as string);
      s = { tokens: 0, at, share: undefined, pool: newEpisode(at), pending: new Map(), lastSyncAt: Number.NEGATIVE_INFINITY, intervals: [], baselineOnly: false };
      keys.set(keyId, s);
    }
    return s;
  }

  function learn(s: KeyState, day: string, own: number, total: number): void {
    if (s.seen?.day !== day) s.intervals = [];
    else if (s.baselineOnly) s.baselineOnly = false;
    else if (total - s.seen.total >= own) {
      s.intervals = [...s.intervals.slice(1 - SHARE_INTERVALS), { own, global: total - s.seen.total }];
      const sum = s.intervals.reduce((a, i) => ({ own: a.own + i.own, global: a.global + i.global }), { own: 0, global: 0 });
      s.share = shareOf(sum.own, sum.global) ?? s.share;
    }
    s.seen = { day, total };
  }

  function sync(keyId: string, s: KeyState): Promise<void> {
    if (s.syncing) return s.syncing;
    // A refusal on a share still being learned (the first interval after the shared bucket) says little.
    const busyAt = !s.baselineOnly && s.refusedAt !== undefined && s.refusedAt >= s.lastSyncAt ? Math.floor(s.refusedAt) : undefined;
    s.lastSyncAt = now();
    const batch = [...s.pending];
    s.pending = new Map();
    s.syncing = (async () => {
      for (let i = 0; i < batch.length; i++) {
        const [day, add] = batch[i]!;
        try {
          const totals = await options.counter(keyId, day, busyAt !== undefined && day === utcDay(busyAt) ? { ...add, busyAt } : add);
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

  /**
   * Ends the pool episode. Its share: what it was served of what the bucket served since it was last
   * full (all containers that started or came back at once drew from it alike); its bucket starts
   * with that share of what the shared bucket holds.
   */
  function endEpisode(s: KeyState, at: number, available: number): void {
    const e = s.pool!;
    s.share = (e.since !== undefined ? shareOf(e.own, e.since) : undefined) ?? s.share ?? MIN_SHARE;
    s.tokens = available * s.share;
    s.at = at;
    s.pool = undefined;
    s.ended = e;
    s.intervals = [];
    s.baselineOnly = true;
  }

  function decision(allowed: boolean, limit: RateLimit, tokens: number, share: number): LimitDecision {
    const retryAfterSeconds = allowed ? 0 : secondsUntil(tokens, 1, limit, share);
    return {
      allowed,
      limit,
      remaining: allowed ? Math.floor(tokens) : 0,
      resetSeconds: allowed ? secondsUntil(tokens, Math.floor(tokens) + 1, limit, share) : retryAfterSeconds,
      retryAfterSeconds,
    };
  }

  /** One request in a pool episode. */
  async function fromPool(keyId: string, s: KeyState, limit: RateLimit, at: number): Promise<LimitDecision> {
    const e = s.pool!;
    const day = utcDay(at);
    if (e.since !== undefined && at - e.startedAt >= idleMs(limit)) {
      endEpisode(s, at, s.tat === undefined ? 0 : poolAvailable(s.tat, at, limit));
      return fromBucket(keyId, s, limit, at);
    }
    if (at < e.waitUntil) {
      s.at = at;
      addTo(s.pending, day, { served: 0, refused: 1 });
      return decision(false, limit, 1 - (e.waitUntil - at) / poolCostMs(limit), 1);
    }
    if (s.syncing) await s.syncing;
    const add = { ...(s.pending.get(day) ?? { served: 0, refused: 0 }) };
    add.served += 1;
    s.pending.delete(day);
    const costMs = poolCostMs(limit);
    let answer: PoolAnswer;
    try {
      const pool = { now: Math.floor(at), costMs, capacityMs: limit.burst * costMs, quietMs: idleMs(limit) };
      answer = await options.reserve(keyId, day, add, { ...pool, ...(s.tat !== undefined ? { tat: s.tat } : {}) });
    } catch (err) {
      // Fail open: serve from the local bucket, on the share last learned (a new container: all of it).
      addTo(s.pending, day, { served: add.served - 1, refused: add.refused });
      options.onSyncError?.(keyId, err);
      if (s.pool === e) {
        s.pool = undefined;
        s.share ??= 1;
        s.tokens = limit.burst;
        s.at = at;
      }
      return fromBucket(keyId, s, limit, at);
    }
    s.at = at;
    s.tat = answer.tat;
    // The bucket was found full again since the last answer (or a new day): count afresh.
    if (e.day !== day || e.fullAt !== answer.fullAt) e.own = 0;
    e.day = day;
    e.fullAt = answer.fullAt;
    e.since = answer.servedSinceFull;
    if (answer.granted) {
      e.own++;
      s.lastSyncAt = at;
      s.seen = { day, total: answer.totals.served + answer.totals.refused };
    } else {
      addTo(s.pending, day, { served: add.served - 1, refused: add.refused + 1 });
      // A `tat` further than a burst ahead is another clock's: wait a burst's worth at most.
      e.waitUntil = Math.min(answer.tat - (limit.burst - 1) * costMs, at + limit.burst * costMs);
    }
    // The key is over its limit somewhere: it has no burst to draw; on with the share last learned.
    const available = answer.busy ? 0 : poolAvailable(answer.tat, at, limit);
    if (answer.busy && s.pool === e) e.since = undefined;
    // The bucket is empty, or has served a burst since it was full: the burst is over.
    if (s.pool === e && (available < 1 || answer.servedSinceFull >= limit.burst || at - e.startedAt >= idleMs(limit))) endEpisode(s, at, available);
    // An answer to a request decided at the same time, after the episode ended: the share with it.
    else if (s.ended === e && !s.pool && e.since !== undefined) s.share = shareOf(e.own, e.since) ?? s.share;
    if (answer.granted) return decision(true, limit, available, 1);
    // Refused: when the container's own bucket has the next request's worth, if the episode ended.
    return s.pool ? decision(false, limit, available - Math.floor(available), 1) : decision(false, limit, s.tokens, s.share ?? MIN_SHARE);
  }

  /** One request from the local bucket (share mode). */
  async function fromBucket(keyId: string, s: KeyState, limit: RateLimit, at: number): Promise<LimitDecision> {
    const share = s.share ?? MIN_SHARE;
    s.tokens = refilled(Math.min(s.tokens, limit.burst), limit, share, at - s.at);
    s.at = at;
    const allowed = s.tokens >= 1;
    if (allowed) s.tokens -= 1;
    else s.refusedAt = at;
    addTo(s.pending, utcDay(at), { served: allowed ? 1 : 0, refused: allowed ? 0 : 1 });
    const result = decision(allowed, limit, s.tokens, share);
    if (due(s, at)) await sync(keyId, s);
    return result;
  }

  return {
    async check(keyId, limit) {
      const at = now();
      const s = stateOf(keyId, at);
      // After a pause on this container, its bucket says nothing of the key: back to the shared one.
      if (at - s.at >= idleMs(limit)) s.pool = newEpisode(at);
      return s.pool ? fromPool(keyId, s, limit, at) : fromBucket(keyId, s, limit, at);
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
