import { fromEpochDay, MAX_EPOCH_DAY, MIN_EPOCH_DAY, toEpochDay, utcDate } from './dates.js';
import { IndexEntryReader, type IndexEntry } from './index-entry.js';
import { BUCKET_ATTR, LISTING_HORIZON_DAYS } from './leg-item.js';
import { toApiRecord, type EmptyLeg } from './model.js';

/**
 * What the listing lists at an instant, shared by the capabilities that apply its rules to legs: the
 * horizon, the date window, expiry, and whether the unfiltered listing lists one stored item.
 */

/**
 * Days of slack on top of LISTING_HORIZON_DAYS, the loader's limit from its own UTC date: its clock
 * may run ahead of the function's (a laptop loading with `--aws`), so the listing reads one day further.
 */
export const HORIZON_SLACK_DAYS = 1;

/** The last start date a leg can have, in days after today (UTC): the end of every query window. */
export const HORIZON_DAYS = LISTING_HORIZON_DAYS + HORIZON_SLACK_DAYS;

/**
 * A window on the legs' flyable days (`yyyy-MM-dd`, years 0001-9999): a leg is in it when `endDate >= from`
 * and `startDate <= to`. `to` never passes the horizon, so `from` may be after `to` (then only a leg
 * that started before the horizon and is still flyable is in it).
 */
export interface DateWindow {
  from: string;
  to: string;
}

/** The last start date a leg in the table can have on `todayUtc` (the listing horizon). */
export function horizonEnd(todayUtc: string): string {
  return fromEpochDay(Math.min(toEpochDay(todayUtc) + HORIZON_DAYS, MAX_EPOCH_DAY));
}

/**
 * The window of the unfiltered listing (no `depDate`): only the expiry rule, so it starts at the
 * earliest local date any time zone can have today (UTC - 1 day), and ends at the horizon.
 */
export function unfilteredWindow(todayUtc: string): DateWindow {
  return { from: fromEpochDay(Math.max(toEpochDay(todayUtc) - 1, MIN_EPOCH_DAY)), to: horizonEnd(todayUtc) };
}

/** True when the leg is expired at `nowMs` (its endDate is before today in its departure zone). */
export function isExpired(entry: Pick<IndexEntry, 'expiresAt'>, nowMs: number): boolean {
  return entry.expiresAt <= nowMs;
}

/** True when the leg overlaps the window (`endDate >= from`, `startDate <= to`) and is not expired at `nowMs`. */
export function inWindow(entry: Pick<IndexEntry, 'startDate' | 'endDate' | 'expiresAt'>, window: DateWindow, nowMs: number): boolean {
  return entry.endDate >= window.from && entry.startDate <= window.to && !isExpired(entry, nowMs);
}

/**
 * The API record of a stored item if the unfiltered listing lists it at `now`, else undefined: in
 * the listing index (listed, not blocked: the loader writes the index attributes only then) and in
 * the unfiltered window at `now`, read from the same index attributes the listing reads.
 */
export function listedRecord(item: Readonly<Record<string, unknown>>, now: Date): EmptyLeg | undefined {
  if (item.listed === false || item.blocked === true || item.sold === true || typeof item[BUCKET_ATTR] !== 'string') return undefined;
  const entry = new IndexEntryReader().read(item);
  if (!entry || !inWindow(entry, unfilteredWindow(utcDate(now)), now.getTime())) return undefined;
  return toApiRecord(item);
}
