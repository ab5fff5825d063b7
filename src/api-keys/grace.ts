import { ConfigError } from '../errors.js';

/**
 * Grace period after a rotation (docs/api.md, "API keys"): 7 days by default; `--grace` takes a
 * whole number of days, hours or minutes (`7d`, `24h`, `30m`) or `0` (the old key expires at once),
 * at most 90 days: a rotation is meant to retire a key, not to keep two alive for months.
 */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
export const DEFAULT_GRACE_MS = 7 * DAY_MS;
export const MAX_GRACE_MS = 90 * DAY_MS;

const UNIT_MS = { d: DAY_MS, h: HOUR_MS, m: MINUTE_MS } as const;
const GRACE = /^(\d{1,6})([dhm])?$/;

/** Milliseconds of a grace value; a bad value throws a ConfigError naming `setting`. */
export function parseGrace(text: string, setting = '--grace'): number {
  const value = text.trim();
  const match = GRACE.exec(value);
  const amount = match ? Number(match[1]) : NaN;
  const unit = match?.[2] as keyof typeof UNIT_MS | undefined;
  if (!match || (unit === undefined && amount !== 0)) {
    throw new ConfigError(setting, `'${value}' is not a duration: use a whole number of days, hours or minutes (7d, 24h, 30m) or 0`);
  }
  const ms = unit === undefined ? 0 : amount * UNIT_MS[unit];
  if (ms > MAX_GRACE_MS) throw new ConfigError(setting, `'${value}' is longer than the maximum of 90d`);
  return ms;
}

/** `7d`, `24h`, `30m`, `0`: the shortest exact form of a grace period, for messages. */
export function formatGrace(ms: number): string {
  if (ms === 0) return '0';
  if (ms % DAY_MS === 0) return `${ms / DAY_MS}d`;
  if (ms % HOUR_MS === 0) return `${ms / HOUR_MS}h`;
  return `${Math.round(ms / MINUTE_MS)}m`;
}
