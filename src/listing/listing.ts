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
import { filterTests, type EntryTest, type FilterContext, type ListQuery, type Sort } from './query.js';
import { convertAmount, knowsCurrency, type RateSet } from '../rates/index.js';
import { invalidParameter } from '../errors.js';
import { nearOf, tripOf, type Near, type NearCodes, type Trip } from './nearby.js';
import { lowerBound, placedAt, type IndexEntry, type Side } from '../kernel/index-entry.js';
import { airportReference, type AirportIndex } from '../airports/index.js';
import { LONG_BUCKET, MAX_BUCKET_SPAN_DAYS } from '../kernel/leg-item.js';
import type { SourceFacts } from '../kernel/source.js';
import { confirmedAtOf } from '../kernel/leg/instants.js';

/**
 * The listing's pure logic: the date window, the index buckets it needs, the compiled query (which
 * legs match, their order) and the page; no I/O, no clock. The window's bounds are dates from 0001-01-01 to 9999-12-31, so
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

/** A leg's rank under an order other than the index's: ascending, ties by startDate, then id. */
export type Rank = (entry: IndexEntry) => number;

/**
 * A parsed query compiled once: the one predicate and the one order that the listing (over the
 * index, its caches or the snapshot) and the watches' matcher apply.
 */
export interface CompiledQuery {
  readonly query: ListQuery;
  /** The codes of the nearby search's airports (src/listing/nearby.ts). */
  readonly near: Near;
  /** The trip search, whose `detourOf` every record of the answer carries; undefined without one. */
  readonly trip: Trip | undefined;
  /** The date window on the UTC day `todayUtc` (`queryWindow`); null when it lies wholly in the past. */
  window(todayUtc: string): DateWindow | null;
  /** True when the leg is in the window (`inWindow`: overlaps it, not expired) and passes every filter. */
  matches(entry: IndexEntry, window: DateWindow, nowMs: number): boolean;
  /** The rank of a match under `sort`; undefined: the index's order (startDate, then id). */
  readonly rank: Rank | undefined;
  /** With `maxAgeHours`: the instant (epoch ms) from which a leg no longer matches, by its age; undefined without. */
  readonly matchingUntil: ((entry: IndexEntry) => number) | undefined;
}

/** `maxAgeHours`: when a leg stops matching, just past `hours` after its confirmation (`confirmedAtOf`; NaN: unknown, never matches). */
function ageLimit(hours: number | undefined, sources: SourceFacts | undefined): ((entry: IndexEntry) => number) | undefined {
  if (hours === undefined) return undefined;
  const synced = sources?.lastSyncedAt;
  return (e) => confirmedAtOf(e, synced?.get(e.source)) + hours * 3_600_000 + 1;
}

/**
 * The ranks of the orders `sort` names (src/listing/query.ts, `SORTS`); undefined for the index's
 * order. An order that needs a filter refuses a query without it (INVALID_PARAMETER naming `sort`).
 */
const RANKS: { [S in Sort]: (compiled: Pick<CompiledQuery, 'query' | 'trip'>, converted: FilterContext['converted']) => Rank | undefined } = {
  startDate: () => undefined,
  // The parser refuses `detour` without a trip.
  detour: ({ trip }) => (e) => trip!.detourOf(e)!.extraKm,
  // By the converted amount, legs without one last (docs/api.md, "Prices"); the parser requires currency.
  price: (_compiled, converted) => (e) => converted?.(e) ?? Number.POSITIVE_INFINITY,
  '-price': (_compiled, converted) => (e) => {
    const amount = converted?.(e) ?? null;
    return amount === null ? Number.POSITIVE_INFINITY : -amount;
  },
};

/**
 * A leg's price in `currency` through `rates` (`convertAmount`), or null; `rates` undefined (none
 * loaded): EUR only is known, and nothing converts. Throws INVALID_PARAMETER naming `currency` when the rates do not know it.
 */
export function priceConverter(currency: string, rates: RateSet | undefined): (entry: IndexEntry) => number | null {
  if (!knowsCurrency(rates ?? NO_RATES, currency)) {
    throw invalidParameter('currency', `must be EUR or a currency of the reference rates in force${rates ? ` (${rates.date})` : ''}`);
  }
  if (rates === undefined) return () => null;
  return (e) => (e.currency === '' || Number.isNaN(e.price) ? null : convertAmount(e.price, e.currency, currency, rates));
}

const NO_RATES: RateSet = { date: '', rates: {} };

/**
 * Compiles a parsed query: the filters of one parameter each (`filterTests`), the nearby and trip searches,
 * the date window and the order, prices converted with `rates` (the rates in force), sources judged by
 * `sources` (the registry's facts). Throws
 * INVALID_PARAMETER for an unknown airport or currency; `airports` is
 * called only when the query needs the reference.
 */
export function compileQuery(query: ListQuery, airports: () => AirportIndex = airportReference, rates?: RateSet, sources?: SourceFacts): CompiledQuery {
  const converted = query.currency === undefined ? undefined : priceConverter(query.currency, rates);
  const near = nearOf(query, airports);
  const trip = tripOf(query, airports);
  const tests = filterTests(query, { airports, converted, sources });
  if (near.dep !== undefined) tests.push(placedTest('dep', near.dep));
  if (near.arr !== undefined) tests.push(placedTest('arr', near.arr));
  if (trip !== undefined) tests.push((e) => trip.detourOf(e) !== undefined);
  const rank = RANKS[query.sort ?? 'startDate']({ query, trip }, converted);
  const passes = allOf(tests);
  const until = ageLimit(query.maxAgeHours, sources);
  return {
    query,
    near,
    trip,
    window: (todayUtc) => queryWindow(query, todayUtc),
    matches: (entry, window, nowMs) => inWindow(entry, window, nowMs) && passes(entry) && (until === undefined || nowMs < until(entry)),
    rank,
    matchingUntil: until,
  };
}

const placedTest = (side: Side, codes: NearCodes): EntryTest => (e) => placedAt(e, side, codes);

function allOf(tests: readonly EntryTest[]): EntryTest {
  if (tests.length === 0) return () => true;
  if (tests.length === 1) return tests[0]!;
  return (e) => {
    for (const test of tests) if (!test(e)) return false;
    return true;
  };
}

/**
 * Appends to `out` the entries of one bucket (in index order) that match, looking only at the
 * startDate range of `read` (the entries may be a cached superset of it).
 */
export function collectMatches(
  entries: readonly IndexEntry[],
  read: Pick<BucketRead, 'from' | 'to'>,
  compiled: CompiledQuery,
  window: DateWindow,
  nowMs: number,
  out: IndexEntry[],
): void {
  const to = read.to;
  for (let i = read.from === undefined ? 0 : lowerBound(entries, read.from); i < entries.length; i++) {
    const entry = entries[i]!;
    if (to !== undefined && entry.startDate > to) break;
    if (compiled.matches(entry, window, nowMs)) out.push(entry);
  }
}

/** The matches in the order of `rank` (ascending), ties in the index's order (`compareLegs`). */
export function ranked<T extends Pick<IndexEntry, 'startDate' | 'id'>>(matches: readonly T[], rank: (entry: T) => number): T[] {
  const keyed = matches.map((entry) => ({ entry, key: rank(entry) }));
  keyed.sort((a, b) => a.key - b.key || compareLegs(a.entry, b.entry));
  return keyed.map((k) => k.entry);
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
