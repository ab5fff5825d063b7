import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { IndexEntryReader, type IndexEntry } from '../../../src/kernel/index-entry.js';
import { filterText, registrationOf, type IndexedFields } from '../../../src/kernel/leg-item.js';
import { departureTimesOf } from '../../../src/kernel/leg/registration.js';
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
  /** Its earliest departure on startDate and latest on endDate (HH:mm), null when the feed gave none. */
  from?: string | null;
  to?: string | null;
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
    ...(leg.from == null ? {} : { depTimeFrom: leg.from }),
    ...(leg.to == null ? {} : { depTimeTo: leg.to }),
  };
  return new IndexEntryReader().fromFilter(leg.id, leg.startDate, filterText(fields, '0'))!;
}

/** A window's ends as local date-times: by departure time where the leg gives one, else the whole day. */
const startOf = (l: Leg) => `${l.startDate}T${l.from ?? '00:00'}`;
const endOf = (l: Leg) => `${l.endDate}T${l.to ?? '23:59'}`;

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
        startOf(a) <= endOf(b) && startOf(b) <= endOf(a);
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
  from: fc.constantFrom(null, null, '00:00', '08:00', '09:30', '12:00', '18:00', '23:59'),
  to: fc.constantFrom(null, null, '00:00', '08:00', '09:30', '12:00', '18:00', '23:59'),
});
const legsArb = fc.array(legArb, { minLength: 1, maxLength: 30 }).map((list) =>
  list.map((l, i): Leg => {
    // A one-day leg's latest departure is not before its earliest (the import refuses it).
    const swap = l.span === 0 && l.from !== null && l.to !== null && l.to < l.from;
    const times = swap ? { from: l.to, to: l.from } : { from: l.from, to: l.to };
    return { id: `L${String(i).padStart(2, '0')}`, registration: l.registration, dep: l.dep, arr: l.arr, startDate: day(l.start), endDate: day(l.start + l.span), ...times };
  }),
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
  it('compares departure times where legs give them, the whole day where they do not', () => {
    const at = (id: string, from: string | null, to: string | null, start = 0, end = 0): Leg => ({ ...leg(id, 'N123AB', start, end), from, to });
    expect(together([at('A', '08:00', '10:00'), at('B', '12:00', '14:00')])).toEqual([0, 1]);
    expect(together([at('A', '08:00', '10:00'), at('B', '10:00', '14:00')])).toEqual([0, 0]);
    expect(together([at('A', '08:00', '10:00'), at('B', null, null), at('C', '12:00', null)])).toEqual([0, 0, 0]);
    expect(together([at('A', '18:00', '09:00', 0, 1), at('B', '10:00', '12:00', 1, 1)])).toEqual([0, 1]);
    expect(together([at('A', '18:00', '09:00', 0, 1), at('B', '08:00', '12:00', 1, 1)])).toEqual([0, 0]);
    expect(together([at('A', null, '10:00'), at('B', '10:01', null)])).toEqual([0, 1]);
  });
  it('keeps the registration and the times readable after every field', () => {
    const entry = entryOf({ ...leg('A', 'N-123AB', 0, 2), from: '07:05', to: null });
    expect(registrationOf(entry)).toBe('N123AB');
    expect(departureTimesOf(entry)).toEqual({ depTimeFrom: '07:05' });
    expect(departureTimesOf(entryOf({ ...leg('B', 'N-123AB', 0, 2), from: null, to: '23:59' }))).toEqual({ depTimeTo: '23:59' });
    expect(departureTimesOf(entryOf(leg('C', 'N-123AB', 0, 2)))).toEqual({});
    // Without a registration the times are not kept: nothing groups the leg.
    expect(entryOf({ ...leg('D', null, 0, 2), from: '07:05', to: '09:00' }).text).toBe(entryOf(leg('D', null, 0, 2)).text);
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
