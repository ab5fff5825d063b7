import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { CONTINENTS, continentOfCountry } from '../../../src/airports/continents.js';
import { COUNTRY_CODES } from '../../../src/kernel/countries.js';
import type { AirportDataFile } from '../../../src/airports/data-file.js';

/** The committed continent map (docs/airports.md, "Continents"): one continent for every ISO code, and for every airport's country. */
describe('continents', () => {
  it('gives every ISO 3166-1 code the import accepts one of the seven continents', () => {
    const missing = [...COUNTRY_CODES].filter((c) => continentOfCountry(c) === undefined);
    expect(missing).toEqual([]);
    for (const c of COUNTRY_CODES) expect(CONTINENTS).toContain(continentOfCountry(c));
  });

  it("covers the country of every airport of the reference, and says what the source says where continents meet", () => {
    const file = JSON.parse(readFileSync('src/airports/data/airports.json', 'utf8')) as AirportDataFile;
    expect(Object.keys(file.countries).filter((c) => continentOfCountry(c) === undefined)).toEqual([]);
    expect(['RU', 'TR', 'CY', 'EG', 'PA', 'FR', 'AU', 'AQ', 'BR'].map(continentOfCountry)).toEqual(['EU', 'AS', 'AS', 'AF', 'NA', 'EU', 'OC', 'AN', 'SA']);
    expect(continentOfCountry('ZZ')).toBeUndefined();
  });
});
