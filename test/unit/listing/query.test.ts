import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../src/errors.js';
import { parseListQuery, type ListQuery } from '../../../src/listing/query.js';
import { compileQuery } from '../../../src/listing/listing.js';
import { indexEntry, type EntryFields } from '../../support/index-entries.js';

function invalid(params: Record<string, string>): AppError {
  try {
    parseListQuery(params);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error(`expected INVALID_PARAMETER for ${JSON.stringify(params)}`);
}

describe('parseListQuery: defaults', () => {
  it('gives page 1, size 20, offset 0 and no filters without parameters', () => {
    const expected: ListQuery = {
      page: 1,
      size: 20,
      depDate: undefined,
      offsetDays: 0,
      depCityName: undefined,
      arrCityName: undefined,
      depAirportCode: undefined,
      arrAirportCode: undefined,
      depNear: undefined,
      depRadiusKm: undefined,
      arrNear: undefined,
      arrRadiusKm: undefined,
      minSeats: undefined,
      aircraftType: undefined,
      tripFrom: undefined,
      tripTo: undefined,
      maxDetourPct: undefined,
      depCountryCode: undefined,
      arrCountryCode: undefined,
      depContinent: undefined,
      arrContinent: undefined,
      source: undefined,
      kind: undefined,
      verifiedOnly: undefined,
      maxAgeHours: undefined,
      sort: undefined,
      currency: undefined,
      minPrice: undefined,
      maxPrice: undefined,
      pricedOnly: undefined,
      group: undefined,
    };
    expect(parseListQuery(undefined)).toEqual(expected);
    expect(parseListQuery({})).toEqual(expected);
  });

  it('treats empty values as absent and ignores unknown parameters', () => {
    const q = parseListQuery({ page: '', size: '', depDate: '', offsetDays: '', depCityName: '', foo: 'bar' });
    expect([q.page, q.size, q.depDate, q.offsetDays, q.depCityName]).toEqual([1, 20, undefined, 0, undefined]);
  });
});

describe('parseListQuery: page and size are clamped integers', () => {
  it.each([
    ['page', '0', 1],
    ['page', '-3', 1],
    ['page', '+2', 2],
    ['page', '007', 7],
    ['page', '99999999999999999999999999', Number.MAX_SAFE_INTEGER],
    ['size', '1000', 100],
    ['size', '100', 100],
    ['size', '0', 1],
    ['size', '-1', 1],
    ['size', '1', 1],
    ['size', '55', 55],
    ['size', '123456789012345678901234567890', 100],
  ])('%s=%s -> %d', (name, value, expected) => {
    expect(parseListQuery({ [name]: value })[name as 'page' | 'size']).toBe(expected);
  });

  it.each([
    ['page', 'abc'],
    ['page', '1.5'],
    ['page', '1e3'],
    ['page', ' 2'],
    ['page', '1,2'],
    ['size', 'abc'],
    ['size', '10.0'],
    ['size', '-'],
  ])('%s=%s is INVALID_PARAMETER naming the parameter', (name, value) => {
    const err = invalid({ [name]: value });
    expect(err.code).toBe('INVALID_PARAMETER');
    expect(err.status).toBe(400);
    expect(err.message).toContain(`'${name}'`);
    expect(err.message).toContain('integer');
  });
});

describe('parseListQuery: depDate and offsetDays', () => {
  it('accepts a real date and an offset from 0 to 15', () => {
    const q = parseListQuery({ depDate: '2026-12-01', offsetDays: '15' });
    expect(q.depDate).toBe('2026-12-01');
    expect(q.offsetDays).toBe(15);
  });

  it.each(['2026-02-30', '2026-13-01', '26-12-01', '2026/12/01', '2026-12-1', 'tomorrow', '2026-12-01T00:00:00Z'])(
    'depDate=%s is a bad format',
    (value) => {
      const err = invalid({ depDate: value });
      expect(err.message).toContain("'depDate'");
      expect(err.message).toContain('yyyy-MM-dd');
    },
  );

  it.each(['16', '-1', '100', 'abc', '1.5'])('offsetDays=%s is outside 0-15', (value) => {
    const err = invalid({ depDate: '2026-12-01', offsetDays: value });
    expect(err.message).toContain("'offsetDays'");
    expect(err.message).toContain('0 to 15');
  });

  it('rejects a non-zero offset without depDate, naming offsetDays and the rule', () => {
    const err = invalid({ offsetDays: '3' });
    expect(err.message).toContain("'offsetDays'");
    expect(err.message).toContain('depDate');
  });

  it('accepts offsetDays=0 without depDate', () => {
    expect(parseListQuery({ offsetDays: '0' }).offsetDays).toBe(0);
  });
});

describe('parseListQuery: city names', () => {
  it('trims, lower-cases, drops accents and keeps 2 to 100 characters', () => {
    expect(parseListQuery({ depCityName: '  New York ' }).depCityName).toBe('new york');
    expect(parseListQuery({ arrCityName: 'Zürich' }).arrCityName).toBe('zurich');
    // The length rule counts the characters as given, before folding.
    expect(() => parseListQuery({ arrCityName: 'É' })).toThrow(/arrCityName/);
    expect(parseListQuery({ depCityName: 'x'.repeat(100) }).depCityName).toHaveLength(100);
  });

  it('ignores a blank city name', () => {
    expect(parseListQuery({ depCityName: '   ' }).depCityName).toBeUndefined();
  });

  it.each([
    ['depCityName', 'L'],
    ['depCityName', '  L  '],
    ['arrCityName', 'y'.repeat(101)],
  ])('%s=%s has a bad length', (name, value) => {
    const err = invalid({ [name]: value });
    expect(err.message).toContain(`'${name}'`);
    expect(err.message).toContain('2 to 100');
  });
});

describe('parseListQuery: airport codes', () => {
  it('reads 4 letters as ICAO and 3 as IATA, case-insensitively', () => {
    expect(parseListQuery({ depAirportCode: 'kTeB' }).depAirportCode).toEqual({ kind: 'icao', code: 'kteb' });
    expect(parseListQuery({ arrAirportCode: 'TEB' }).arrAirportCode).toEqual({ kind: 'iata', code: 'teb' });
  });

  it.each([
    ['depAirportCode', 'KTEBX'],
    ['depAirportCode', 'TE'],
    ['arrAirportCode', 'K1EB'],
    ['arrAirportCode', 'ÅLES'],
  ])('%s=%s is not a 3- or 4-letter code', (name, value) => {
    const err = invalid({ [name]: value });
    expect(err.message).toContain(`'${name}'`);
    expect(err.message).toContain('ICAO');
  });
});

describe('parseListQuery: nearby (depNear, arrNear and their radius)', () => {
  it('reads the centre like an airport code and the radius as whole km', () => {
    const q = parseListQuery({ depNear: 'eglf', depRadiusKm: '80', arrNear: 'NCE' });
    expect([q.depNear, q.depRadiusKm, q.arrNear, q.arrRadiusKm]).toEqual([
      { kind: 'icao', code: 'eglf' },
      80,
      { kind: 'iata', code: 'nce' },
      undefined,
    ]);
  });

  it.each(['1', '1000', '+7', '0050'])('accepts radius %s', (value) => {
    expect(parseListQuery({ depNear: 'LFPB', depRadiusKm: value }).depRadiusKm).toBe(Number(value));
  });

  it.each(['0', '1001', '-5', '12.5', '1e2', 'ten', ' 80'])('refuses radius %s with its range', (value) => {
    const err = invalid({ arrNear: 'LFPB', arrRadiusKm: value });
    expect(err.message).toContain("'arrRadiusKm'");
    expect(err.message).toContain('1 to 1000');
  });

  it.each([
    ['depRadiusKm', 'depNear'],
    ['arrRadiusKm', 'arrNear'],
  ])('refuses %s without %s', (radius, centre) => {
    const err = invalid({ [radius]: '50' });
    expect(err.message).toContain(`'${radius}'`);
    expect(err.message).toContain(centre);
  });

  it.each(['KTEBX', 'TE', '12AB'])('refuses depNear=%s as no airport code', (value) => {
    expect(invalid({ depNear: value }).message).toContain("'depNear'");
  });

  it('treats an empty radius as absent', () => {
    expect(parseListQuery({ depNear: 'LFPB', depRadiusKm: '' }).depRadiusKm).toBeUndefined();
  });
});

describe('parseListQuery: minSeats', () => {
  it.each([
    ['1', 1],
    ['850', 850],
    ['+8', 8],
    ['0012', 12],
  ])('accepts %s as %d', (value, expected) => {
    expect(parseListQuery({ minSeats: value }).minSeats).toBe(expected);
  });

  // Refused, not clamped: 1000 seats is more than any leg has, 0 would drop the legs of unknown seats.
  it.each(['0', '-0', '-3', '851', '99999999999999999999999', '8.5', '1e2', 'eight', ' 8', '8 '])('refuses %s with its range', (value) => {
    const err = invalid({ minSeats: value });
    expect(err.message).toContain("'minSeats'");
    expect(err.message).toContain('1 to 850');
  });

  it('treats an empty value as absent', () => {
    expect(parseListQuery({ minSeats: '' }).minSeats).toBeUndefined();
  });
});

describe('parseListQuery: aircraftType', () => {
  it('reads one or several categories, in any case and spelling, as the vocabulary in its order, once each', () => {
    const q = parseListQuery({ aircraftType: 'heavy jet, LIGHT-JET,Heavy Jets,ultra_long_range' });
    // The bits of the 4th, 7th and 8th categories of the vocabulary.
    expect(q.aircraftType).toBe((1 << 3) | (1 << 6) | (1 << 7));
    expect(parseListQuery({ aircraftType: 'Ultra Long Range,Light Jet,heavy jet' }).aircraftType).toBe(q.aircraftType);
  });

  it.each(['Glider', 'Light Jet,Glider', 'Light Jet,', ',Heavy Jet', 'Light Jet,,Heavy Jet', 'jet'])(
    'refuses %j, listing the categories',
    (value) => {
      const err = invalid({ aircraftType: value });
      expect(err.message).toContain("'aircraftType'");
      expect(err.message).toContain('Piston, Turboprop, Very Light Jet, Light Jet, Midsize Jet, Super Midsize Jet, Heavy Jet, Ultra Long Range, Airliner, Helicopter');
    },
  );

  it('treats an empty value as absent', () => {
    expect(parseListQuery({ aircraftType: '' }).aircraftType).toBeUndefined();
  });
});

/** True when a leg with these fields (flyable on 2026-12-01) passes the compiled query of these parameters. */
function passes(params: Record<string, string>, fields: Partial<EntryFields>): boolean {
  const entry = indexEntry({
    id: 'a',
    startDate: '2026-12-01',
    endDate: '2026-12-01',
    expiresAt: Date.parse('2026-12-02T00:00:00Z'),
    depCity: 'london',
    depIcao: 'eglf',
    depIata: 'fab',
    arrCity: 'nice',
    arrIcao: 'lfmn',
    arrIata: 'nce',
    ...fields,
  });
  const compiled = compileQuery(parseListQuery(params));
  return compiled.matches(entry, compiled.window('2026-11-21')!, Date.parse('2026-11-21T12:00:00Z'));
}

describe('the compiled filters (what a leg must be to pass each)', () => {
  it('keeps every leg in the window without filters', () => {
    expect(passes({}, {})).toBe(true);
    expect(passes({ depDate: '2026-12-03' }, {})).toBe(false);
  });

  it('keeps a leg with at least minSeats seats; unknown seats never match', () => {
    expect(passes({ minSeats: '12' }, { seats: 12 })).toBe(true);
    expect(passes({ minSeats: '13' }, { seats: 12 })).toBe(false);
    expect(passes({ minSeats: '1' }, {})).toBe(false);
  });

  it('combines the filters with AND', () => {
    expect(passes({ depCityName: 'lon', arrAirportCode: 'NCE', aircraftType: 'heavy jet' }, { aircraftType: 'Heavy Jet' })).toBe(true);
    expect(passes({ depCityName: 'lon', arrAirportCode: 'NCE', aircraftType: 'light jet' }, { aircraftType: 'Heavy Jet' })).toBe(false);
  });

  it('keeps a leg whose country is one of the codes given, any case; a leg without a country never matches', () => {
    expect(passes({ depCountryCode: 'gb' }, { depCountry: 'GB', arrCountry: 'FR' })).toBe(true);
    expect(passes({ depCountryCode: 'IT, gb' }, { depCountry: 'GB', arrCountry: 'FR' })).toBe(true);
    expect(passes({ arrCountryCode: 'GB' }, { depCountry: 'GB', arrCountry: 'FR' })).toBe(false);
    expect(passes({ arrCountryCode: 'FR' }, { depCountry: 'GB', arrCountry: 'FR' })).toBe(true);
    expect(passes({ depCountryCode: 'GB' }, { arrCountry: 'FR' })).toBe(false);
    // An entry written before the countries field: no country.
    expect(passes({ depCountryCode: 'GB' }, {})).toBe(false);
  });

  it("takes a leg's continent from its airport (the reference's country), else from its own country", () => {
    // EGLF is Farnborough (GB, Europe) and LFMN Nice (FR, Europe): the airport decides, whatever the leg's country says.
    expect(passes({ depContinent: 'EU' }, { depCountry: 'US' })).toBe(true);
    expect(passes({ depContinent: 'na' }, { depCountry: 'US' })).toBe(false);
    // No airport the reference knows: the leg's country.
    expect(passes({ depContinent: 'NA,SA' }, { depIcao: 'zzzz', depIata: '', depCountry: 'US' })).toBe(true);
    expect(passes({ arrContinent: 'AS' }, { arrIcao: '', arrIata: '', arrCountry: 'RU' })).toBe(false);
    expect(passes({ arrContinent: 'EU' }, { arrIcao: '', arrIata: '', arrCountry: 'RU' })).toBe(true);
    // Neither: never matches.
    expect(passes({ arrContinent: 'EU,AS,AF,NA,SA,OC,AN' }, { arrIcao: '', arrIata: '' })).toBe(false);
  });
});

describe('parseListQuery: areas and trips', () => {
  it.each([
    ['depCountryCode', 'ZZ', '"ZZ" is not an ISO 3166-1 alpha-2 country code'],
    ['arrCountryCode', 'FR,', '"" is not an ISO 3166-1 alpha-2 country code'],
    ['depCountryCode', 'FRA', '"FRA"'],
    ['depContinent', 'EUR', '"EUR" is not one of AF AN AS EU NA OC SA'],
    ['arrContinent', 'EU,XX', '"XX"'],
  ])('%s=%s is INVALID_PARAMETER naming the parameter and the item', (name, value, rule) => {
    const err = invalid({ [name]: value });
    expect(err.message).toContain(`'${name}'`);
    expect(err.message).toContain(rule);
  });

  it('reads maxDetourPct 0 to 100, checked, and a trip by ICAO or IATA code', () => {
    const q = parseListQuery({ tripFrom: 'lfpb', tripTo: 'FCO', maxDetourPct: '0' });
    expect([q.tripFrom, q.tripTo, q.maxDetourPct]).toEqual([{ kind: 'icao', code: 'lfpb' }, { kind: 'iata', code: 'fco' }, 0]);
    expect(parseListQuery({ tripFrom: 'LFPB', tripTo: 'FCO' }).maxDetourPct).toBeUndefined();
    expect(invalid({ tripFrom: 'LFPB', tripTo: 'FCO', maxDetourPct: '101' }).message).toContain("'maxDetourPct'");
  });
});

