import {
  firstDayOfMonth,
  fromEpochDay,
  lastDayOfMonth,
  MAX_EPOCH_DAY,
  MIN_EPOCH_DAY,
  monthIndexOf,
  monthName,
  toEpochDay,
} from '../kernel/dates.js';
import { MAX_BUCKET_READS, MAX_SEGMENTS_PER_BUCKET } from './limits.js';
import { HORIZON_DAYS, inWindow, unfilteredWindow, type DateWindow } from '../kernel/listed.js';
import type { ListQuery } from './query.js';
import type { Near } from './nearby.js';
import { cityIncludes, hasCode, lowerBound, placedAt, type IndexEntry } from '../kernel/index-entry.js';
import { LONG_BUCKET, MAX_BUCKET_SPAN_DAYS } from '../kernel/leg-item.js';

/**
 * The listing's pure logic: the date window, the index buckets it needs, which legs match, the order
 * and the page; no I/O, no clock. The window's bounds are dates from 0001-01-01 to 9999-12-31, so
 * `matches` compares them with the legs' dates as strings (docs/storage.md, "Dates").
 */

/**
 * The query window (docs/api.md, "Date window"), or `null` when it lies wholly in the past: with
 * `depDate` and k = offsetDays, [depDate - k, depDate + k] starting today (UTC) at the earliest;
 * without, `unfilteredWindow`. Either way it ends at the listing horizon at the latest.
 */
export function queryWindow(query: Pick<ListQuery, 'depDate' | 'offsetDays'>, todayUtc: string): DateWindow | null {
  if (query.depDate === undefined) return unfilteredWindow(todayUtc);
  const today = toEpochDay(todayUtc);
  const last = Math.min(today + HORIZON_DAYS, MAX_EPOCH_DAY);
  const day = toEpochDay(query.depDate);
  if (day + query.offsetDays < today) return null;
  const from = Math.min(Math.max(day - query.offsetDays, today), MAX_EPOCH_DAY);
  return { from: fromEpochDay(from), to: fromEpochDay(Math.min(day + query.offsetDays, last)) };
}

/**
 * One bucket read: the bucket and the range of startDate that can reach the window (from
 * `from - MAX_BUCKET_SPAN_DAYS` in a month bucket, to `to`), a bound given only where it cuts something
 * off; the repository reads it as a key condition (docs/performance.md, "The design in a paragraph").
 */
export interface BucketRead {
  bucket: string;
  /** Lowest startDate that can match, inclusive; undefined: the whole bucket from its start. */
  from?: string;
  /** Highest startDate that can match, inclusive; undefined: to the bucket's end. */
  to?: string;
}

/**
 * The reads a window needs, once clipped to [today - 1, horizon]: every month from the month of
 * (from - MAX_BUCKET_SPAN_DAYS) to the month of `to`, then the long bucket up to `to`. It throws
 * rather than plan more than MAX_BUCKET_READS (docs/performance.md, "Bounded work per request").
 */
export function bucketReads(window: DateWindow, todayUtc: string): BucketRead[] {
  const today = toEpochDay(todayUtc);
  const from = Math.max(toEpochDay(window.from), today - 1, MIN_EPOCH_DAY);
  const to = Math.min(toEpochDay(window.to), today + HORIZON_DAYS, MAX_EPOCH_DAY);
  const reads: BucketRead[] = [];
  const earliestStart = Math.max(from - MAX_BUCKET_SPAN_DAYS, MIN_EPOCH_DAY);
  if (earliestStart <= to) {
    const first = monthIndexOf(earliestStart);
    const last = monthIndexOf(to);
    if (last - first + 2 > MAX_BUCKET_READS) {
      throw new RangeError(`planned ${last - first + 2} bucket reads, more than ${MAX_BUCKET_READS}`);
    }
    for (let month = first; month <= last; month++) {
      const read: BucketRead = { bucket: monthName(month) };
      if (earliestStart > firstDayOfMonth(month)) read.from = fromEpochDay(earliestStart);
      if (to < lastDayOfMonth(month)) read.to = fromEpochDay(to);
      reads.push(read);
    }
  }
  reads.push({ bucket: LONG_BUCKET, to: fromEpochDay(to) });
  return reads;
}

