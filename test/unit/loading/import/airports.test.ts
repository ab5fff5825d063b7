import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { airportReference } from '../../../../src/airports/reference.js';
import { parseImportText, validateImportRecord } from '../../../../src/loading/import/index.js';
import type { StoredLeg } from '../../../../src/kernel/leg-item.js';
import { fcParams } from '../../../support/fast-check.js';

/**
 * The import's airport checks (docs/import-format.md, "Airports and time zones") with records as
 * operators write them: codes and local departure times, rarely a zone. The facts expected here
 * (which zone Teterboro is in, what Le Bourget's IATA code is) are the world's, not the code's.
 */
const TODAY = '2026-11-24';
const base = { id: 'A', startDate: '2026-12-10', endDate: '2026-12-12', arrCityName: 'Nice' };

function load(records: object[], options: { allowUnknownAirports?: boolean } = {}) {
  return parseImportText(JSON.stringify(records), { today: TODAY, ...options });
}
function leg(record: object, options: { allowUnknownAirports?: boolean } = {}): StoredLeg {
  const r = validateImportRecord(record, { today: TODAY, ...options });
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.issues)}`);
  return r.leg;
}
function issues(record: object, options: { allowUnknownAirports?: boolean } = {}): { field: string | null; rule: string }[] {
  const r = validateImportRecord(record, { today: TODAY, ...options });
  return r.ok ? [] : r.issues;
}

describe('the departure time zone comes from the departure airport', () => {
  it.each([
    // The issue's two records: dates off by a day when read in UTC.
    ['KTEB', '2026-12-01T23:30:00-05:00', '2026-12-01', 'America/New_York'],
    ['RJTT', '2026-12-02T07:30:00+09:00', '2026-12-02', 'Asia/Tokyo'],
    ['TEB', '2026-12-01T23:30:00-05:00', '2026-12-01', 'America/New_York'],
    ['NZAA', '2026-12-05T00:30:00+13:00', '2026-12-05', 'Pacific/Auckland'],
    ['PHNL', '2026-12-05T23:45:00-10:00', '2026-12-05', 'Pacific/Honolulu'],
    ['VIDP', '2026-12-05T00:10:00+05:30', '2026-12-05', 'Asia/Kolkata'],
    ['VIDP', '2026-12-04T18:40:00Z', '2026-12-05', 'Asia/Kolkata'],
    ['EGLF', '2026-12-05T23:59:00Z', '2026-12-05', 'Europe/London'],
  ])('%s, departing %s: startDate %s, zone %s', (code, departureAt, startDate, zone) => {
    const field = code.length === 4 ? 'depAirportIcao' : 'depAirportIata';
    const l = leg({ ...base, startDate: undefined, departureAt, depCityName: 'Somewhere', [field]: code });
    expect([l.startDate, l.depTimezone]).toEqual([startDate, zone]);
  });

  it('accepts a depTimezone that agrees at the departure (the same zone, an alias, or one with the same offset then)', () => {
    expect(leg({ ...base, depCityName: 'Delhi', depAirportIcao: 'VIDP', depTimezone: 'Asia/Calcutta' }).depTimezone).toBe('Asia/Kolkata');
    expect(leg({ ...base, depCityName: 'Paris', depAirportIcao: 'LFPB', depTimezone: 'Europe/Paris' }).depTimezone).toBe('Europe/Paris');
    // Berlin keeps Paris's offset all year; UTC agrees with London in winter only.
    expect(leg({ ...base, depCityName: 'Paris', depAirportIcao: 'LFPB', depTimezone: 'Europe/Berlin' }).depTimezone).toBe('Europe/Paris');
    expect(leg({ ...base, depCityName: 'Farnborough', depAirportIcao: 'EGLF', depTimezone: 'UTC' }).depTimezone).toBe('Europe/London');
  });

  it('refuses a depTimezone that disagrees with the airport at the departure, naming both zones', () => {
    const [issue] = issues({ ...base, depCityName: 'Paris', depAirportIcao: 'LFPB', depTimezone: 'America/Los_Angeles' });
    expect(issue!.field).toBe('depTimezone');
    expect(issue!.rule).toContain('"America/Los_Angeles" (UTC-08:00');
    expect(issue!.rule).toContain('Europe/Paris (UTC+01:00)');
    expect(issue!.rule).toContain('LFPB');
    // In July London is an hour ahead of UTC: the same pair is refused then.
    const summer = issues({ ...base, startDate: '2026-07-10', endDate: '2026-07-12', depCityName: 'Farnborough', depAirportIcao: 'EGLF', depTimezone: 'UTC' });
    expect(summer.map((i) => i.field)).toEqual(['depTimezone']);
    expect(summer[0]!.rule).toContain('Europe/London (UTC+01:00)');
  });

  it('without a known departure airport: the given zone, else the city\'s when unambiguous, else a refusal that says what to add', () => {
    expect(leg({ ...base, depCityName: 'Anywhere', depTimezone: 'Asia/Kathmandu' }).depTimezone).toBe('Asia/Kathmandu');
    expect(leg({ ...base, depCityName: 'Nice' }).depTimezone).toBe('Europe/Paris');
    expect(leg({ ...base, depCityName: 'london', depCountryCode: 'GB' }).depTimezone).toBe('Europe/London');
    for (const record of [{ depCityName: 'London' }, { depCityName: 'Paris' }, { depCityName: 'Atlantis' }]) {
      const found = issues({ ...base, ...record });
      expect(found.map((i) => i.field)).toEqual(['depTimezone']);
      expect(found[0]!.rule).toContain('give depTimezone');
      expect(found[0]!.rule).toContain(record.depCityName);
    }
  });
});

describe('codes are checked against the airport reference', () => {
  it('refuses made-up codes, suggesting the code one slip away', () => {
    const found = issues({ ...base, depCityName: 'Paris', depCountryCode: 'FR', depAirportIcao: 'LPFB', arrAirportIata: 'QQQ' });
    expect(found.map((i) => i.field)).toEqual(['depAirportIcao', 'arrAirportIata']);
    expect(found[0]!.rule).toMatch(/^no airport has the ICAO code "LPFB" \(did you mean LFPB\/LBG Paris-Le Bourget/);
    expect(found[0]!.rule).toContain('--allow-unknown-airports');
    expect(found[1]!.rule).toContain('"QQQ"');
    expect(issues({ ...base, depCityName: 'X', depAirportIcao: 'ZZZZ', depTimezone: 'UTC' }).map((i) => i.field)).toEqual(['depAirportIcao']);
  });

  it('refuses an ICAO and an IATA code of two airports, naming both', () => {
    const found = issues({ ...base, depCityName: 'Paris', depAirportIcao: 'LFPB', depAirportIata: 'JFK' });
    expect(found.map((i) => i.field)).toEqual(['depAirportIata']);
    expect(found[0]!.rule).toContain('KJFK');
    expect(found[0]!.rule).toContain('Le Bourget');
  });

  it('keeps such codes with --allow-unknown-airports: no fill, the zone from depTimezone or the city', () => {
    const options = { allowUnknownAirports: true };
    const kept = leg({ ...base, depCityName: 'Paris', depCountryCode: 'FR', depAirportIcao: 'ZZZZ', arrAirportIata: 'QQQ' }, options);
    expect([kept.depAirportIcao, kept.depAirportName, kept.arrAirportIata, kept.depTimezone]).toEqual(['ZZZZ', null, 'QQQ', 'Europe/Paris']);
    // A mixed pair stands as given; the ICAO code's airport places the leg and gives the zone.
    const mixed = leg({ ...base, depCityName: 'Paris', depAirportIcao: 'LFPB', depAirportIata: 'JFK' }, options);
    expect([mixed.depAirportIata, mixed.depTimezone, mixed.depAirportName]).toEqual(['JFK', 'Europe/Paris', 'Paris-Le Bourget International Airport']);
    expect(issues({ ...base, depCityName: 'London', depAirportIcao: 'ZZZZ' }, options).map((i) => i.field)).toEqual(['depTimezone']);
  });
});

describe('empty airport fields are filled from the airport, given ones kept', () => {
  it('fills name, the other code and the country of both sides, and counts the records filled', () => {
    const result = load([
      { ...base, id: 'ONLY-CODE', depCityName: 'Paris', depAirportIcao: 'LFPB', arrAirportIata: 'NCE' },
      { ...base, id: 'OWN-NAMES', depCityName: 'Paris', depAirportIcao: 'LFPB', depAirportName: 'Le Bourget', depAirportIata: 'LBG', depCountryName: 'France', depCountryCode: 'FR', arrCityName: 'Nice', arrAirportIcao: 'LFMN', arrAirportName: 'Nice Côte d’Azur', arrAirportIata: 'NCE', arrCountryName: 'France', arrCountryCode: 'FR' },
      { ...base, id: 'NO-CODE', depCityName: 'Nice' },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.filled).toBe(1);
    const [filled, own, none] = result.legs;
    expect(filled).toMatchObject({
      depAirportName: 'Paris-Le Bourget International Airport', depAirportIata: 'LBG', depCountryCode: 'FR', depCountryName: 'France',
      arrAirportIcao: 'LFMN', arrCountryCode: 'FR', depCityName: 'Paris',
    });
    expect([own!.depAirportName, own!.arrAirportName]).toEqual(['Le Bourget', 'Nice Côte d’Azur']);
    expect([none!.depAirportName, none!.depCountryCode]).toEqual([null, null]);
  });
});

describe('every airport of the reference, with a departure at any instant of the coming year', () => {
  const airports = airportReference().airports;
  it('gives startDate as the local date at the airport and the airport as filled', () => {
    fc.assert(
      fc.property(fc.nat(airports.length - 1), fc.integer({ min: 0, max: 365 * 24 * 60 - 1 }), (i, minutes) => {
        const airport = airports[i]!;
        const instant = Date.parse(`${TODAY}T00:00:00Z`) + minutes * 60_000;
        const departureAt = new Date(instant).toISOString();
        const local = new Intl.DateTimeFormat('en-CA', { timeZone: airport.timeZone }).format(instant);
        const code = airport.icao !== null ? { depAirportIcao: airport.icao } : { depAirportIata: airport.iata };
        const l = leg({ ...base, startDate: undefined, departureAt, endDate: '2028-01-01', depCityName: 'Somewhere', ...code });
        expect([l.startDate, l.depTimezone, l.depAirportIcao, l.depAirportIata, l.depCountryCode]).toEqual([
          local, airport.timeZone, airport.icao, airport.iata, airport.countryCode,
        ]);
      }),
      fcParams(2000),
    );
  });
});
