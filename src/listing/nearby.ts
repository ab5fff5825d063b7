import { LRUCache } from 'lru-cache';
import { distanceKm, type Airport, type AirportIndex } from '../airports/index.js';
import { invalidParameter } from '../errors.js';
import { codeOf, type IndexEntry } from '../kernel/index-entry.js';
import { DEFAULT_MAX_DETOUR_PCT, DEFAULT_RADIUS_KM, type AirportFilter, type ListQuery } from './query.js';

/**
 * Nearby search (docs/api.md, "Nearby"): the codes of the reference's airports within the radius
 * of a centre, measured once per centre and radius; a leg matches when its code is among them. Trip
 * search (docs/api.md, "Trips"): the legs that can fly a client's trip on the way.
 */
export interface NearCodes {
  /** Lower-case ICAO codes of the airports within the radius (as the index entries hold codes). */
  icao: ReadonlySet<string>;
  iata: ReadonlySet<string>;
}

export interface Near {
  dep?: NearCodes | undefined;
  arr?: NearCodes | undefined;
}

/** The codes of the airports within `radiusKm` of `centre`; throws INVALID_PARAMETER naming `parameter` when no airport has it. */
export function nearCodes(airports: AirportIndex, centre: AirportFilter, radiusKm: number, parameter: string): NearCodes {
  const airport = airportNamed(airports, centre, parameter);
  const icao = new Set<string>();
  const iata = new Set<string>();
  for (const a of airports.within(airport.latitude, airport.longitude, radiusKm)) {
    if (a.icao !== null) icao.add(a.icao.toLowerCase());
    if (a.iata !== null) iata.add(a.iata.toLowerCase());
  }
  return { icao, iata };
}

/** A container's recent centres and radii, with their codes (a few hundred bytes to a few kB each), per reference. */
const recent = new WeakMap<AirportIndex, LRUCache<string, NearCodes>>();

/**
 * The nearby filters of a query, or an empty object when it has none. `airports` is called only when
 * the query asks (the reference is read on first use).
 */
export function nearOf(query: Pick<ListQuery, 'depNear' | 'depRadiusKm' | 'arrNear' | 'arrRadiusKm'>, airports: () => AirportIndex): Near {
  if (query.depNear === undefined && query.arrNear === undefined) return {};
  const index = airports();
  let cache = recent.get(index);
  if (cache === undefined) recent.set(index, (cache = new LRUCache<string, NearCodes>({ max: 256 })));
  const side = (centre: AirportFilter | undefined, radius: number | undefined, parameter: string) => {
    if (centre === undefined) return undefined;
    const km = radius ?? DEFAULT_RADIUS_KM;
    const key = `${centre.code}|${km}`;
    let codes = cache.get(key);
    if (codes === undefined) cache.set(key, (codes = nearCodes(index, centre, km, parameter)));
    return codes;
  };
  return { dep: side(query.depNear, query.depRadiusKm, 'depNear'), arr: side(query.arrNear, query.arrRadiusKm, 'arrNear') };
}

/** What a leg that serves a trip flies in addition (docs/api.md, "Trips"): rounded km, and percent of its own distance to one decimal. */
export interface Detour {
  extraKm: number;
  percent: number;
}

/** A trip search compiled: the detour of a leg that serves the trip, undefined for one that does not. */
export interface Trip {
  detourOf(entry: IndexEntry): Detour | undefined;
}

function airportNamed(airports: AirportIndex, code: AirportFilter, parameter: string): Airport {
  const airport = airports.byCode(code.code);
  if (airport === undefined) throw invalidParameter(parameter, `no airport has the ${code.kind.toUpperCase()} code '${code.code.toUpperCase()}'`);
  return airport;
}

const km = (a: Airport, b: Airport) => distanceKm(a.latitude, a.longitude, b.latitude, b.longitude);

/**
 * The trip of a query (`tripFrom`, `tripTo`, `maxDetourPct`), or undefined without one: a leg A->B
 * serves X->Y when A and B are airports of the reference (placed by ICAO code, else IATA, as
 * `placedAt`) and A->X->Y->B is at most (100 + maxDetourPct) % of A->B. Throws INVALID_PARAMETER for
 * an unknown code.
 */
export function tripOf(query: Pick<ListQuery, 'tripFrom' | 'tripTo' | 'maxDetourPct'>, airports: () => AirportIndex): Trip | undefined {
  if (query.tripFrom === undefined || query.tripTo === undefined) return undefined;
  const index = airports();
  const from = airportNamed(index, query.tripFrom, 'tripFrom');
  const to = airportNamed(index, query.tripTo, 'tripTo');
  const allowed = 100 + (query.maxDetourPct ?? DEFAULT_MAX_DETOUR_PCT);
  const between = km(from, to);
  // Per pair of placing codes: many legs share their ends.
  const pairs = new Map<string, Detour | null>();
  const detour = (depCode: string, arrCode: string): Detour | null => {
    const a = depCode === '' ? undefined : index.byCode(depCode);
    const b = arrCode === '' ? undefined : index.byCode(arrCode);
    if (a === undefined || b === undefined) return null;
    const direct = km(a, b);
    const via = km(a, from) + between + km(to, b);
    if (via * 100 > direct * allowed) return null;
    const extra = Math.max(0, via - direct);
    return { extraKm: Math.round(extra), percent: direct === 0 ? 0 : Math.round((1000 * extra) / direct) / 10 };
  };
  return {
    detourOf(entry) {
      const dep = codeOf(entry, 'dep', 'icao') || codeOf(entry, 'dep', 'iata');
      const arr = codeOf(entry, 'arr', 'icao') || codeOf(entry, 'arr', 'iata');
      const key = `${dep} ${arr}`;
      let found = pairs.get(key);
      if (found === undefined) pairs.set(key, (found = detour(dep, arr)));
      return found ?? undefined;
    },
  };
}
