import { LEGS_EXPIRY_INDEX, LEGS_EXPIRY_INSTANT_INDEX, LEGS_INDEX, LEGS_TABLE } from '../tables.js';
import { AIRCRAFT_CATEGORIES, categoryNamed } from './aircraft-category.js';
import { addDays, daysBetween, monthOf } from './dates.js';
import type { EmptyLeg } from './model.js';
import { expiryShard, retirementDay } from './retirement.js';
import { DEFAULT_SOURCE } from './source.js';
import { encodeConfirmed, type LegInstants } from './leg/instants.js';
import { DEP_TIME_PATTERN, registrationField } from './leg/registration.js';

/**
 * How a leg is stored: the item, and for a listed unblocked leg the index attributes `lb`, `ls`
 * and `lf` (eight fields joined by U+001F); every leg carries `xp` and `xd` (docs/storage.md, "The leg's item").
 */
export interface StoredLeg extends EmptyLeg, LegInstants {
  listed: boolean;
  blocked: boolean;
  depTimezone: string;
  /** The feed the leg came from (src/kernel/source.ts); absent means `default`. Never shown by the API. */
  source?: string;
  /** The earliest departure on startDate and the latest on endDate, `HH:mm` local (src/kernel/leg/departure.ts). */
  depTimeFrom?: string | undefined;
  depTimeTo?: string | undefined;
  /** The feed said it is sold (import format `sold`): never listed, `withdrawn` with reason `sold`. */
  sold?: boolean;
}

export const BUCKET_ATTR = LEGS_INDEX.partitionKey;
export const SORT_ATTR = LEGS_INDEX.sortKey;
export const FILTER_ATTR = 'lf';
export const EXPIRY_SHARD_ATTR = LEGS_EXPIRY_INDEX.partitionKey;
export const EXPIRY_DAY_ATTR = LEGS_EXPIRY_INDEX.sortKey;
/** A listed leg's expiry instant (epoch ms, 13 digits: `expiryInstantKey`), the sort key of `byExpiryInstant`. */
export const EXPIRY_INSTANT_ATTR = LEGS_EXPIRY_INSTANT_INDEX.sortKey;
/** Epoch seconds after which DynamoDB TTL deletes the item; set by the retiring function only. */
export const TTL_ATTR = LEGS_TABLE.timeToLiveAttribute;
/** The sweep's touch (src/sweep/store.ts): the run's instant, written alone so that the change consumer tells the leg's standing again. */
export const TOUCH_ATTR = 'xs';

/** Longest flyable window (endDate - startDate, days) kept in the month bucket of its start. */
export const MAX_BUCKET_SPAN_DAYS = 28;
export const LONG_BUCKET = 'long';

/**
 * How far ahead a leg may start, in days after the day it is loaded. A listing without `depDate`
 * reads the month buckets up to this horizon, so the loader refuses legs that start later.
 */
export const LISTING_HORIZON_DAYS = 366;

/** The letter of the first category in the aircraft field (`a`); the others follow in order. */
export const FIRST_CATEGORY_CODE = 97;

export const SEP = '\u001f';
const MINUTE_MS = 60_000;
const QUARTER_MS = 15 * MINUTE_MS;

export function bucketOf(startDate: string, endDate: string): string {
  return daysBetween(startDate, endDate) > MAX_BUCKET_SPAN_DAYS ? LONG_BUCKET : monthOf(startDate);
}

const COMBINING_MARKS = /\p{M}+/gu;

/**
 * The folding of both sides of the city filters (docs/api.md, "Filters"): lower case, then NFD with
 * the combining marks removed, so a match ignores case and accents; letters that are not a base
 * letter plus marks (`ø`, `ł`, `ß`) stay as they are (docs/storage.md, "The leg's item").
 */
export function fold(value: string): string {
  return value.toLocaleLowerCase('en-US').normalize('NFD').replace(COMBINING_MARKS, '');
}

const dateFormatters = new Map<string, Intl.DateTimeFormat>();
const timeFormatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(
  cache: Map<string, Intl.DateTimeFormat>,
  timeZone: string,
  options: Intl.DateTimeFormatOptions,
  locale: string,
): Intl.DateTimeFormat {
  let f = cache.get(timeZone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    } catch {
      // A zone this runtime does not know counts as UTC (as the listing always did).
      f = new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' });
    }
    cache.set(timeZone, f);
  }
  return f;
}

/** The local date (`yyyy-MM-dd`) at `instant` in `timeZone`. */
function localDate(instant: number, timeZone: string): string {
  // en-CA formats as yyyy-MM-dd.
  return formatterFor(dateFormatters, timeZone, { year: 'numeric', month: '2-digit', day: '2-digit' }, 'en-CA').format(instant);
}

