import { describe, expect, it } from '@jest/globals';
import { parseImportText, validateImportRecord } from '../../../../src/loading/import/index.js';
import { EMPTY_LEG_FIELDS } from '../../../../src/kernel/model.js';
import { BASE, NULLABLE, TODAY, errorsOf, record, type Patch } from '../../../support/import-records.js';

/** The rules of one import record (src/loading/import/schema.ts). */

describe('a complete valid record', () => {
  it('becomes a stored leg with every field, in the API field order, plus the listing state', () => {
    const result = validateImportRecord(record(), { today: TODAY });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.keys(result.leg)).toEqual([...EMPTY_LEG_FIELDS, 'listed', 'blocked', 'depTimezone', 'source']);
    for (const key of Object.keys(BASE)) expect(result.leg[key as keyof typeof result.leg]).toEqual(BASE[key as keyof typeof BASE]);
  });
});

describe('departure times', () => {
  it('are kept as given, after the listing state; a later time on a later day is fine', () => {
    const result = validateImportRecord(record({ depTimeFrom: '18:00', depTimeTo: '09:30' }), { today: TODAY });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.leg).toMatchObject({ depTimeFrom: '18:00', depTimeTo: '09:30' });
    expect(Object.keys(result.leg).slice(-2)).toEqual(['depTimeFrom', 'depTimeTo']);
  });
});

