import { AIRCRAFT_CATEGORIES, type AircraftCategory } from './aircraft-category.js';
import { DEFAULT_SOURCE, isSource } from './source.js';
import { DAY_MS, decodeExpiry, FILTER_ATTR, fieldsEnd, FIRST_CATEGORY_CODE, NO_COUNTRY, SEP, SORT_ATTR } from './leg-item.js';
import { decodeConfirmed } from './leg/instants.js';

/**
 * The part of a leg the listing filters and orders on: what the index holds. Its places stay in the
 * filter attribute, `text`, found by offsets (docs/performance.md, "Cold cache"): `cityIncludes` and
 * `hasCode` read them; `entryFields` gives the fields as strings.
 */
export interface IndexEntry {
  id: string;
  startDate: string;
  endDate: string;
  /** Epoch ms from which the leg is expired: the start of the day after endDate in its departure zone. */
  expiresAt: number;
  /** The filter attribute (`lf`). */
  text: string;
  /** Departure city: text[depCityAt, depCityEnd). Then the codes, the arrival city, the arrival codes. */
  depCityAt: number;
  depCityEnd: number;
  depCodesAt: number;
  depCodesEnd: number;
  arrCityAt: number;
  arrCityEnd: number;
  arrCodesAt: number;
  arrCodesEnd: number;
  /** Passenger seats; 0 when unknown. */
  seats: number;
  /** The category's bit (`categoryBit`, src/kernel/aircraft-category.ts); 0 when unknown. */
  category: number;
  /** Where the countries field (`countriesField`: 4 characters) starts in `text`; -1 for an entry written before it. */
  countriesAt: number;
  /** The price as the operator gave it; NaN when the leg has none. */
  price: number;
  /** The price's currency when it is a 3-letter code; '' otherwise. */
  currency: string;
  /** The leg's source (src/kernel/source.ts): the entry's tenth field, `default` without one. */
  source: string;
  /** Epoch ms of its last load that wrote it (the eleventh field: `confirmedAtOf` adds its source's syncs); NaN when unknown. */
  confirmedAt: number;
}

export type Side = 'dep' | 'arr';

/** True when the side's city (folded) contains `needle` (folded: src/listing/query.ts). */
export function cityIncludes(entry: IndexEntry, side: Side, needle: string): boolean {
  const start = side === 'dep' ? entry.depCityAt : entry.arrCityAt;
  const end = side === 'dep' ? entry.depCityEnd : entry.arrCityEnd;
  return includesWithin(entry.text, needle, start, end);
}

/** True when `needle` lies within `text[from, to)` (the search stays inside the range). */
function includesWithin(text: string, needle: string, from: number, to: number): boolean {
  if (needle.length === 0) return from <= to;
  const first = needle.charCodeAt(0);
  for (let k = from, last = to - needle.length; k <= last; k++) {
    if (text.charCodeAt(k) === first && text.startsWith(needle, k)) return true;
  }
  return false;
}

/** Index of the first `char` (a UTF-16 code) within `text[from, to)`, or -1. */
function indexWithin(text: string, char: number, from: number, to: number): number {
  for (let k = from; k < to; k++) if (text.charCodeAt(k) === char) return k;
  return -1;
}

const SLASH = 47;

/** Where the side's ICAO or IATA code lies in the entry's text, per the codes field's forms; undefined for none. */
function codeRange(entry: IndexEntry, side: Side, kind: 'icao' | 'iata'): [from: number, to: number] | undefined {
  const start = side === 'dep' ? entry.depCodesAt : entry.arrCodesAt;
  const end = side === 'dep' ? entry.depCodesEnd : entry.arrCodesEnd;
  const slash = indexWithin(entry.text, SLASH, start, end);
  if (slash >= 0) return kind === 'icao' ? [start, slash] : [slash + 1, end];
  const length = end - start;
  if (kind === 'icao') return length === 7 || length === 4 ? [start, start + 4] : undefined;
  if (length === 7) return [start + 4, end];
  return length === 3 ? [start, end] : undefined;
}

/** True when the side's ICAO (IATA) code is `code` (lower case); a missing code matches nothing. */
export function hasCode(entry: IndexEntry, side: Side, kind: 'icao' | 'iata', code: string): boolean {
  if (code === '') return false;
  const range = codeRange(entry, side, kind);
  return range !== undefined && range[1] - range[0] === code.length && entry.text.startsWith(code, range[0]);
}

/** The side's ICAO (IATA) code, lower case; '' when it has none. */
export function codeOf(entry: IndexEntry, side: Side, kind: 'icao' | 'iata'): string {
  const range = codeRange(entry, side, kind);
  return range === undefined ? '' : entry.text.slice(range[0], range[1]);
}