/** The offset of `timeZone` from UTC at `instant`, in ms (whole minutes). */
export function offsetAt(instant: number, timeZone: string): number {
  const f = formatterFor(
    timeFormatters,
    timeZone,
    { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' },
    'en-US',
  );
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(instant)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const local = Date.UTC(p.year!, p.month! - 1, p.day, p.hour, p.minute);
  return local - Math.floor(instant / MINUTE_MS) * MINUTE_MS;
}

/**
 * The first instant (epoch ms, whole minutes) whose local date in `timeZone` is `date` or later: a
 * leg ending the day before expires then (docs/api.md, "Date window"). A day that does not start at
 * 00:00 is found by a search within the real offsets, -12 h to +14 h.
 */
export function startOfDayIn(date: string, timeZone: string): number {
  const midnightUtc = Date.parse(`${date}T00:00:00Z`);
  const candidate = midnightUtc - offsetAt(midnightUtc - offsetAt(midnightUtc, timeZone), timeZone);
  if (localDate(candidate, timeZone) >= date && localDate(candidate - MINUTE_MS, timeZone) < date) return candidate;
  let lo = midnightUtc - 15 * 60 * MINUTE_MS; // before `date` in every zone
  let hi = midnightUtc + 13 * 60 * MINUTE_MS; // `date` or later in every zone
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.floor((hi - lo) / MINUTE_MS / 2) * MINUTE_MS;
    if (localDate(mid, timeZone) >= date) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The instant from which a leg ending on `endDate` (local date in `timeZone`) is expired. */
export function expiryInstant(endDate: string, timeZone: string): number {
  return startOfDayIn(addDays(endDate, 1), timeZone);
}

/** When a leg leaves the listing: its latest departure when it has one (`depTimeTo`, HH:mm), else its expiryInstant. */
export function legExpiry(leg: { endDate: string; depTimeTo?: string | null | undefined }, timeZone: string): number {
  return typeof leg.depTimeTo === 'string' && DEP_TIME_PATTERN.test(leg.depTimeTo) ? localInstant(leg.endDate, leg.depTimeTo, timeZone) : expiryInstant(leg.endDate, timeZone);
}

const HOUR_MS = 60 * MINUTE_MS;

export { DEP_TIME_PATTERN } from './leg/registration.js';

/**
 * The instant of the local date-time `date` `time` (HH:mm) in `timeZone`. A time the clock skips
 * (spring forward) is read with the offset before the change, so it falls that much later; a time it
 * repeats (fall back) is the first of the two (as RFC 5545 and Temporal's `compatible` read them).
 */
export function localInstant(date: string, time: string, timeZone: string): number {
  const wall = Date.parse(`${date}T${time}:00Z`);
  const before = wall - offsetAt(wall - 14 * HOUR_MS, timeZone);
  const after = wall - offsetAt(wall + 14 * HOUR_MS, timeZone);
  const holds = (instant: number) => instant + offsetAt(instant, timeZone) === wall;
  if (holds(before) && holds(after)) return Math.min(before, after);
  return holds(after) && !holds(before) ? after : before;
}

/** The fields of a leg the listing index holds (its filters and order). */
export type IndexedFields = Pick<
  EmptyLeg,
  'startDate' | 'endDate' | 'depCityName' | 'depAirportIcao' | 'depAirportIata' | 'depCountryCode' | 'arrCityName' | 'arrAirportIcao' | 'arrAirportIata' | 'arrCountryCode' | 'seatNum' | 'aircraftType'
> &
  Partial<Pick<EmptyLeg, 'price' | 'currency' | 'registration'>> & { source?: string | undefined; confirmedAt?: number | undefined; depTimeFrom?: string | undefined; depTimeTo?: string | undefined };

/**
 * The compact index entry's filter text (`lf`) of a leg, with its expiry field as given. A leg of a
 * source other than `default` has a tenth field, its source (the price field then empty when unpriced);
 * a leg with a confirmed instant an eleventh, that instant (the fields before it then present, maybe empty).
 */
export function filterText(leg: IndexedFields, expiry: string): string {
  const fields = [
    daysBetween(leg.startDate, leg.endDate),
    expiry,
    fold(leg.depCityName),
    codesField(leg.depAirportIcao, leg.depAirportIata),
    fold(leg.arrCityName),
    codesField(leg.arrAirportIcao, leg.arrAirportIata),
    aircraftField(leg.seatNum, leg.aircraftType),
    countriesField(leg.depCountryCode, leg.arrCountryCode),
  ];
  const price = priceField(leg.price ?? null, leg.currency ?? null);
  const source = leg.source ?? DEFAULT_SOURCE;
  const confirmed = encodeConfirmed(leg.confirmedAt);
  if (price !== '' || source !== DEFAULT_SOURCE || confirmed !== '') fields.push(price);
  if (source !== DEFAULT_SOURCE || confirmed !== '') fields.push(source === DEFAULT_SOURCE ? '' : source);
  if (confirmed !== '') fields.push(confirmed);
  return fields.join(SEP) + registrationField(leg.registration, leg.depTimeFrom, leg.depTimeTo);
}

export { fieldsEnd, normalizedRegistration, REGISTRATION_SEP, registrationOf } from './leg/registration.js';

/**
 * The price field (ninth, after the countries, only for a priced leg): the amount, then the currency
 * when it is three capital letters (a code the rates can know), e.g. `12500USD` (docs/storage.md).
 */
export function priceField(price: number | null, currency: string | null): string {
  if (price === null || !Number.isFinite(price) || price < 0) return '';
  return String(price) + (currency !== null && /^[A-Z]{3}$/.test(currency) ? currency : '');
}

/** An unknown country in the countries field. */
export const NO_COUNTRY = '..';

/** The countries field: the departure's then the arrival's ISO 3166-1 alpha-2 code, `..` for none (`FRIT`, `..IT`). */
export function countriesField(dep: string | null, arr: string | null): string {
  const code = (c: string | null) => (c !== null && /^[A-Z]{2}$/.test(c) ? c : NO_COUNTRY);
  return code(dep) + code(arr);
}

export function codesField(icao: string | null, iata: string | null): string {
  const i = icao ?? '';
  const a = iata ?? '';
  return (i === '' || i.length === 4) && (a === '' || a.length === 3) ? fold(i + a) : `${fold(i)}/${fold(a)}`;
}

/** The aircraft field of the filter attribute (see the top of this file); a text that is no category's name counts as unknown. */
export function aircraftField(seatNum: number | null, aircraftType: string | null): string {
  const category = aircraftType === null ? undefined : categoryNamed(aircraftType);
  const code = category === undefined ? '' : String.fromCharCode(FIRST_CATEGORY_CODE + AIRCRAFT_CATEGORIES.indexOf(category));
  return (seatNum === null ? '' : String(seatNum)) + code;
}

export function encodeExpiry(endDate: string, expiresAt: number): string {
  const dayAfter = Date.parse(`${addDays(endDate, 1)}T00:00:00Z`);
  const offset = dayAfter - expiresAt;
  return offset % QUARTER_MS === 0 ? String(offset / QUARTER_MS) : `m${offset / MINUTE_MS}`;
}

export function decodeExpiry(dayAfterMs: number, text: string): number {
  if (text.startsWith('m')) return dayAfterMs - Number(text.slice(1)) * MINUTE_MS;
  return dayAfterMs - Number(text) * QUARTER_MS;
}

export function toStorageItem(leg: StoredLeg): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(leg)) {
    if (v !== null && v !== undefined) item[k] = v;
  }
  item[EXPIRY_SHARD_ATTR] = expiryShard(leg.id);
  item[EXPIRY_DAY_ATTR] = retirementDay(leg.endDate);
  if (leg.listed && !leg.blocked && leg.sold !== true) {
    const attrs = listingAttributes(leg, leg.depTimezone);
    Object.assign(item, attrs, { [EXPIRY_INSTANT_ATTR]: expiryInstantKey(attrs[SORT_ATTR]!, attrs[FILTER_ATTR]!) });
  }
  return item;
}

