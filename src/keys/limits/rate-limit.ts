import { ConfigError } from '../../errors.js';

/**
 * A key's rate limit (docs/api.md, "Rate limits"): a token bucket of `burst` requests that refills at
 * `rate` requests per second. Keys without a limit of their own have DEFAULT_RATE_LIMIT.
 */
export interface RateLimit {
  /** Requests per second, sustained. */
  readonly rate: number;
  /** Requests served at once by a key that was idle. */
  readonly burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { rate: 10, burst: 20 };
/**
 * The highest limit a key can have: the key `npm start` prints and the load test's keys have it, so
 * that what they measure is the service, not their limit (the limit is enforced all the same).
 */
export const MAX_RATE_LIMIT: RateLimit = { rate: 1000, burst: 10_000 };
export const RATE_BOUNDS = { min: 0.1, max: MAX_RATE_LIMIT.rate } as const;
export const BURST_BOUNDS = { min: 1, max: MAX_RATE_LIMIT.burst } as const;

/** The name of the one quota policy in the RateLimit-Policy and RateLimit fields. */
export const POLICY_NAME = 'per-key';

const RATE = /^\d{1,4}(\.\d{1,2})?$/;
const BURST = /^\d{1,5}$/;

/** `--rate`: requests per second, 0.1-1000, at most two decimals. */
export function parseRate(text: string, setting = '--rate'): number {
  const value = text.trim();
  const n = Number(value);
  if (!RATE.test(value) || n < RATE_BOUNDS.min || n > RATE_BOUNDS.max) {
    throw new ConfigError(setting, `'${value}' must be requests per second, ${RATE_BOUNDS.min}-${RATE_BOUNDS.max} (at most two decimals)`);
  }
  return n;
}

/** `--burst`: a whole number of requests, 1-10000. */
export function parseBurst(text: string, setting = '--burst'): number {
  const value = text.trim();
  const n = Number(value);
  if (!BURST.test(value) || n < BURST_BOUNDS.min || n > BURST_BOUNDS.max) {
    throw new ConfigError(setting, `'${value}' must be a whole number of requests, ${BURST_BOUNDS.min}-${BURST_BOUNDS.max}`);
  }
  return n;
}

/** True when `value` is a limit the commands could have stored (the authorizer trusts nothing else). */
export function isRateLimit(value: unknown): value is RateLimit {
  if (typeof value !== 'object' || value === null) return false;
  const { rate, burst } = value as Record<string, unknown>;
  return (
    typeof rate === 'number' &&
    typeof burst === 'number' &&
    rate >= RATE_BOUNDS.min &&
    rate <= RATE_BOUNDS.max &&
    Number.isInteger(burst) &&
    burst >= BURST_BOUNDS.min &&
    burst <= BURST_BOUNDS.max
  );
}

/**
 * The policy's window in seconds: the time a key's bucket takes to refill from empty, rounded up to
 * a whole second (the field has no fractions), so `q / w` never states more than `rate`.
 */
export function policyWindowSeconds(limit: RateLimit): number {
  return Math.max(1, Math.ceil(limit.burst / limit.rate));
}

/**
 * The RateLimit-Policy field (draft-ietf-httpapi-ratelimit-headers-11, section 3): one quota policy
 * item, a String, with `q` (the burst) and `w` (the refill window).
 */
export function rateLimitPolicyField(limit: RateLimit, name: string = POLICY_NAME): string {
  return `"${name}";q=${limit.burst};w=${policyWindowSeconds(limit)}`;
}

/**
 * The RateLimit field (section 4): `r`, the requests available now, and `t`, the seconds within
 * which no more than `r` can be used (until the next request's worth comes back).
 */
export function rateLimitField(remaining: number, resetSeconds: number, name: string = POLICY_NAME): string {
  return `"${name}";r=${Math.max(0, Math.floor(remaining))};t=${Math.max(0, Math.ceil(resetSeconds))}`;
}

/** `10 req/s, burst 20` as the commands print it. */
export function describeRateLimit(limit: RateLimit): string {
  return `${limit.rate} req/s, burst ${limit.burst}`;
}
