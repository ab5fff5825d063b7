/**
 * The benchmark's own account of which index buckets a request needs, computed from the query
 * window and the data without the listing's code, to check the buckets each request really read.
 * Pure.
 *
 * - `allowed`: the buckets the window can need under the storage rule (a month bucket holds the
 *   legs that start in that UTC month and last at most `maxSpanDays` days; every other leg is in the
 *   long bucket): a month whose legs could overlap the window, and the long bucket.
 * - `required`: the buckets that hold at least one leg of the data that the request must return.
 * A request that reads a bucket outside `allowed` reads what the window does not need; one that
 * misses a bucket of `required` loses legs.
 */
export interface Window {
  from: string;
  /** Inclusive; undefined: open-ended. */
  to: string | undefined;
}

export interface BucketRules {
  /** Latest start a leg may have (today + listing horizon): the end of an open window. */
  horizonEnd: string;
  maxSpanDays: number;
  longBucket: string;
}

export interface BucketCheck {
  queried: string[];
  allowed: string[];
  required: string[];
  /** Read but not allowed by the window. */
  excess: string[];
  /** Required but not read. */
  missing: string[];
}

const DAY_MS = 86_400_000;
const dayOf = (date: string): number => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
const dateOf = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * The query window (docs/api.md, "Date window"), written again here: [depDate - k, depDate + k]
 * clipped to start today (UTC), null when wholly in the past; without depDate, from the earliest
 * local date any zone can have today (UTC - 1 day), open-ended.
 */
export function windowOf(depDate: string | undefined, offsetDays: number, todayUtc: string): Window | null {
  if (depDate === undefined) return { from: dateOf(dayOf(todayUtc) - 1), to: undefined };
  const to = dateOf(dayOf(depDate) + offsetDays);
  if (to < todayUtc) return null;
  const from = dateOf(dayOf(depDate) - offsetDays);
  return { from: from < todayUtc ? todayUtc : from, to };
}

/** Every UTC month bucket whose legs could overlap the window, then the long bucket. */
export function allowedBuckets(window: Window, rules: BucketRules): string[] {
  const from = dayOf(window.from);
  const to = dayOf(window.to ?? rules.horizonEnd);
  const out: string[] = [];
  // Candidate months: generously around the window, each kept only if the rule allows it.
  const first = new Date((from - rules.maxSpanDays - 62) * DAY_MS);
  for (let y = first.getUTCFullYear(), m = first.getUTCMonth(); ; m++) {
    const start = Date.UTC(y, m, 1) / DAY_MS;
    if (start > to) break;
    const end = Date.UTC(y, m + 1, 1) / DAY_MS - 1;
    // A leg starting in [start, end] ends by end + maxSpanDays: it can overlap [from, to] only if
    // the month starts by `to` and could still run at `from`.
    if (end + rules.maxSpanDays >= from) out.push(dateOf(start).slice(0, 7));
  }
  out.push(rules.longBucket);
  return out;
}

export function checkBuckets(queried: readonly string[], allowed: readonly string[], required: Iterable<string>): BucketCheck {
  const q = [...new Set(queried)].sort();
  const a = new Set(allowed);
  const r = [...new Set(required)].sort();
  return {
    queried: q,
    allowed: [...allowed],
    required: r,
    excess: q.filter((b) => !a.has(b)),
    missing: r.filter((b) => !q.includes(b)),
  };
}
