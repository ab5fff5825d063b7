import { addDays, dateInZone, monthsBetween } from './dates.js';
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
 * The query window of decisions.md section 2, or `null` when it lies wholly in the past (the page
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

/** Today's date in each zone, computed once per request. */
export class LocalToday {
  private readonly byZone = new Map<string, string>();
  constructor(private readonly now: Date) {}
  in(timeZone: string): string {
    let d = this.byZone.get(timeZone);
    if (d === undefined) {
      try {
        d = dateInZone(this.now, timeZone);
      } catch {
        d = dateInZone(this.now, 'UTC');
      }
      this.byZone.set(timeZone, d);
    }
    return d;
  }
}

export function isExpired(entry: Pick<IndexEntry, 'endDate' | 'depTimezone'>, today: LocalToday): boolean {
  return entry.endDate < today.in(entry.depTimezone);
}

/** True when the leg is not expired, overlaps the window and passes every city and airport filter. */
export function matches(entry: IndexEntry, query: ListQuery, window: DateWindow, today: LocalToday): boolean {
  if (entry.endDate < window.from) return false;
  if (window.to !== undefined && entry.startDate > window.to) return false;
  if (isExpired(entry, today)) return false;
  if (query.depCityName !== undefined && !entry.depCity.includes(query.depCityName)) return false;
  if (query.arrCityName !== undefined && !entry.arrCity.includes(query.arrCityName)) return false;
  const dep = query.depAirportCode;
  if (dep !== undefined && (dep.kind === 'icao' ? entry.depIcao : entry.depIata) !== dep.code) return false;
  const arr = query.arrAirportCode;
  if (arr !== undefined && (arr.kind === 'icao' ? entry.arrIcao : entry.arrIata) !== arr.code) return false;
  return true;
}

/** Order of the listing: startDate ascending, then id ascending (decisions.md section 4). */
export function compareLegs(a: Pick<IndexEntry, 'startDate' | 'id'>, b: Pick<IndexEntry, 'startDate' | 'id'>): number {
  if (a.startDate !== b.startDate) return a.startDate < b.startDate ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/**
 * Merges lists that are each already in listing order (index order) into one, without a full sort.
 */
export function mergeSorted<T extends Pick<IndexEntry, 'startDate' | 'id'>>(lists: readonly (readonly T[])[]): T[] {
  const nonEmpty = lists.filter((l) => l.length > 0);
  if (nonEmpty.length === 0) return [];
  if (nonEmpty.length === 1) return [...nonEmpty[0]!];
  const out: T[] = [];
  const pos = nonEmpty.map(() => 0);
  for (;;) {
    let best = -1;
    for (let i = 0; i < nonEmpty.length; i++) {
      const item = nonEmpty[i]![pos[i]!];
      if (item === undefined) continue;
      if (best === -1 || compareLegs(item, nonEmpty[best]![pos[best]!]!) < 0) best = i;
    }
    if (best === -1) return out;
    out.push(nonEmpty[best]![pos[best]!]!);
    pos[best]! += 1;
  }
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
