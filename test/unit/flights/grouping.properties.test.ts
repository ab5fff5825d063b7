import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { IndexEntryReader, type IndexEntry } from '../../../src/kernel/index-entry.js';
import { filterText, registrationOf, type IndexedFields } from '../../../src/kernel/leg-item.js';
import { addDays } from '../../../src/kernel/dates.js';
import { fcParams } from '../../support/fast-check.js';
import { compareOffers, entryFlightKey, flightsOf, groupFlights, windowOf, type OfferFacts } from '../../../src/flights/index.js';

/** One flight (docs/api.md, "Flights"): grouping equals a direct computation over random legs. */
interface Leg {
  id: string;
  registration: string | null;
  dep: string | null;
  arr: string | null;
  startDate: string;
  endDate: string;
}

const BASE: IndexedFields = {
  startDate: '2027-03-01',
  endDate: '2027-03-01',
  depCityName: 'Nice',
  depAirportIcao: 'LFMN',
  depAirportIata: null,
  depCountryCode: 'FR',
  arrCityName: 'Geneva',
  arrAirportIcao: 'LSGG',
  arrAirportIata: null,
  arrCountryCode: 'CH',
  seatNum: 8,
  aircraftType: 'Light Jet',
};

/** The leg's index entry, written and read as the listing does. */
function entryOf(leg: Leg): IndexEntry {
  const fields: IndexedFields & { registration: string | null } = {
    ...BASE,
    startDate: leg.startDate,
    endDate: leg.endDate,
    depAirportIcao: leg.dep,
    depAirportIata: leg.dep === null ? 'NCE' : null,
    arrAirportIcao: leg.arr,
    arrAirportIata: leg.arr === null ? 'GVA' : null,
    registration: leg.registration,
  };
  return new IndexEntryReader().fromFilter(leg.id, leg.startDate, filterText(fields, '0'))!;
}

/** The rule as the issue words it, pair by pair, closed transitively (union-find). */
function directFlights(legs: readonly Leg[]): number[] {
  const parent = legs.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const norm = (r: string | null) => (r === null ? '' : r.split('').filter((c) => c !== '-' && c !== ' ').join('').toUpperCase());
  for (let i = 0; i < legs.length; i++) {
    for (let j = i + 1; j < legs.length; j++) {
      const a = legs[i]!;
      const b = legs[j]!;
      const same =
        norm(a.registration) !== '' &&
        norm(a.registration) === norm(b.registration) &&
        a.dep !== null && a.dep === b.dep &&
        a.arr !== null && a.arr === b.arr &&
        a.startDate <= b.endDate && b.startDate <= a.endDate;
      if (same) parent[find(i)] = find(j);
    }
  }
  return legs.map((_, i) => find(i));
}

const day = (n: number) => addDays('2027-03-01', n);
const legArb = fc.record({
  registration: fc.constantFrom('N-123AB', 'N123AB', 'n123ab', 'N 123 AB', 'G-ABCD', 'GABCD', 'g-abcd', null),
  dep: fc.constantFrom('LFMN', 'LFMN', 'EGLF', null),
  arr: fc.constantFrom('LSGG', 'LSGG', 'LFPB', null),
  start: fc.integer({ min: 0, max: 20 }),
  span: fc.integer({ min: 0, max: 4 }),
});
const legsArb = fc.array(legArb, { minLength: 1, maxLength: 30 }).map((list) =>
  list.map((l, i): Leg => ({ id: `L${String(i).padStart(2, '0')}`, registration: l.registration, dep: l.dep, arr: l.arr, startDate: day(l.start), endDate: day(l.start + l.span) })),
);

function groupedIds(entries: readonly IndexEntry[]): Map<string, object> {
  const groups = groupFlights(entries.map((e) => {
    const [from, to] = windowOf(e);
    return { id: e.id, key: entryFlightKey(e), from, to };
  }));
  return new Map([...groups].map(([id, group]) => [id, group]));
}

const facts = (e: IndexEntry): OfferFacts => ({ id: e.id, source: e.source, kind: 'unknown', verified: false, confirmedAt: Number.NaN, euros: null });

