import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { flightKeyOf, recordFlightKey } from '../../../../src/kernel/leg/flight-key.js';
import { parseInclude } from '../../../../src/kernel/leg/blocks.js';

/** `include=flight` (docs/api.md, "Flights"): the flight key of a record and the include list that asks for it. */
describe('recordFlightKey', () => {
  const leg = (registration: string | null, dep: string | null = 'LFPB', arr: string | null = 'LSGG') => ({ registration, depAirportIcao: dep, arrAirportIcao: arr });

  it('is one opaque key for registrations equal once upper-cased without spaces and hyphens', () => {
    const key = recordFlightKey(leg('N-123AB'));
    expect(key).toMatch(/^[A-Za-z0-9_-]{22}$/);
    for (const spelled of ['N123AB', 'n-123ab', 'n 123-ab']) expect(recordFlightKey(leg(spelled))).toBe(key);
    expect(key).not.toContain('N123AB');
  });

  it('is null without a registration or either ICAO code, and differs by route and direction', () => {
    expect([recordFlightKey(leg(null)), recordFlightKey(leg('')), recordFlightKey(leg('N1', null)), recordFlightKey(leg('N1', 'LFPB', null))]).toEqual([null, null, null, null]);
    const keys = [leg('N1'), leg('N1', 'LSGG', 'LFPB'), leg('N1', 'LFPB', 'EGLL'), leg('N2')].map(recordFlightKey);
    expect(new Set(keys).size).toBe(4);
  });

  it('equals for two records exactly when their identities (flightKeyOf) do', () => {
    const reg = fc.constantFrom('N-123AB', 'N123AB', 'n 123ab', 'F-HCJF', 'FHCJF', 'G-ABCD', '');
    const icao = fc.constantFrom('LFPB', 'LSGG', 'EGLL');
    fc.assert(fc.property(reg, icao, icao, reg, icao, icao, (r1, d1, a1, r2, d2, a2) => {
      const norm = (r: string) => r.replace(/[ -]/g, '').toUpperCase();
      const same = flightKeyOf(norm(r1), d1, a1) === flightKeyOf(norm(r2), d2, a2) && r1 !== '';
      expect(recordFlightKey(leg(r1, d1, a1)) === recordFlightKey(leg(r2, d2, a2)) && r1 !== '').toBe(same);
    }));
  });
});

describe('parseInclude with flight', () => {
  it('takes flight alone or with the blocks, each once, in any order', () => {
    expect([...parseInclude('flight')!]).toEqual(['flight']);
    expect(parseInclude('departure,flight,provenance')!.size).toBe(3);
    expect(parseInclude('provenance,departure')!.has('flight')).toBe(false);
    for (const bad of ['flight,flight', 'flight,', 'flights', 'provenance,flight,provenance', 'flight,departure,provenance,flight']) expect(parseInclude(bad)).toBeNull();
  });
});
