import { policyWindowSeconds, type RateLimit } from './rate-limit.js';

/** The rate limiter's arithmetic: token buckets, shares, the shared bucket's GCRA instants. */

/** The least share: a container that saw almost none of a key's traffic still refills a little. */
export const MIN_SHARE = 0.01;
/**
 * Intervals a share is learned over: the others' counts land in this container's intervals up to
 * one interval late, so one interval alone can see from none to twice their share of the traffic.
 */
export const SHARE_INTERVALS = 3;

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

/** Slack for instants in epoch ms, exact to about a ten-thousandth of a millisecond (float64). */
export const TAT_SLACK_MS = 0.001;

/**
 * One request's worth in the shared bucket, ms: 1000 / rate rounded down to a 1024th of a ms, so that
 * sums of it on whole-ms instants are exact in float64 (epoch ms are about 2^41).
 */
export function poolCostMs(limit: RateLimit): number {
  return Math.floor((1000 / limit.rate) * 1024) / 1024;
}

/** What the shared bucket holds at `at`, in requests, from its `tat` (0..burst). */
export function poolAvailable(tat: number, at: number, limit: RateLimit): number {
  const costMs = poolCostMs(limit);
  return Math.min(limit.burst, Math.max(0, (at + limit.burst * costMs - Math.max(tat, at) + TAT_SLACK_MS) / costMs));
}

