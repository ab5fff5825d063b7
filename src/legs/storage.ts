import { LEGS_INDEX } from '../tables.js';
import { daysBetween, monthOf } from './dates.js';
import type { EmptyLeg } from './model.js';

/**
 * How a leg is stored. The base item holds the EmptyLeg fields (nulls omitted) plus `listed`,
 * `blocked` and `depTimezone`. A listed, unblocked leg also carries the three attributes of the
 * sparse index `byDepartureBucket`:
 *   lb  bucket: UTC month of startDate (`yyyy-MM`), or `long` when the window exceeds MAX_BUCKET_SPAN_DAYS
 *   ls  sort key: `startDate#id`
 *   lf  filter: endDate, depTimezone and the lower-cased city names and airport codes, joined by U+001F
 * The names are short because every byte of the index entry is paid for on every listing query.
 */
export interface StoredLeg extends EmptyLeg {
  listed: boolean;
  blocked: boolean;
  depTimezone: string;
}

export const BUCKET_ATTR = LEGS_INDEX.partitionKey;
export const SORT_ATTR = LEGS_INDEX.sortKey;
export const FILTER_ATTR = 'lf';

/** Longest flyable window (endDate - startDate, days) kept in the month bucket of its start. */
export const MAX_BUCKET_SPAN_DAYS = 28;
export const LONG_BUCKET = 'long';

/**
 * How far ahead a leg may start, in days after the day it is loaded. A listing without `depDate`
 * reads the month buckets up to this horizon, so the loader refuses legs that start later.
 */
export const LISTING_HORIZON_DAYS = 366;

const SEP = '\u001f';

export function bucketOf(startDate: string, endDate: string): string {
  return daysBetween(startDate, endDate) > MAX_BUCKET_SPAN_DAYS ? LONG_BUCKET : monthOf(startDate);
}

/** Lower-casing used on both sides of the case-insensitive filters. */
export function fold(value: string): string {
  return value.toLocaleLowerCase('en-US');
}

/** The part of a leg the listing filters and orders on: what the index holds. */
export interface IndexEntry {
  id: string;
  startDate: string;
  endDate: string;
  depTimezone: string;
  depCity: string;
  depIcao: string;
  depIata: string;
  arrCity: string;
  arrIcao: string;
  arrIata: string;
}

export function toStorageItem(leg: StoredLeg): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(leg)) {
    if (v !== null && v !== undefined) item[k] = v;
  }
  if (leg.listed && !leg.blocked) {
    item[BUCKET_ATTR] = bucketOf(leg.startDate, leg.endDate);
    item[SORT_ATTR] = `${leg.startDate}#${leg.id}`;
    item[FILTER_ATTR] = [
      leg.endDate,
      leg.depTimezone,
      fold(leg.depCityName),
      fold(leg.depAirportIcao ?? ''),
      fold(leg.depAirportIata ?? ''),
      fold(leg.arrCityName),
      fold(leg.arrAirportIcao ?? ''),
      fold(leg.arrAirportIata ?? ''),
    ].join(SEP);
  }
  return item;
}

/** Reads an index item (`id`, `ls`, `lf`) back; undefined when it is not one. */
export function parseIndexItem(item: Readonly<Record<string, unknown>>): IndexEntry | undefined {
  const id = item.id;
  const sort = item[SORT_ATTR];
  const filter = item[FILTER_ATTR];
  if (typeof id !== 'string' || typeof sort !== 'string' || typeof filter !== 'string') return undefined;
  const f = filter.split(SEP);
  if (f.length !== 8) return undefined;
  return {
    id,
    startDate: sort.slice(0, 10),
    endDate: f[0]!,
    depTimezone: f[1]!,
    depCity: f[2]!,
    depIcao: f[3]!,
    depIata: f[4]!,
    arrCity: f[5]!,
    arrIcao: f[6]!,
    arrIata: f[7]!,
  };
}
