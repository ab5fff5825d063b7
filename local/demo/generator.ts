import { withReposts } from './reposts.js';
import { addDays, isCalendarDate } from '../../src/kernel/dates.js';
import { validateImportRecords, type ImportRecord } from '../../src/loading/import/index.js';
import type { Amenity, AmenityType } from '../../src/kernel/model.js';
import type { StoredLeg } from '../../src/kernel/leg-item.js';
import { AIRCRAFT, AMENITY_TEXTS, OPERATORS, PER_USD, PRICE_BAND_USD, REGISTRATION_PATTERNS } from './aircraft.js';
import { distanceKm } from '../../src/airports/geo.js';
import { demoAirports, FEATURED_AIRPORTS, type DemoAirport } from './airports.js';

/**
 * A deterministic generator of demo legs in the IMPORT format, so that the demo goes through the
 * same validation as any file. Dates are relative to `today`; the same seed gives the same legs.
 */
export interface DemoOptions {
  /** The load day, `yyyy-MM-dd`. */
  today: string;
  /** Number of legs. Default 320. */
  count?: number;
  /** PRNG seed. Default DEFAULT_SEED. */
  seed?: number;
  /** How far ahead legs start, in months (1-12). Default 6. */
  months?: number;
  /** How many demo airports to use (local/demo/airports.ts, its first N). Default FEATURED_AIRPORTS. */
  airports?: number;
}

export const DEFAULT_SEED = 20_260_301;
export const DEFAULT_COUNT = 320;
/**
 * The feeds the demo legs come from (import field `source`), so that a sync can be tried locally
 * (README): leg i belongs to DEMO_SOURCES[i % 3]. Assigned by position, not drawn, so the rest of
 * the data set is what it was before sources existed.
 */
export const DEMO_SOURCES = ['skyline', 'northjet', 'azur-charter'] as const;

/** mulberry32: a small, fast, seeded PRNG returning numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const EURO = new Set(['AT', 'BE', 'CY', 'DE', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PT', 'SI', 'SK', 'ME', 'XK']);
const LOCAL_CURRENCY: Readonly<Record<string, string>> = {
  GB: 'GBP', JE: 'GBP', GG: 'GBP', IM: 'GBP', CH: 'CHF', AE: 'AED', CA: 'CAD', AU: 'AUD', SG: 'SGD',
  HK: 'HKD', BR: 'BRL', ZA: 'ZAR', JP: 'JPY',
};
const IMAGE_BASE = 'https://images.example.com/aircraft/';
/** Most legs (three in four) fly to an airport within this distance of their departure. */
const REGIONAL_KM = 3000;

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/** The UTC offset of `timeZone` at `instant`, in minutes (e.g. 330 for Asia/Kolkata). */
export function zoneOffsetMinutes(timeZone: string, instant: number): number {
  let f = offsetFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormatters.set(timeZone, f);
  }
  const name = f.formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

const pad = (n: number) => String(n).padStart(2, '0');

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/**
 * An instant whose local date in `timeZone` is `date`, at a local hour between 06:00 and 21:59,
 * written with an offset (`2026-03-01T09:30:00+01:00`) or in UTC (`...Z`). `offset` is the zone's
 * offset on the load day: on a date with another offset (summer time) the local hour moves by the
 * difference, never across midnight for hours 06-21, and the text still names one exact instant.
 */
function departureInstant(date: string, hour: number, minute: number, offset: number, utc: boolean): string {
  const local = `${date}T${pad(hour)}:${pad(minute)}:00`;
  if (!utc) return `${local}${formatOffset(offset)}`;
  return new Date(Date.parse(`${local}Z`) - offset * 60_000).toISOString().replace('.000Z', 'Z');
}