describe('groupFlights over index entries', () => {
  it('puts two legs in one flight exactly when the rule, closed transitively, does', () => {
    fc.assert(
      fc.property(legsArb, (legs) => {
        const groups = groupedIds(legs.map(entryOf));
        const direct = directFlights(legs);
        const pairs = (same: (i: number, j: number) => boolean) => legs.map((_, i) => legs.map((_, j) => same(i, j)));
        expect(pairs((i, j) => groups.get(legs[i]!.id) === groups.get(legs[j]!.id))).toEqual(pairs((i, j) => direct[i] === direct[j]));
      }),
      fcParams(300),
    );
  });

  it('gives the matching legs their flights, identity taken from every listed leg, offers best first', () => {
    fc.assert(
      fc.property(legsArb, fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }), (legs, picks) => {
        const entries = legs.map(entryOf);
        const matches = entries.filter((_, i) => picks[i]);
        const direct = directFlights(legs);
        const flights = flightsOf(matches, entries, facts);
        // Each match in exactly one flight; two matches share one exactly when the direct rule says so.
        const flightOf = new Map(flights.flatMap((f) => f.offers.map((e) => [e.id, f] as const)));
        expect(flightOf.size).toBe(matches.length);
        const at = (id: string) => direct[legs.findIndex((l) => l.id === id)];
        const pairs = (same: (a: IndexEntry, b: IndexEntry) => boolean) => matches.map((a) => matches.map((b) => same(a, b)));
        expect(pairs((a, b) => flightOf.get(a.id) === flightOf.get(b.id))).toEqual(pairs((a, b) => at(a.id) === at(b.id)));
        for (const f of flights) for (let k = 1; k < f.offers.length; k++) expect(compareOffers(f.facts[k - 1]!, f.facts[k]!)).toBeLessThan(0);
      }),
      fcParams(200),
    );
  });
});

describe('the rule by example', () => {
  const leg = (id: string, registration: string | null, start: number, end: number): Leg => ({ id, registration, dep: 'LFMN', arr: 'LSGG', startDate: day(start), endDate: day(end) });
  const together = (legs: Leg[]) => {
    const groups = groupedIds(legs.map(entryOf));
    return legs.map((l) => legs.findIndex((m) => groups.get(m.id) === groups.get(l.id)));
  };

  it('merges a chain of three whose ends do not overlap', () => {
    expect(together([leg('A', 'N-123AB', 0, 2), leg('B', 'N123AB', 2, 5), leg('C', 'n 123ab', 4, 8)])).toEqual([0, 0, 0]);
  });
  it('merges windows touching on one day and not those a day apart', () => {
    expect(together([leg('A', 'N123AB', 0, 2), leg('B', 'N123AB', 2, 3)])).toEqual([0, 0]);
    expect(together([leg('A', 'N123AB', 0, 2), leg('B', 'N123AB', 3, 4)])).toEqual([0, 1]);
  });
  it('never merges legs without a registration, nor across routes', () => {
    expect(together([leg('A', null, 0, 2), leg('B', null, 0, 2)])).toEqual([0, 1]);
    expect(together([leg('A', 'N123AB', 0, 2), { ...leg('B', 'N123AB', 0, 2), arr: 'LFPB' }])).toEqual([0, 1]);
  });
  it('keeps the registration readable after every field, and old entries without it', () => {
    const entry = entryOf(leg('A', 'n-12 3ab', 0, 2));
    expect(registrationOf(entry)).toBe('N123AB');
    expect(entryFlightKey(entry)).toBe('N123AB.LFMN.LSGG');
    expect(registrationOf(entryOf(leg('B', null, 0, 2)))).toBe('');
  });
});

describe('compareOffers', () => {
  const offer = (over: Partial<OfferFacts>): OfferFacts => ({ id: 'L1', source: 's', kind: 'unknown', verified: false, confirmedAt: Number.NaN, euros: null, ...over });
  it('puts the operator first, then verified, then the freshest, the cheapest in euros, then id', () => {
    const order = [
      offer({ id: 'Z', kind: 'operator', verified: false, euros: 99999 }),
      offer({ id: 'Y', kind: 'broker', verified: true, confirmedAt: 1000 }),
      offer({ id: 'X', kind: 'broker', verified: true, confirmedAt: 10, euros: 1 }),
      offer({ id: 'W', kind: 'broker', verified: true, confirmedAt: 10, euros: 2 }),
      offer({ id: 'V', kind: 'broker', verified: true, confirmedAt: 10, euros: null }),
      offer({ id: 'U', kind: 'broker', verified: true }),
      offer({ id: 'A', kind: 'broker', verified: false }),
      offer({ id: 'B', kind: 'broker', verified: false }),
      offer({ id: 'C', kind: 'unknown', verified: false }),
    ];
    expect([...order].reverse().sort(compareOffers).map((o) => o.id)).toEqual(order.map((o) => o.id));
  });
});
