import turfDistance from '@turf/distance';
import fc from 'fast-check';
import type { Airport } from '../../src/airports/reference.js';

/**
 * Generated airports for the nearby search's property tests: coordinates anywhere, with the poles,
 * the antimeridian and the equator drawn often; unique codes, some airports without an ICAO or an
 * IATA code. And the brute-force reference: the great-circle distance by @turf/distance (an
 * implementation that is not ours), on the same mean Earth radius.
 */
const EDGE_LATITUDES = [90, -90, 89.999, -89.999, 89.5, -89.5, 0, 45, -45, 60];
const EDGE_LONGITUDES = [180, -180, 179.999, -179.999, 179.5, -179.5, 0, 0.001, -0.001, 90, -90];

export const latitude = fc.oneof(
  fc.double({ min: -90, max: 90, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(...EDGE_LATITUDES),
  fc.tuple(fc.constantFrom(...EDGE_LATITUDES), fc.double({ min: -2, max: 2, noNaN: true })).map(([l, d]) => Math.max(-90, Math.min(90, l + d))),
);
export const longitude = fc.oneof(
  fc.double({ min: -180, max: 180, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(...EDGE_LONGITUDES),
  fc.tuple(fc.constantFrom(...EDGE_LONGITUDES), fc.double({ min: -2, max: 2, noNaN: true })).map(([l, d]) => Math.max(-180, Math.min(180, l + d))),
);

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const code = (n: number, length: number) => {
  let out = '';
  for (let i = 0; i < length; i++, n = Math.floor(n / 26)) out = LETTERS[n % 26]! + out;
  return out;
};

/** Up to `max` airports, clustered (a second airport often lies near the first) and spread over the globe. */
export function airportsArb(max = 40): fc.Arbitrary<Airport[]> {
  const point = fc.tuple(latitude, longitude);
  const nearby = fc.tuple(fc.double({ min: -3, max: 3, noNaN: true }), fc.double({ min: -3, max: 3, noNaN: true }));
  return fc
    .array(fc.record({ at: point, offset: fc.option(nearby, { nil: undefined }), codes: fc.constantFrom('both', 'both', 'both', 'icao', 'iata') }), {
      minLength: 1,
      maxLength: max,
    })
    .map((raw) =>
      raw.map((r, i): Airport => {
        const base = raw[Math.max(0, i - 1)]!.at;
        const [lat, lon] = r.offset ? [base[0] + r.offset[0], base[1] + r.offset[1]] : r.at;
        return {
          icao: r.codes === 'iata' ? null : `Z${code(i, 3)}`,
          iata: r.codes === 'icao' ? null : `Q${code(i, 2)}`,
          name: `Airport ${i}`,
          municipality: null,
          countryCode: 'XX',
          countryName: 'Nowhere',
          latitude: Math.max(-90, Math.min(90, lat)),
          longitude: ((((lon + 180) % 360) + 360) % 360) - 180,
          timeZone: 'UTC',
          size: 'M',
        };
      }),
    );
}

/** Great-circle km between two airports by @turf/distance. */
export function referenceKm(a: Pick<Airport, 'latitude' | 'longitude'>, b: Pick<Airport, 'latitude' | 'longitude'>): number {
  return turfDistance([a.longitude, a.latitude], [b.longitude, b.latitude], { units: 'kilometers' });
}

/**
 * True when `km` is too close to `radius` for two correct formulas to agree on which side it lies:
 * within a metre (near antipodal points haversine formulas differ by about 0.1 m), or a millionth.
 */
export function onTheEdge(km: number, radius: number): boolean {
  return Math.abs(km - radius) <= 1e-3 + 1e-6 * radius;
}