export function generateDemoRecords(options: DemoOptions): ImportRecord[] {
  const { today } = options;
  if (!isCalendarDate(today)) throw new Error(`today must be yyyy-MM-dd, got ${JSON.stringify(today)}`);
  const count = Math.max(0, Math.floor(options.count ?? DEFAULT_COUNT));
  const months = Math.min(12, Math.max(1, Math.floor(options.months ?? 6)));
  const airportCount = Math.max(2, Math.floor(options.airports ?? FEATURED_AIRPORTS));
  const rnd = mulberry32(options.seed ?? DEFAULT_SEED);

  const int = (min: number, max: number) => min + Math.floor(rnd() * (max - min + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const chance = (p: number) => rnd() < p;

  const pool = demoAirports(airportCount);
  // The airports within REGIONAL_KM of each, found once per airport drawn.
  const regional = new Map<DemoAirport, DemoAirport[]>();
  const regionOf = (a: DemoAirport): DemoAirport[] => {
    let near = regional.get(a);
    if (near === undefined) {
      near = pool.filter((b) => b !== a && distanceKm(a.latitude, a.longitude, b.latitude, b.longitude) <= REGIONAL_KM);
      regional.set(a, near);
    }
    return near;
  };

  const thisYear = Number(today.slice(0, 4));
  // Dates by day offset from today, computed once (addDays per leg is the slow part otherwise).
  const dates = new Map<number, string>();
  const day = (offset: number): string => {
    let d = dates.get(offset);
    if (d === undefined) {
      d = addDays(today, offset);
      dates.set(offset, d);
    }
    return d;
  };
  const offsets = new Map<string, number>();
  const todayInstant = Date.parse(`${today}T12:00:00Z`);
  const offsetOf = (timeZone: string): number => {
    let o = offsets.get(timeZone);
    if (o === undefined) {
      o = zoneOffsetMinutes(timeZone, todayInstant);
      offsets.set(timeZone, o);
    }
    return o;
  };
  // Future legs start within `months` months, never past the listing horizon (366 days).
  const aheadDays = Math.min(365, Math.round(months * 30.4));

  // Registration letters leave out I and O (as the US and most registries do).
  const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
  const registration = (country: string): string => {
    const pattern = pick(REGISTRATION_PATTERNS[country] ?? REGISTRATION_PATTERNS.US!);
    let out = '';
    for (const c of pattern) {
      if (c === '@') out += LETTERS[int(0, LETTERS.length - 1)];
      // an N-number never has a leading zero
      else if (c === '#') out += String(out === 'N' ? int(1, 9) : int(0, 9));
      else out += c;
    }
    return out;
  };

  const records: ImportRecord[] = [];
  for (let i = 0; i < count; i++) {
    // Departure and arrival: mostly within REGIONAL_KM of each other.
    const dep = pick(pool);
    const near = regionOf(dep);
    let arr = chance(0.75) && near.length > 0 ? pick(near) : pick(pool);
    if (arr === dep) arr = pool[(pool.indexOf(dep) + 1 + int(0, pool.length - 2)) % pool.length]!;

    // The flyable window, relative to today (local dates at the departure), as day offsets.
    const roll = rnd();
    let startOffset: number;
    let window: number;
    if (roll < 0.08) {
      // expired: ended at least two days ago, whatever the zone
      startOffset = -int(3, 45);
      window = int(0, Math.min(7, -startOffset - 2));
    } else if (roll < 0.16) {
      // started earlier, still open
      startOffset = -int(1, 6);
      window = -startOffset + int(1, 6);
    } else if (roll < 0.2) {
      // a long window (more than 28 days)
      startOffset = int(0, Math.max(0, aheadDays - 60));
      window = int(29, 75);
    } else {
      // upcoming: denser in the coming weeks
      startOffset = Math.floor(aheadDays * rnd() ** 1.7);
      const w = rnd();
      window = w < 0.25 ? 0 : w < 0.45 ? 1 : w < 0.6 ? 2 : w < 0.75 ? 3 : int(4, 7);
    }
    const start = day(startOffset);
    const end = day(startOffset + window);

    const craft = pick(AIRCRAFT);
    const operator = pick(OPERATORS);
    const currency = chance(0.6)
      ? operator.currency
      : EURO.has(dep.countryCode)
        ? 'EUR'
        : (LOCAL_CURRENCY[dep.countryCode] ?? 'USD');
    const [low, high] = PRICE_BAND_USD[craft.category];
    const usd = low + (high - low) * rnd() ** 1.5;
    const rate = PER_USD[currency] ?? 1;
    const step = rate >= 100 ? 10_000 : 50;
    const price = Math.max(step, Math.round((usd * rate) / step) * step);
    const makeYear = int(craft.firstYear, Math.min(craft.lastYear ?? thisYear, thisYear));
    // Two draws whatever the year, so that the legs after this one do not depend on today's year.
    const renovated = chance(0.4);
    const renovatedAfter = rnd();
    const renovateYear = renovated && makeYear < thisYear ? makeYear + 1 + Math.floor(renovatedAfter * (thisYear - makeYear)) : null;

    const amenities: Amenity[] = [];
    const big = craft.category === 'Heavy Jet' || craft.category === 'Ultra Long Range';
    const add = (type: AmenityType, p: number) => {
      if (!chance(p)) return;
      const [amenityName, amenityDesc] = pick(AMENITY_TEXTS[type]);
      amenities.push({ amenityType: type, amenityName, amenityDesc });
    };
    add('wifi', craft.category === 'Turboprop' ? 0.3 : 0.75);
    add('toilet', craft.category === 'Very Light Jet' ? 0.3 : 0.9);
    add('bed', big ? 0.85 : craft.category === 'Super Midsize Jet' ? 0.3 : 0);
    add('pets', 0.35);
    add('medical', big ? 0.6 : 0.2);
    add('smoking', 0.08);

    // As operators write feeds: the departure and arrival by code (ICAO, sometimes IATA alone, or
    // both), the airport's name and country sometimes left for the loader to fill in from the
    // airport reference, and no time zone (the loader takes the airport's). A few legs name no
    // departure airport: those give the zone, as a feed must then.
    const depHasAirport = !chance(0.07);
    const arrHasAirport = !chance(0.05);
    const depSpelled = chance(0.6);
    const arrSpelled = chance(0.6);
    const depByIata = depHasAirport && chance(0.1);
    const record: ImportRecord = {
      id: `EL-${String(i + 1).padStart(6, '0')}`,
      endDate: end,
      depCityName: dep.city,
      depAirportName: depHasAirport && depSpelled ? dep.name : null,
      depAirportIcao: depHasAirport && !depByIata ? dep.icao : null,
      depAirportIata: depHasAirport && (depSpelled || depByIata) ? dep.iata : null,
      depCountryName: depSpelled || !depHasAirport ? dep.countryName : null,
      depCountryCode: depSpelled || !depHasAirport ? dep.countryCode : null,
      arrCityName: arr.city,
      arrAirportName: arrHasAirport && arrSpelled ? arr.name : null,
      arrAirportIcao: arrHasAirport ? arr.icao : null,
      arrAirportIata: arrHasAirport && arrSpelled ? arr.iata : null,
      arrCountryName: arrSpelled || !arrHasAirport ? arr.countryName : null,
      arrCountryCode: arrSpelled || !arrHasAirport ? arr.countryCode : null,
      airlineName: operator.name,
      aircraftModelName: craft.model,
      aircraftType: craft.category,
      registration: registration(operator.country),
      aircraftImg: IMAGE_BASE + craft.image,
      makeYear,
      renovateYear,
      seatNum: Math.max(1, craft.seats - (chance(0.2) ? int(1, 2) : 0)),
      price,
      currency,
      amenities,
      source: DEMO_SOURCES[i % DEMO_SOURCES.length],
    };

    if (!depHasAirport) record.depTimezone = dep.timeZone;
    // Some give the departure instant instead of the date (the loader derives startDate).
    if (chance(0.15)) record.departureAt = departureInstant(start, int(6, 21), pick([0, 15, 30, 45]), offsetOf(dep.timeZone), chance(0.3));
    else record.startDate = start;

    // Price on request.
    if (chance(0.08)) {
      record.price = null;
      record.currency = null;
    }
    // Unknown details: null, or left out.
    if (chance(0.12)) {
      const unknown = ['airlineName', 'registration', 'aircraftImg', 'makeYear', 'seatNum', 'arrCountryName'] as const;
      for (const field of unknown) {
        if (!chance(0.5)) continue;
        if (field === 'makeYear') record.renovateYear = null;
        if (chance(0.5)) record[field] = null;
        else delete record[field];
      }
    }
    if (amenities.length === 0 && chance(0.5)) delete record.amenities;

    // Listing state: mostly defaults (left out), some explicit, some blocked or unlisted.
    const state = rnd();
    if (state < 0.05) record.blocked = true;
    else if (state < 0.1) record.listed = false;
    else if (state < 0.3) {
      record.listed = true;
      record.blocked = false;
    }
    records.push(record);
  }
  return withReposts(records);
}

/**
 * The default demo data set for `npm start`, validated like any import file. Throws when a record
 * is invalid (a bug in the generator, never expected).
 */
export function demoLegs(today: string, options: Omit<DemoOptions, 'today'> = {}): StoredLeg[] {
  const records = generateDemoRecords({ ...options, today });
  const result = validateImportRecords(records, { today });
  if (result.errors.length > 0) {
    throw new Error(`Demo data has ${result.errors.length} invalid records, first: ${result.errors[0]!.message}`);
  }
  return result.legs;
}

/**
 * The demo's departure times (docs/import-format.md, "Departure times"): every tenth leg that ends
 * after tomorrow leaves from 09:00 on its startDate to 18:30 on its endDate (local), so
 * `include=departure` shows some; no leg's expiry moves on the day of `npm start`.
 */
export function withDemoDepartureTimes(legs: readonly StoredLeg[], today: string): StoredLeg[] {
  const tomorrow = addDays(today, 1);
  return legs.map((leg, i) => (i % 10 === 3 && leg.endDate > tomorrow ? { ...leg, depTimeFrom: '09:00', depTimeTo: '18:30' } : leg));
}
