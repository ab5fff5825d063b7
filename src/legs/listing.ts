import { addDays, monthsBetween } from './dates.js';
import type { ListQuery } from './query.js';
import { LISTING_HORIZON_DAYS, LONG_BUCKET, MAX_BUCKET_SPAN_DAYS, type IndexEntry } from './storage.js';

/**
 * The listing's pure logic: the date window, which index buckets it needs, which legs match, the
 * order, and the page. No I/O and no clock: `now` is passed in.
 */

/** Inclusive date window on the legs' flyable windows; `undefined` bounds are open. */
export interface DateWindow {
  from: string;
  to: string | undefined;
}

/**
 * The query window (docs/api.md, "Date window"), or `null` when it lies wholly in the past (the page
 * is empty). With `depDate` and k = offsetDays: [depDate - k, depDate + k], clipped to start at
 * today (UTC). Without `depDate`: no date filter, only the expiry rule, so the window starts at the
 * earliest local date any time zone can have today (UTC - 1 day) and is open-ended.
 */
export function queryWindow(query: Pick<ListQuery, 'depDate' | 'offsetDays'>, todayUtc: string): DateWindow | null {
  if (query.depDate === undefined) return { from: addDays(todayUtc, -1), to: undefined };
  const from = addDays(query.depDate, -query.offsetDays);
  const to = addDays(query.depDate, query.offsetDays);
  if (to < todayUtc) return null;
  return { from: from < todayUtc ? todayUtc : from, to };
}

/**
 * The index buckets a window needs: every month from the month of (from - MAX_BUCKET_SPAN_DAYS),
 * since a leg that started up to that many days earlier can still overlap, to the month of `to`
 * (or of the listing horizon for an open window), plus the bucket of long-window legs.
 */
export function bucketsFor(window: DateWindow, todayUtc: string): string[] {
  const to = window.to ?? addDays(todayUtc, LISTING_HORIZON_DAYS);
  return [...monthsBetween(addDays(window.from, -MAX_BUCKET_SPAN_DAYS), to), LONG_BUCKET];
}

/**
 * One bucket read: the bucket and the range of startDate it can contribute to the window. In a
 * month bucket a leg lasts at most MAX_BUCKET_SPAN_DAYS, so nothing that started before
 * `from - MAX_BUCKET_SPAN_DAYS` can reach the window; in any bucket nothing that starts after
 * `to` can. A bound is given only where it cuts something off (the first month, the last month,
 * the long bucket); the repository turns it into a key condition on the sort key, so those entries
 * are neither read nor paid for.
 */
export interface BucketRead {
  bucket: string;
  /** Lowest startDate that can match, inclusive; undefined: the whole bucket from its start. */
  from?: string;
  /** Highest startDate that can match, inclusive; undefined: to the bucket's end. */
  to?: string;
}

export function bucketReads(window: DateWindow, todayUtc: string): BucketRead[] {
  const earliestStart = addDays(window.from, -MAX_BUCKET_SPAN_DAYS);
  return bucketsFor(window, todayUtc).map((bucket) => {
    const read: BucketRead = { bucket };
    if (bucket === LONG_BUCKET) {
      if (window.to !== undefined) read.to = window.to;
      return read;
    }
    if (earliestStart > `${bucket}-01`) read.from = earliestStart;
    if (window.to !== undefined && window.to < `${bucket}-31`) read.to = window.to;
    return read;
  });
}

/** True when the leg is expired at `nowMs` (its endDate is before today in its departure zone). */
export function isExpired(entry: Pick<IndexEntry, 'expiresAt'>, nowMs: number): boolean {
  return entry.expiresAt <= nowMs;
}

/** True when the leg is not expired, overlaps the window and passes every city and airport filter. */
export function matches(entry: IndexEntry, query: ListQuery, window: DateWindow, nowMs: number): boolean {
  if (entry.endDate < window.from) return false;
  if (window.to !== undefined && entry.startDate > window.to) return false;
  if (isExpired(entry, nowMs)) return false;
  if (query.depCityName !== undefined && !entry.depCity.includes(query.depCityName)) return false;
  if (query.arrCityName !== undefined && !entry.arrCity.includes(query.arrCityName)) return false;
  const dep = query.depAirportCode;
  if (dep !== undefined && (dep.kind === 'icao' ? entry.depIcao : entry.depIata) !== dep.code) return false;
  const arr = query.arrAirportCode;
  if (arr !== undefined && (arr.kind === 'icao' ? entry.arrIcao : entry.arrIata) !== arr.code) return false;
  return true;
}

/** First index of `entries` (in startDate order) whose startDate is `startDate` or later. */
export function lowerBound(entries: readonly Pick<IndexEntry, 'startDate'>[], startDate: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]!.startDate < startDate) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Appends to `out` the entries of one bucket (in index order) that match, looking only at the
 * startDate range of `read` (the entries may be a cached superset of it).
 */
export function collectMatches(
  entries: readonly IndexEntry[],
  read: Pick<BucketRead, 'from' | 'to'>,
  query: ListQuery,
  window: DateWindow,
  nowMs: number,
  out: IndexEntry[],
): void {
  const to = read.to;
  for (let i = read.from === undefined ? 0 : lowerBound(entries, read.from); i < entries.length; i++) {
    const entry = entries[i]!;
    if (to !== undefined && entry.startDate > to) break;
    if (matches(entry, query, window, nowMs)) out.push(entry);
  }
}

/** Order of the listing: startDate ascending, then id ascending (docs/api.md, "Order and paging"). */
export function compareLegs(a: Pick<IndexEntry, 'startDate' | 'id'>, b: Pick<IndexEntry, 'startDate' | 'id'>): number {
  if (a.startDate !== b.startDate) return a.startDate < b.startDate ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

export interface PageSlice<T> {
  items: T[];
  total: number;
  page: number;
  size: number;
}

export function paginate<T>(all: readonly T[], page: number, size: number): PageSlice<T> {
  const start = (page - 1) * size;
  return { items: start >= all.length ? [] : all.slice(start, start + size), total: all.length, page, size };
}

/**
 * The page of the merge of two lists each in listing order, without merging more than the page
 * needs: the total is the sum of the lengths, and the walk stops at the page's end.
 */
export function pageOfMerged<T extends Pick<IndexEntry, 'startDate' | 'id'>>(
  a: readonly T[],
  b: readonly T[],
  page: number,
  size: number,
): PageSlice<T> {
  if (b.length === 0) return paginate(a, page, size);
  if (a.length === 0) return paginate(b, page, size);
  const total = a.length + b.length;
  const start = (page - 1) * size;
  if (start >= total) return { items: [], total, page, size };
  const end = Math.min(total, start + size);
  const items: T[] = [];
  let i = 0;
  let j = 0;
  for (let k = 0; k < end; k++) {
    const fromA = j >= b.length || (i < a.length && compareLegs(a[i]!, b[j]!) <= 0);
    const item = fromA ? a[i++]! : b[j++]!;
    if (k >= start) items.push(item);
  }
  return { items, total, page, size };
}