/**
 * The `xa` value of an index entry: the epoch ms its filter text gives as expiry (a span then the
 * expiry field, `decodeExpiry`), as 13 digits so that it sorts as a string.
 */
export function expiryInstantKey(ls: string, lf: string): string {
  const s1 = lf.indexOf(SEP);
  const s2 = lf.indexOf(SEP, s1 + 1);
  const dayAfter = Date.parse(`${ls.slice(0, 10)}T00:00:00Z`) + (Number(lf.slice(0, s1)) + 1) * DAY_MS;
  return String(Math.max(0, decodeExpiry(dayAfter, lf.slice(s1 + 1, s2 < 0 ? lf.length : s2)))).padStart(13, '0');
}

/** The listing index attributes (`lb`, `ls`, `lf`) of a listed unblocked leg departing in `depTimezone`. */
export function listingAttributes(leg: IndexedFields & Pick<EmptyLeg, 'id'>, depTimezone: string): Record<string, string> {
  return {
    [BUCKET_ATTR]: bucketOf(leg.startDate, leg.endDate),
    [SORT_ATTR]: `${leg.startDate}#${leg.id}`,
    [FILTER_ATTR]: filterText(leg, encodeExpiry(leg.endDate, legExpiry(leg, depTimezone))),
  };
}

export const DAY_MS = 86_400_000;
