import { LRUCache } from 'lru-cache';
import type { AirportIndex } from '../airports/index.js';
import { invalidParameter } from '../errors.js';
import { DEFAULT_RADIUS_KM, type AirportFilter, type ListQuery } from './query.js';

/**
 * Nearby search (docs/api.md, "Nearby"): the codes of the reference's airports within the radius
 * of a centre, measured once per centre and radius; a leg matches when its code is among them.
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
  const airport = airports.byCode(centre.code);
  if (airport === undefined) {
    throw invalidParameter(parameter, `no airport has the ${centre.kind.toUpperCase()} code '${centre.code.toUpperCase()}'`);
  }
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