/**
 * True when the side's airport is one of `codes` (lower case): its ICAO code when it has one, else
 * its IATA code (src/listing/nearby.ts places a leg the same way).
 */
export function placedAt(entry: IndexEntry, side: Side, codes: { icao: ReadonlySet<string>; iata: ReadonlySet<string> }): boolean {
  const icao = codeOf(entry, side, 'icao');
  if (icao !== '') return codes.icao.has(icao);
  const iata = codeOf(entry, side, 'iata');
  return iata !== '' && codes.iata.has(iata);
}

/**
 * The side's country as a number (its two letters' codes, `(first << 8) | second`: `countryKey`);
 * 0 when unknown.
 */
export function countryOf(entry: IndexEntry, side: Side): number {
  if (entry.countriesAt < 0) return 0;
  const at = side === 'dep' ? entry.countriesAt : entry.countriesAt + 2;
  const key = (entry.text.charCodeAt(at) << 8) | entry.text.charCodeAt(at + 1);
  return key === NO_COUNTRY_KEY ? 0 : key;
}

/** The number `countryOf` gives for a two-letter code (upper case). */
export const countryKey = (code: string): number => (code.charCodeAt(0) << 8) | code.charCodeAt(1);

const NO_COUNTRY_KEY = countryKey(NO_COUNTRY);

/** The code of a `countryOf` number; '' for 0. */
export const countryCodeOf = (key: number): string => (key === 0 ? '' : String.fromCharCode(key >> 8, key & 255));

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

/** An index entry's fields as strings (what `entryFields` gives). */
export interface EntryFields {
  id: string;
  startDate: string;
  endDate: string;
  expiresAt: number;
  depCity: string;
  depIcao: string;
  depIata: string;
  arrCity: string;
  arrIcao: string;
  arrIata: string;
  /** 0 when unknown. */
  seats: number;
  /** The category; null when unknown. */
  aircraftType: AircraftCategory | null;
  /** ISO 3166-1 alpha-2 codes; '' when unknown. */
  depCountry: string;
  arrCountry: string;
}

/** The places of an entry as strings (for tests and diagnostics; the listing reads them in place). */
export function entryFields(entry: IndexEntry): EntryFields {
  return {
    id: entry.id,
    startDate: entry.startDate,
    endDate: entry.endDate,
    expiresAt: entry.expiresAt,
    depCity: entry.text.slice(entry.depCityAt, entry.depCityEnd),
    depIcao: codeOf(entry, 'dep', 'icao'),
    depIata: codeOf(entry, 'dep', 'iata'),
    arrCity: entry.text.slice(entry.arrCityAt, entry.arrCityEnd),
    arrIcao: codeOf(entry, 'arr', 'icao'),
    arrIata: codeOf(entry, 'arr', 'iata'),
    seats: entry.seats,
    aircraftType: AIRCRAFT_CATEGORIES.find((_, i) => entry.category === 1 << i) ?? null,
    depCountry: countryCodeOf(countryOf(entry, 'dep')),
    arrCountry: countryCodeOf(countryOf(entry, 'arr')),
  };
}

/**
 * The id in a sort key (`yyyy-MM-dd#id`): the listing's Query leaves the `id` attribute out of what
 * it asks for, since the sort key holds it (src/listing/repository.ts). Undefined when `sort` is not
 * in that form.
 */
export function idOfSortKey(sort: string): string | undefined {
  return sort.length > 11 && sort.charCodeAt(10) === 35 /* # */ ? sort.slice(11) : undefined;
}

/**
 * Turns index items back into entries. Items of one bucket come in startDate order, so the date
 * arithmetic is done once per distinct startDate, not once per entry. Items that are not index
 * entries are skipped.
 */
export class IndexEntryReader {
  private lastStart = '';
  // NaN until a start date is parsed: an empty start date (equal to the initial lastStart) is no date.
  private lastStartMs = Number.NaN;
  private readonly ends = new Map<number, string>();

  /** An entry from an index item: `ls` and `lf`, and `id` or, when the item leaves it out, the sort key's. */
  read(item: Readonly<Record<string, unknown>>): IndexEntry | undefined {
    const sort = item[SORT_ATTR];
    const filter = item[FILTER_ATTR];
    if (typeof sort !== 'string' || typeof filter !== 'string') return undefined;
    const id = item.id === undefined ? idOfSortKey(sort) : item.id;
    if (typeof id !== 'string') return undefined;
    return this.fromFilter(id, sort.slice(0, 10), filter);
  }