describe('rules: one failing case per rule, naming the index, the field and the rule', () => {
  it.each<[string, Patch, string]>([
    ['id empty', { id: '' }, 'index 0: id: must be 1-64 of A-Z a-z 0-9 _ -, got ""'],
    ['id with a space', { id: 'LEG 1' }, 'index 0: id: must be 1-64 of'],
    ['id too long', { id: 'x'.repeat(65) }, 'index 0: id: must be 1-64 of'],
    ['id not a string', { id: 12 }, 'index 0: id: must be a string, got 12'],
    ['ICAO of 3 letters', { depAirportIcao: 'EGL' }, 'index 0: depAirportIcao: must be 4 letters (ICAO), got "EGL"'],
    ['ICAO with a digit', { arrAirportIcao: 'LSG1' }, 'index 0: arrAirportIcao: must be 4 letters (ICAO)'],
    ['IATA of 4 letters', { depAirportIata: 'LBGX' }, 'index 0: depAirportIata: must be 3 letters (IATA), got "LBGX"'],
    ['country code unknown', { depCountryCode: 'QQ' }, 'index 0: depCountryCode: must be an ISO 3166-1 alpha-2 country code, got "QQ"'],
    ['country code EU (not a country)', { arrCountryCode: 'EU' }, 'index 0: arrCountryCode: must be an ISO 3166-1 alpha-2 country code'],
    ['country code UN', { arrCountryCode: 'UN' }, 'arrCountryCode: must be an ISO 3166-1 alpha-2 country code'],
    ['country code ZZ', { arrCountryCode: 'ZZ' }, 'arrCountryCode: must be an ISO 3166-1 alpha-2 country code'],
    ['country code of 3 letters', { depCountryCode: 'FRA' }, 'depCountryCode: must be 2 letters (ISO 3166-1 alpha-2)'],
    ['currency unknown', { currency: 'EUX' }, 'index 0: currency: must be an ISO 4217 currency code, got "EUX"'],
    ['currency a unit of account', { currency: 'XDR' }, 'currency: must be an ISO 4217 currency code'],
    ['currency of 4 letters', { currency: 'EURO' }, 'currency: must be 3 letters (ISO 4217)'],
    ['startDate not a calendar date', { startDate: '2026-02-30' }, 'index 0: startDate: must be a real calendar date yyyy-MM-dd, got "2026-02-30"'],
    ['endDate in another format', { endDate: '12/12/2026' }, 'index 0: endDate: must be a real calendar date yyyy-MM-dd'],
    ['endDate before startDate', { endDate: '2026-12-09' }, 'index 0: endDate: must not be before startDate 2026-12-10, got "2026-12-09"'],
    ['neither startDate nor departureAt', { startDate: undefined }, 'index 0: startDate: is required (or give departureAt instead)'],
    ['both startDate and departureAt', { departureAt: '2026-12-10T10:00:00Z' }, 'index 0: departureAt: give either startDate or departureAt, not both'],
    ['departureAt without offset', { startDate: undefined, departureAt: '2026-12-10T10:00:00' }, 'index 0: departureAt: must be an ISO 8601 instant with an offset or Z'],
    ['departureAt on 2026-02-30', { startDate: undefined, departureAt: '2026-02-30T10:00:00Z' }, 'departureAt: must be an ISO 8601 instant'],
    ['departureAt hour 24', { startDate: undefined, departureAt: '2026-12-10T24:00:00Z' }, 'departureAt: must be an ISO 8601 instant'],
    ['amenity type unknown', { amenities: [{ amenityType: 'spa', amenityName: 'Spa', amenityDesc: 'x' }] }, 'index 0: amenities[0].amenityType: must be one of wifi, smoking, pets, bed, toilet, medical, got "spa"'],
    ['amenity name blank', { amenities: [{ amenityType: 'wifi', amenityName: '  ', amenityDesc: 'x' }] }, 'index 0: amenities[0].amenityName: must not be blank'],
    ['amenity desc missing', { amenities: [{ amenityType: 'wifi', amenityName: 'Wi-Fi' }] }, 'index 0: amenities[0].amenityDesc: is required'],
    ['amenity with an unknown field', { amenities: [{ amenityType: 'wifi', amenityName: 'a', amenityDesc: 'b', icon: 'x' }] }, 'index 0: amenities[0].icon: is not a field of the import format'],
    ['amenities not an array', { amenities: 'wifi' }, 'index 0: amenities: must be an array of amenities, got "wifi"'],
    ['time zone as an offset', { depTimezone: '+02:00' }, 'index 0: depTimezone: must be an IANA time zone such as Europe/Paris (not an offset), got "+02:00"'],
    ['time zone unknown', { depTimezone: 'Europe/Atlantis' }, 'index 0: depTimezone: must be an IANA time zone'],
    ['time zone null', { depTimezone: null }, 'index 0: depTimezone: must be a string, got null'],
    ['depTimeFrom without minutes', { depTimeFrom: '9' }, 'index 0: depTimeFrom: must be a local time HH:mm (00:00 to 23:59), got "9"'],
    ['depTimeTo past midnight', { depTimeTo: '24:00' }, 'index 0: depTimeTo: must be a local time HH:mm (00:00 to 23:59), got "24:00"'],
    ['depTimeTo with seconds', { depTimeTo: '18:00:00' }, 'index 0: depTimeTo: must be a local time HH:mm'],
    ['depTimeTo not a string', { depTimeTo: 1800 }, 'index 0: depTimeTo: must be a string, got 1800'],
    ['depTimeTo before depTimeFrom on a one-day leg', { endDate: '2026-12-10', depTimeFrom: '18:00', depTimeTo: '09:00' }, 'index 0: depTimeTo: must not be before depTimeFrom 18:00 on a one-day leg, got "09:00"'],
    ['price negative', { price: -1 }, 'index 0: price: must not be negative, got -1'],
    ['price a string', { price: '6900' }, 'index 0: price: must be a number or null, got "6900"'],
    ['price without currency', { currency: null }, 'index 0: currency: is required when price is given'],
    ['seats zero', { seatNum: 0 }, 'index 0: seatNum: must be a whole number from 1 to 850, got 0'],
    ['seats fractional', { seatNum: 7.5 }, 'index 0: seatNum: must be a whole number from 1 to 850, got 7.5'],
    ['seats too many', { seatNum: 851 }, 'index 0: seatNum: must be a whole number from 1 to 850, got 851'],
    ['makeYear too old', { makeYear: 1949, renovateYear: null }, 'index 0: makeYear: must be a whole year from 1950 to 2027, got 1949'],
    ['makeYear in the far future', { makeYear: 2028, renovateYear: null }, 'index 0: makeYear: must be a whole year from 1950 to 2027, got 2028'],
    ['renovateYear before makeYear', { makeYear: 2016, renovateYear: 2015 }, 'index 0: renovateYear: must not be before makeYear 2016, got 2015'],
    ['depCityName missing', { depCityName: undefined }, 'index 0: depCityName: is required'],
    ['depCityName blank', { depCityName: '   ' }, 'index 0: depCityName: must not be blank'],
    ['depCityName null', { depCityName: null }, 'index 0: depCityName: must be a string, got null'],
    ['arrCityName over 100 characters', { arrCityName: 'x'.repeat(101) }, 'index 0: arrCityName: must be at most 100 characters, got 101'],
    ['control character (the index separator)', { depCityName: 'Par\u001fis' }, 'index 0: depCityName: must not contain control characters'],
    ['control character in a nullable field', { airlineName: 'Air\nline' }, 'index 0: airlineName: must not contain control characters'],
    ['blank nullable text', { depAirportName: '' }, 'index 0: depAirportName: must not be blank (use null, or leave the field out, when unknown)'],
    ['image over http', { aircraftImg: 'http://images.example.com/cj4.jpg' }, 'index 0: aircraftImg: must be an https URL'],
    ['image not a URL', { aircraftImg: 'cj4.jpg' }, 'index 0: aircraftImg: must be an https URL, got "cj4.jpg"'],
    ['registration with spaces', { registration: 'F HCJF' }, 'index 0: registration: must be letters and digits'],
    ['listed not a boolean', { listed: 'yes' }, 'index 0: listed: must be true or false, got "yes"'],
    ['blocked not a boolean', { blocked: 1 }, 'index 0: blocked: must be true or false, got 1'],
    ['an unknown field, with a suggestion', { depAirprtIcao: 'LFPB' }, 'index 0: depAirprtIcao: is not a field of the import format (did you mean depAirportIcao?)'],
    ['an unknown field', { colour: 'red' }, 'index 0: colour: is not a field of the import format'],
    ['startDate past the listing horizon', { startDate: '2027-11-23', endDate: '2027-11-23' }, 'index 0: startDate: 2027-11-23 is more than 366 days after today (2026-11-21): the listing only reads 366 days ahead'],
  ])('%s', (_name, patch, expected) => {
    const errors = errorsOf(patch);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(expected);
  });

  it('reports every broken field of a record, not only the first', () => {
    const errors = errorsOf({ depAirportIcao: 'EGL', depAirportIata: 'LB', seatNum: -2 });
    expect(errors).toEqual([
      expect.stringContaining('index 0: depAirportIcao:'),
      expect.stringContaining('index 0: depAirportIata:'),
      expect.stringContaining('index 0: seatNum:'),
    ]);
  });

  it('refuses a record that is not an object', () => {
    const result = parseImportText('[{"id":1}, 5, [1], null]', { today: TODAY });
    expect(result.errors.map((e) => e.message)).toEqual(
      expect.arrayContaining(['index 1: must be a JSON object, got 5', 'index 2: must be a JSON object, got [1]', 'index 3: must be a JSON object, got null']),
    );
    expect(result.invalidRecords).toBe(4);
  });
});

