import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { distanceKm, EARTH_RADIUS_KM } from '../../../src/airports/geo.js';
import { AirportIndex } from '../../../src/airports/reference.js';
import { fcParams } from '../../support/fast-check.js';
import { airportsArb, latitude, longitude, onTheEdge, referenceKm } from '../../support/airports.js';

/**
 * The airport reference's distance search (src/airports/reference.ts `within`) against a brute-force
 * reference: every airport measured with @turf/distance. Centres and airports at and around the
 * poles and the antimeridian are drawn often; radii from 1 km to half the Earth's circumference.
 */
const radius = fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.double({ min: 0.001, max: Math.PI * EARTH_RADIUS_KM, noNaN: true }));

describe('AirportIndex.within', () => {
  it('finds exactly the airports a brute-force great-circle search finds', () => {
    fc.assert(
      fc.property(airportsArb(60), fc.tuple(latitude, longitude), radius, (airports, [lat, lon], km) => {
        const centre = { latitude: lat, longitude: lon };
        fc.pre(airports.every((a) => !onTheEdge(referenceKm(centre, a), km)));
        const found = new AirportIndex(airports).within(lat, lon, km).map((a) => a.icao ?? a.iata);
        const want = airports.filter((a) => referenceKm(centre, a) <= km).map((a) => a.icao ?? a.iata);
        expect(found.sort()).toEqual(want.sort());
      }),
      fcParams(3000),
    );
  });

  it('measures as @turf/distance does, to a metre (both lose digits near antipodal points: about 0.1 m there)', () => {
    fc.assert(
      fc.property(latitude, longitude, latitude, longitude, (lat1, lon1, lat2, lon2) => {
        const ours = distanceKm(lat1, lon1, lat2, lon2);
        expect(Math.abs(ours - referenceKm({ latitude: lat1, longitude: lon1 }, { latitude: lat2, longitude: lon2 }))).toBeLessThan(1e-3);
      }),
      fcParams(3000),
    );
  });

  it('joins the two sides of the antimeridian and of a pole', () => {
    const index = new AirportIndex(
      [
        [10, 179.9, 'ZAAA'],
        [10, -179.9, 'ZAAB'],
        [89.9, 0, 'ZAAC'],
        [89.9, 180, 'ZAAD'],
        [-89.9, 90, 'ZAAE'],
        [-89.9, -90, 'ZAAF'],
      ].map(([lat, lon, icao]) => ({
        icao: icao as string,
        iata: null,
        name: String(icao),
        municipality: null,
        countryCode: 'XX',
        countryName: 'Nowhere',
        latitude: lat as number,
        longitude: lon as number,
        timeZone: 'UTC',
        size: 'S' as const,
      })),
    );
    // 0.2 degrees of longitude at 10 N is about 21.9 km; across a pole 0.2 degrees of latitude about 22.2 km.
    expect(index.within(10, 179.9, 25).map((a) => a.icao)).toEqual(['ZAAA', 'ZAAB']);
    expect(index.within(89.9, 0, 25).map((a) => a.icao).sort()).toEqual(['ZAAC', 'ZAAD']);
    expect(index.within(-89.9, 90, 25).map((a) => a.icao).sort()).toEqual(['ZAAE', 'ZAAF']);
    expect(index.within(10, 179.9, 20).map((a) => a.icao)).toEqual(['ZAAA']);
  });
});