  /**
   * An entry from its id, the sort key's first ten characters and the filter attribute `text`: its
   * eight fields, a ninth for a priced leg, a tenth for a source, an eleventh for its confirmed instant
   * (seven when written before the countries field, six before the aircraft field) separated by U+001F.
   */
  fromFilter(id: string, startDate: string, text: string): IndexEntry | undefined {
    const step = SEP.length;
    const to = fieldsEnd(text);
    const s1 = text.indexOf(SEP);
    const s2 = s1 < 0 ? -1 : text.indexOf(SEP, s1 + step);
    const s3 = s2 < 0 ? -1 : text.indexOf(SEP, s2 + step);
    const s4 = s3 < 0 ? -1 : text.indexOf(SEP, s3 + step);
    const s5 = s4 < 0 ? -1 : text.indexOf(SEP, s4 + step);
    if (s5 < 0) return undefined;
    const s6 = text.indexOf(SEP, s5 + step);
    const s7 = s6 < 0 ? -1 : text.indexOf(SEP, s6 + step);
    const s8 = s7 < 0 ? -1 : text.indexOf(SEP, s7 + step);
    const countriesEnd = s8 < 0 ? to : s8;
    if (s7 >= 0 && countriesEnd - s7 - step !== 4) return undefined;
    const s9 = s8 < 0 ? -1 : text.indexOf(SEP, s8 + step);
    const s10 = s9 < 0 ? -1 : text.indexOf(SEP, s9 + step);
    if (s10 >= 0 && text.indexOf(SEP, s10 + step) >= 0) return undefined;
    let source = DEFAULT_SOURCE;
    // The source field: empty (the default source) only when a confirmed instant follows.
    if (s9 >= 0 && (s10 < 0 || s10 > s9 + step)) {
      source = text.slice(s9 + step, s10 < 0 ? to : s10);
      if (!isSource(source)) return undefined;
    }
    const confirmedAt = s10 < 0 ? Number.NaN : decodeConfirmed(text.slice(s10 + step, to));
    if (s10 >= 0 && Number.isNaN(confirmedAt)) return undefined;
    const aircraftEnd = s7 < 0 ? to : s7;
    // The aircraft field: its leading digits are the seats, a letter right after them and last the category.
    let seats = 0;
    let category = 0;
    if (s6 >= 0) {
      let k = s6 + step;
      for (let d = text.charCodeAt(k) - 48; k < aircraftEnd && d >= 0 && d <= 9; d = text.charCodeAt(++k) - 48) seats = seats * 10 + d;
      const index = text.charCodeAt(k) - FIRST_CATEGORY_CODE;
      if (k === aircraftEnd - 1 && index >= 0 && index < AIRCRAFT_CATEGORIES.length) category = 1 << index;
    }
    // The price field (ninth, after the countries): the amount, then a 3-letter currency or nothing.
    let price = Number.NaN;
    let currency = '';
    if (s8 >= 0 && (s9 < 0 || s9 > s8 + step)) {
      const field = text.slice(s8 + step, s9 < 0 ? to : s9);
      const code = field.length > 3 ? field.slice(-3) : '';
      const coded = /^[A-Z]{3}$/.test(code);
      price = Number(coded ? field.slice(0, -3) : field);
      if (Number.isNaN(price)) return undefined;
      if (coded) currency = code;
    }
    if (startDate !== this.lastStart) {
      this.lastStart = startDate;
      this.lastStartMs = Date.parse(`${startDate}T00:00:00Z`);
    }
    const span = Number(text.slice(0, s1));
    if (!Number.isInteger(span) || span < 0 || Number.isNaN(this.lastStartMs)) return undefined;
    const endMs = this.lastStartMs + span * DAY_MS;
    let endDate = this.ends.get(endMs);
    if (endDate === undefined) {
      endDate = new Date(endMs).toISOString().slice(0, 10);
      this.ends.set(endMs, endDate);
    }
    return {
      id,
      startDate: this.lastStart,
      endDate,
      expiresAt: decodeExpiry(endMs + DAY_MS, text.slice(s1 + step, s2)),
      text,
      depCityAt: s2 + step,
      depCityEnd: s3,
      depCodesAt: s3 + step,
      depCodesEnd: s4,
      arrCityAt: s4 + step,
      arrCityEnd: s5,
      arrCodesAt: s5 + step,
      arrCodesEnd: s6 < 0 ? to : s6,
      seats,
      category,
      countriesAt: s7 < 0 ? -1 : s7 + step,
      price,
      currency,
      source,
      confirmedAt,
    };
  }
}

/** Reads an index item (`id`, `ls`, `lf`) back; undefined when it is not one. */
export function parseIndexItem(item: Readonly<Record<string, unknown>>): IndexEntry | undefined {
  return new IndexEntryReader().read(item);
}