/** A range of startDate, both ends inclusive; an absent end is open. */
export interface DateRange {
  from?: string | undefined;
  to?: string | undefined;
}

const MONTH_BUCKET = /^(\d{4})-(\d{2})$/;

/** The last startDate a bucket can hold in `range`: its `to`, else a month bucket's last day; else unknown. */
function lastStartOf(bucket: string, range: DateRange): number | undefined {
  if (range.to !== undefined) return toEpochDay(range.to);
  const month = MONTH_BUCKET.exec(bucket);
  return month ? lastDayOfMonth(Number(month[1]) * 12 + Number(month[2]) - 1) : undefined;
}

/**
 * The rest of a bucket read after its first page, split by startDate into at most
 * MAX_SEGMENTS_PER_BUCKET segments covering [resumeStart, range end] exactly (docs/storage.md).
 */
export function segmentsAfter(bucket: string, range: DateRange, firstStart: string, resumeStart: string): DateRange[] {
  const last = lastStartOf(bucket, range);
  const resume = toEpochDay(resumeStart);
  if (last === undefined || last <= resume) return [{ from: resumeStart, to: range.to }];
  const covered = Math.max(1, resume - toEpochDay(firstStart) + 1);
  const left = last - resume + 1;
  const count = Math.min(MAX_SEGMENTS_PER_BUCKET, left, Math.ceil(left / covered));
  const segments: DateRange[] = [];
  for (let i = 0; i < count; i++) {
    const start = resume + Math.floor((left * i) / count);
    const end = resume + Math.floor((left * (i + 1)) / count) - 1;
    segments.push({ from: i === 0 ? resumeStart : fromEpochDay(start), to: i === count - 1 ? range.to : fromEpochDay(end) });
  }
  return segments;
}

/** The buckets of `bucketReads`, in order. */
export function bucketsFor(window: DateWindow, todayUtc: string): string[] {
  return bucketReads(window, todayUtc).map((r) => r.bucket);
}

/**
 * True when the leg is in the window (`inWindow`: overlaps it, not expired) and passes every seat,
 * category, city, airport and nearby filter (`near`: the codes of the airports within the radius,
 * src/listing/nearby.ts). Unknown seats (0) and an unknown category (0) match no such filter.
 */
export function matches(entry: IndexEntry, query: ListQuery, window: DateWindow, nowMs: number, near: Near = {}): boolean {
  if (!inWindow(entry, window, nowMs)) return false;
  if (query.minSeats !== undefined && entry.seats < query.minSeats) return false;
  if (query.aircraftType !== undefined && (entry.category & query.aircraftType) === 0) return false;
  if (query.depCityName !== undefined && !cityIncludes(entry, 'dep', query.depCityName)) return false;
  if (query.arrCityName !== undefined && !cityIncludes(entry, 'arr', query.arrCityName)) return false;
  const dep = query.depAirportCode;
  if (dep !== undefined && !hasCode(entry, 'dep', dep.kind, dep.code)) return false;
  const arr = query.arrAirportCode;
  if (arr !== undefined && !hasCode(entry, 'arr', arr.kind, arr.code)) return false;
  if (near.dep !== undefined && !placedAt(entry, 'dep', near.dep)) return false;
  if (near.arr !== undefined && !placedAt(entry, 'arr', near.arr)) return false;
  return true;
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
  near: Near = {},
): void {
  const to = read.to;
  for (let i = read.from === undefined ? 0 : lowerBound(entries, read.from); i < entries.length; i++) {
    const entry = entries[i]!;
    if (to !== undefined && entry.startDate > to) break;
    if (matches(entry, query, window, nowMs, near)) out.push(entry);
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