describe('rules: passing cases and normalisation', () => {
  const ok = (patch: Patch) => {
    const r = validateImportRecord(record(patch), { today: TODAY });
    if (!r.ok) throw new Error(`expected valid, got ${JSON.stringify(r.issues)}`);
    return r.leg;
  };

  it.each<[string, Patch, Record<string, unknown>]>([
    ['codes in lower case are stored upper case', { depAirportIcao: 'lfpb', depAirportIata: 'lbg', depCountryCode: 'fr', currency: 'eur', registration: 'f-hcjf' }, { depAirportIcao: 'LFPB', depAirportIata: 'LBG', depCountryCode: 'FR', currency: 'EUR', registration: 'F-HCJF' }],
    ['city names are trimmed', { depCityName: '  Paris ', arrCityName: '\tGeneva' }, { depCityName: 'Paris', arrCityName: 'Geneva' }],
    ['a city name of 100 characters', { depCityName: 'x'.repeat(100) }, { depCityName: 'x'.repeat(100) }],
    ['Kosovo (XK) is accepted', { arrCountryCode: 'XK' }, { arrCountryCode: 'XK' }],
    ['every nullable field may be null', Object.fromEntries(NULLABLE.map((f) => [f, null])), Object.fromEntries(NULLABLE.map((f) => [f, null]))],
    ['every nullable field may be absent', Object.fromEntries(NULLABLE.map((f) => [f, undefined])), Object.fromEntries(NULLABLE.map((f) => [f, null]))],
    ['amenities absent -> []', { amenities: undefined }, { amenities: [] }],
    ["listed, blocked, depTimezone absent -> true, false, the departure airport's zone", { listed: undefined, blocked: undefined, depTimezone: undefined }, { listed: true, blocked: false, depTimezone: 'Europe/Paris' }],
    ['a one-day window (endDate = startDate)', { endDate: '2026-12-10' }, { endDate: '2026-12-10' }],
    ['price 0, seats 1 and 850, years at the limits', { price: 0, seatNum: 850, makeYear: 1950, renovateYear: 2027 }, { price: 0, seatNum: 850, makeYear: 1950, renovateYear: 2027 }],
    ['a leg that already ended is accepted (it is expired, not invalid)', { startDate: '2026-01-01', endDate: '2026-01-02' }, { startDate: '2026-01-01' }],
    ['startDate exactly at the horizon', { startDate: '2027-11-22', endDate: '2027-11-22' }, { startDate: '2027-11-22' }],
    ['non-ASCII text', { depCityName: 'São Paulo', arrAirportName: 'Zürich Flughafen' }, { depCityName: 'São Paulo' }],
  ])('%s', (_name, patch, expected) => {
    expect(ok(patch)).toMatchObject(expected);
  });

  it('drops departureAt from the stored leg', () => {
    const leg = ok({ startDate: undefined, departureAt: '2026-12-10T10:00:00Z' });
    expect(leg).not.toHaveProperty('departureAt');
    expect(leg.startDate).toBe('2026-12-10');
  });
});

