import { readFileSync } from 'node:fs';
import { fold } from '../kernel/leg-item.js';
import type { AirportDataFile, AirportSize } from './data-file.js';
import { distanceKm, latitudeBand } from './geo.js';

/**
 * The airport reference (docs/airports.md), looked up by code, by distance, and by city for a time
 * zone. The data file is read on first use only, `airportReference()`, not at start-up
 * (docs/performance.md, "Airports: nearby search and the airport checks").
 */
export interface Airport {
  /** 4 letters, upper case; null when the airport has none. */
  icao: string | null;
  /** 3 letters, upper case; null when the airport has none. */
  iata: string | null;
  name: string;
  /** The town or city it serves, as the dataset names it (`Luton, Bedfordshire`); null when unknown. */
  municipality: string | null;
  countryCode: string;
  countryName: string;
  latitude: number;
  longitude: number;
  /** IANA zone of the airport's coordinates. */
  timeZone: string;
  size: AirportSize;
}

export type CodeKind = 'icao' | 'iata';

/** A code's kind by its length: 4 letters ICAO, 3 IATA. */
export function codeKind(code: string): CodeKind {
  return code.length === 4 ? 'icao' : 'iata';
}

/** The city part of a municipality, folded: `Luton, Bedfordshire` -> `luton`. */
function cityKey(municipality: string): string {
  return fold(municipality.split(',')[0]!.trim());
}

export class AirportIndex {
  private readonly icao = new Map<string, Airport>();
  private readonly iata = new Map<string, Airport>();
  /** Sorted by latitude, for the band search. */
  private readonly byLatitude: Airport[];
  private readonly latitudes: Float64Array;
  /** Folded city -> the zones of its airports, by country ('' for any country). */
  private cityZones: Map<string, Map<string, Set<string>>> | undefined;

  constructor(readonly airports: readonly Airport[]) {
    for (const a of airports) {
      if (a.icao !== null) this.icao.set(a.icao, a);
      if (a.iata !== null) this.iata.set(a.iata, a);
    }
    this.byLatitude = [...airports].sort((a, b) => a.latitude - b.latitude);
    this.latitudes = Float64Array.from(this.byLatitude, (a) => a.latitude);
  }

  /** The airport with this ICAO (4 letters) or IATA (3 letters) code, any case; undefined when none has it. */
  byCode(code: string): Airport | undefined {
    const upper = code.toUpperCase();
    return (codeKind(code) === 'icao' ? this.icao : this.iata).get(upper);
  }

  /** Every airport within `radiusKm` (great circle, inclusive) of the point. */
  within(latitude: number, longitude: number, radiusKm: number): Airport[] {
    const [min, max] = latitudeBand(latitude, radiusKm);
    const out: Airport[] = [];
    for (let i = this.firstAtOrAbove(min); i < this.byLatitude.length && this.latitudes[i]! <= max; i++) {
      const a = this.byLatitude[i]!;
      if (distanceKm(latitude, longitude, a.latitude, a.longitude) <= radiusKm) out.push(a);
    }
    return out;
  }

  /**
   * The zone every airport whose municipality is `city` (ignoring case, accents and what follows a
   * comma), in `countryCode` when one is given, lies in; undefined when no airport serves such a
   * city, or its airports lie in several zones.
   */
  cityZone(city: string, countryCode: string | null): string | undefined {
    if (this.cityZones === undefined) {
      this.cityZones = new Map();
      for (const a of this.airports) {
        if (a.municipality === null) continue;
        const key = cityKey(a.municipality);
        let byCountry = this.cityZones.get(key);
        if (!byCountry) this.cityZones.set(key, (byCountry = new Map<string, Set<string>>()));
        for (const country of ['', a.countryCode]) {
          let zones = byCountry.get(country);
          if (!zones) byCountry.set(country, (zones = new Set()));
          zones.add(a.timeZone);
        }
      }
    }
    const zones = this.cityZones.get(cityKey(city))?.get(countryCode ?? '');
    return zones?.size === 1 ? [...zones][0] : undefined;
  }

  /**
   * The airports whose code of the same kind is one slip away from `code` (two neighbours swapped,
   * or one letter changed): swaps first, then those in `near`'s city and country, then the larger
   * airports. At most `max`.
   */
  similarCodes(code: string, near?: { city?: string | null; countryCode?: string | null }, max = 3): Airport[] {
    const upper = code.toUpperCase();
    const map = codeKind(code) === 'icao' ? this.icao : this.iata;
    // Candidate -> how likely a slip it is: two neighbours swapped beats a letter changed.
    const found = new Map<Airport, number>();
    const consider = (candidate: string, slip: number) => {
      const a = candidate !== upper ? map.get(candidate) : undefined;
      if (a && (found.get(a) ?? Infinity) > slip) found.set(a, slip);
    };
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    for (let i = 0; i < upper.length; i++) {
      for (const c of letters) consider(upper.slice(0, i) + c + upper.slice(i + 1), 1);
      if (i + 1 < upper.length) consider(upper.slice(0, i) + upper[i + 1] + upper[i] + upper.slice(i + 2), 0);
    }
    const city = near?.city ? cityKey(near.city) : undefined;
    const score = (a: Airport) =>
      found.get(a)! * 3 +
      (city !== undefined && a.municipality !== null && cityKey(a.municipality) === city ? 0 : 4) +
      (near?.countryCode && a.countryCode === near.countryCode ? 0 : 2) +
      (a.size === 'L' ? 0 : a.size === 'M' ? 0.5 : 1);
    return [...found.keys()].sort((a, b) => score(a) - score(b)).slice(0, max);
  }

  private firstAtOrAbove(latitude: number): number {
    let lo = 0;
    let hi = this.latitudes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.latitudes[mid]! < latitude) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The airports of a data file. */
export function airportsOf(file: AirportDataFile): Airport[] {
  return file.airports.map(([icao, iata, name, municipality, countryCode, latitude, longitude, zone, size]) => ({
    icao,
    iata,
    name,
    municipality,
    countryCode,
    countryName: file.countries[countryCode] ?? countryCode,
    latitude,
    longitude,
    timeZone: file.zones[zone]!,
    size,
  }));
}

/**
 * Where the data file is: beside this module in the source tree (src/airports/data/), and beside
 * the bundle in a deployed function (lib/bundling.ts copies it to `data/` next to index.mjs, where
 * `import.meta.url` then points).
 */
export const AIRPORT_DATA_URL = new URL('./data/airports.json', import.meta.url);

let reference: AirportIndex | undefined;

/** The airport reference, read from the data file on first use and kept for the process's life. */
export function airportReference(): AirportIndex {
  reference ??= new AirportIndex(airportsOf(JSON.parse(readFileSync(AIRPORT_DATA_URL, 'utf8')) as AirportDataFile));
  return reference;
}