describe('departureAt: startDate is the date of the instant in depTimezone (a record without a departure airport)', () => {
  const noAirport = { depAirportIcao: null, depAirportIata: null, depAirportName: null };
  it.each<[string, string, string]>([
    ['2026-03-01T23:30:00-05:00', 'America/New_York', '2026-03-01'],
    ['2026-03-01T23:30:00-05:00', 'UTC', '2026-03-02'],
    ['2026-03-01T23:30:00-05:00', 'Asia/Tokyo', '2026-03-02'],
    ['2026-03-01T04:30:00Z', 'America/Los_Angeles', '2026-02-28'],
    ['2026-03-01T12:00:00.250+05:30', 'Asia/Kolkata', '2026-03-01'],
    ['2026-12-31T23:59:59+14:00', 'Pacific/Kiritimati', '2026-12-31'],
    ['2026-12-31T23:59:59+14:00', 'Pacific/Pago_Pago', '2026-12-30'],
  ])('%s in %s -> %s', (departureAt, depTimezone, startDate) => {
    const r = validateImportRecord(record({ ...noAirport, startDate: undefined, departureAt, depTimezone, endDate: '2026-12-31' }), {
      today: '2026-02-20',
    });
    expect(r.ok && r.leg.startDate).toBe(startDate);
  });

  it('checks endDate against the derived startDate', () => {
    const errors = errorsOf({ ...noAirport, startDate: undefined, departureAt: '2026-12-10T23:30:00-05:00', depTimezone: 'UTC', endDate: '2026-12-10' });
    expect(errors).toEqual(['index 0: endDate: must not be before startDate 2026-12-11, got "2026-12-10"']);
  });
});
