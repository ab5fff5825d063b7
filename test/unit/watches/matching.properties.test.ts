import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AirportIndex } from '../../../src/airports/reference.js';
import { AIRCRAFT_CATEGORIES } from '../../../src/kernel/aircraft-category.js';
import { addDays } from '../../../src/kernel/dates.js';
import { listedRecord } from '../../../src/kernel/listed.js';
import type { EmptyLeg } from '../../../src/kernel/model.js';
import { parseIndexItem } from '../../../src/kernel/index-entry.js';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { convertAmount, type RateSet } from '../../../src/rates/index.js';
import { parseStoredFilters, parseWatchFilters } from '../../../src/watches/filters.js';
import { WatchIndex, type MatchableWatch } from '../../../src/watches/matching.js';
import { airportsArb } from '../../support/airports.js';
import { fcParams } from '../../support/fast-check.js';
import { storedLeg } from '../../support/legs.js';

/**
 * The oracle is the listing: a leg is delivered to a watch (an `empty_leg.listed` event when it
 * enters the change log's listing) if and only if the listing with the watch's filters lists it,
 * its matcher run on the entry the loader stores (real expiry in the departure's zone included).
 * Withdrawn and updated follow from the two sides of a transition the same way.
 */
const ZONES = ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/Los_Angeles', 'Asia/Kathmandu'];
const CITIES = ['London', 'São Paulo', 'Zürich', 'Nice', 'New York'];
const NEEDLES = ['lon', 'sao paulo', 'ZURICH', 'ice', 'york', 'xy', ' nice '];
// Near a month's end: date windows and legs often straddle months.
const TODAY = '2026-11-28';
// Days from TODAY: around today, the next two months' first days (3 and 34) and the horizon.
const dayArb = fc.oneof(fc.integer({ min: -3, max: 40 }), fc.constantFrom(-1, 0, 1, 2, 3, 4, 33, 34, 35, 365, 366));

/** Now: any instant of a few days around TODAY (zones' dates differ from UTC's at some of them). */
/** The rates in force (units per euro; CHF unknown to them). */
const RATES: RateSet = { date: '2026-11-27', rates: { USD: '1.0432', GBP: '0.83215', JPY: '158.12' } };
const currencyArb = fc.constantFrom('EUR', 'USD', 'GBP', 'JPY', 'CHF');

const nowArb = fc.integer({ min: Date.parse(`${TODAY}T00:00:00Z`) - 86_400_000, max: Date.parse(`${TODAY}T00:00:00Z`) + 2 * 86_400_000 });

interface Scenario {
  airports: AirportIndex;
  legs: StoredLeg[];
  watches: MatchableWatch[];
  now: number;
}

function legArb(codes: [string | null, string | null][]): fc.Arbitrary<Omit<StoredLeg, 'id'>> {
  const place = fc.oneof(fc.constantFrom(...codes), fc.constant<[string | null, string | null]>([null, null]));
  return fc
    .record({
      start: dayArb,
      span: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 60 })),
      dep: place,
      arr: place,
      depCity: fc.constantFrom(...CITIES),
      arrCity: fc.constantFrom(...CITIES),
      zone: fc.constantFrom(...ZONES),
      listed: fc.integer({ min: 0, max: 5 }).map((n) => n !== 0),
      blocked: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
      seats: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
      category: fc.option(fc.constantFrom(...AIRCRAFT_CATEGORIES), { nil: null }),
      price: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: null }),
      currency: fc.option(currencyArb, { nil: null }),
    })
    .map((r) => {
      const { id: _id, ...leg } = storedLeg({
        id: 'x',
        startDate: addDays(TODAY, r.start),
        endDate: addDays(TODAY, r.start + r.span),
        depCityName: r.depCity,
        arrCityName: r.arrCity,
        depAirportIcao: r.dep[0],
        depAirportIata: r.dep[1],
        arrAirportIcao: r.arr[0],
        arrAirportIata: r.arr[1],
        depTimezone: r.zone,
        listed: r.listed,
        blocked: r.blocked,
        seatNum: r.seats,
        aircraftType: r.category,
        price: r.price,
        currency: r.currency,
      });
      return leg;
    });
}

function filtersArb(codes: string[]): fc.Arbitrary<Record<string, string | number>> {
  const code = fc.constantFrom(...codes, 'ZZZZ', 'QZZ');
  return fc
    .record(
      {
        depDate: dayArb.map((d) => addDays(TODAY, d)),
        offsetDays: fc.integer({ min: 0, max: 15 }),
        depCityName: fc.constantFrom(...NEEDLES),
        arrCityName: fc.constantFrom(...NEEDLES),
        depAirportCode: code,
        arrAirportCode: code,
        depNear: fc.constantFrom(...codes),
        depRadiusKm: fc.integer({ min: 1, max: 1000 }),
        arrNear: fc.constantFrom(...codes),
        minSeats: fc.integer({ min: 1, max: 30 }),
        aircraftType: fc.subarray([...AIRCRAFT_CATEGORIES], { minLength: 1, maxLength: 3 }).map((c) => c.join(',')),
        maxPrice: fc.integer({ min: 0, max: 120_000 }),
        pricedOnly: fc.constantFrom('true', 'false'),
      },
    )
    // Any few filters, or only those without a place (then dates, categories, cities and seats index or scan).
    .chain((all) =>
      fc
        .oneof(
          fc.subarray(Object.keys(all), { maxLength: 3 }),
          fc.subarray(['depDate', 'offsetDays', 'aircraftType', 'minSeats', 'depCityName'], { maxLength: 3 }),
        )
        .map((keys) => Object.fromEntries(keys.map((k) => [k, all[k as keyof typeof all]]))),
    )
    // A currency (none: '') with any filters; a price bound needs one.
    .chain((f) => fc.constantFrom('', 'EUR', 'USD', 'GBP', 'JPY').map((currency) => ({ ...f, currency })))
    .map((f) => {
      const out: Record<string, string | number> = { ...f };
      if (out.currency === '') {
        delete out.currency;
        delete out.maxPrice;
      }
      if (out.offsetDays !== undefined && out.depDate === undefined) delete out.offsetDays;
      if (out.depRadiusKm !== undefined && out.depNear === undefined) delete out.depRadiusKm;
      return out;
    });
}

const scenarioArb: fc.Arbitrary<Scenario> = airportsArb(12).chain((list) => {
  const airports = new AirportIndex(list);
  const codes = list.flatMap((a) => [a.icao, a.iata].filter((c): c is string => c !== null));
  const pairs = list.map((a): [string | null, string | null] => [a.icao, a.iata]);
  return fc.record({
    legs: fc.array(legArb(pairs), { maxLength: 12 }),
    filters: fc.array(filtersArb(codes), { minLength: 1, maxLength: 12 }),
    now: nowArb,
  }).map(({ legs, filters, now }) => ({
    airports,
    legs: legs.map((l, i) => ({ ...l, id: `L${i}` })),
    watches: filters.map((f, i) => ({ id: `W${i}`, clientId: 'C', filters: parseWatchFilters(f, () => airports, RATES).parsed })),
    now,
  }));
});

/** The listing's answer: does the listing with the watch's filters list this stored leg at `now`? */
function listingLists(leg: StoredLeg, watch: MatchableWatch, now: number): boolean {
  const entry = parseIndexItem(toStorageItem(leg));
  if (entry === undefined) return false;
  const window = watch.filters.compiled.window(new Date(now).toISOString().slice(0, 10));
  return window !== null && watch.filters.compiled.matches(entry, window, now);
}

/** The leg as the change log shows it: the unfiltered listing's record, null when not listed. */
const shown = (leg: StoredLeg, now: number): EmptyLeg | null => listedRecord(toStorageItem(leg), new Date(now)) ?? null;

describe('watch matching: the listing is the oracle', () => {
  it('a leg entering the listing is delivered to a watch iff the listing with its filters lists it', () => {
    fc.assert(
      fc.property(scenarioArb, ({ legs, watches, now }) => {
        const index = new WatchIndex(watches);
        for (const leg of legs) {
          const events = index.eventsOf({ id: leg.id, changedAt: new Date(now).toISOString(), before: null, after: shown(leg, now) }, now);
          for (const e of events) expect(e.type).toBe('empty_leg.listed');
          const delivered = new Set(events.map((e) => e.watch.id));
          const expected = new Set(watches.filter((w) => listingLists(leg, w, now)).map((w) => w.id));
          expect(delivered).toEqual(expected);
        }
      }),
      fcParams(300),
    );
  });

  it('a change gives listed, updated or withdrawn as the listing lists the leg before and after', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), ({ legs, watches, now }, pick) => {
        fc.pre(legs.length >= 2);
        const index = new WatchIndex(watches);
        const before = legs[pick % legs.length]!;
        const after = { ...legs[(pick + 1) % legs.length]!, id: before.id };
        const t = { id: before.id, changedAt: new Date(now).toISOString(), before: shown(before, now), after: shown(after, now) };
        const got = new Map(index.eventsOf(t, now).map((e) => [e.watch.id, e.type]));
        for (const w of watches) {
          const inBefore = listingLists(before, w, now);
          const inAfter = listingLists(after, w, now);
          const changed = JSON.stringify(t.before) !== JSON.stringify(t.after);
          const expected = inAfter && !inBefore ? 'empty_leg.listed' : inBefore && !inAfter ? 'empty_leg.withdrawn' : inBefore && changed ? 'empty_leg.updated' : undefined;
          expect(got.get(w.id)).toBe(expected);
        }
      }),
      fcParams(300),
    );
  });

  it('a watch is tested only when its index key can match (a departure-airport watch is not a candidate elsewhere)', () => {
    const airports = new AirportIndex([]);
    const watch = { id: 'W', clientId: 'C', filters: parseWatchFilters({ depAirportCode: 'LFPB' }, () => airports).parsed };
    const index = new WatchIndex([watch]);
    const out = new Set<MatchableWatch>();
    const leg = shown(storedLeg({ id: 'L', startDate: TODAY, endDate: TODAY, depAirportIcao: 'EGLF' }), Date.parse(`${TODAY}T12:00:00Z`))!;
    index.candidates(leg, 0, out);
    expect(out.size).toBe(0);
    index.candidates({ ...leg, depAirportIcao: 'lfpb' }, 0, out);
    expect(out.size).toBe(1);
  });
});

/** A leg's price in `currency` computed directly (null: no price, or a currency the rates do not know). */
const priceIn = (leg: StoredLeg, currency: string, rates: RateSet | undefined): number | null =>
  leg.price === null || leg.currency === null || rates === undefined ? null : convertAmount(leg.price, leg.currency, currency, rates);

describe('watch matching with prices: converted with the rates in force, computed directly', () => {
  const airports = new AirportIndex([]);
  const now = Date.parse(`${TODAY}T12:00:00Z`);
  const leg = (price: number | null, currency: string | null): StoredLeg => storedLeg({ id: 'P1', startDate: addDays(TODAY, 2), endDate: addDays(TODAY, 3), price, currency });
  const watchOf = (filters: Record<string, string | number | boolean>, rates: RateSet | undefined = RATES): MatchableWatch => ({
    id: JSON.stringify(filters),
    clientId: 'C',
    filters: parseStoredFilters(parseWatchFilters(filters, () => airports, rates).stored, () => airports, rates),
  });
  const boundsArb = fc.record(
    { currency: fc.constantFrom('EUR', 'USD', 'GBP', 'JPY'), minPrice: fc.integer({ min: 0, max: 60_000 }), maxPrice: fc.integer({ min: 0, max: 120_000 }), pricedOnly: fc.constantFrom('true', 'false') },
    { requiredKeys: ['currency'] },
  );
  const priceArb = fc.record({ price: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }), currency: fc.option(currencyArb, { nil: null }) });

  it('a price change gives listed, updated or withdrawn as the converted price enters, stays within or leaves the bounds', () => {
    fc.assert(
      fc.property(boundsArb, priceArb, priceArb, (filters, a, b) => {
        fc.pre(filters.minPrice === undefined || filters.maxPrice === undefined || filters.minPrice <= filters.maxPrice);
        const watch = watchOf(filters);
        const within = (l: StoredLeg) => {
          const amount = priceIn(l, filters.currency, RATES);
          if (filters.minPrice === undefined && filters.maxPrice === undefined && filters.pricedOnly !== 'true') return true;
          return amount !== null && amount >= (filters.minPrice ?? 0) && amount <= (filters.maxPrice ?? Infinity);
        };
        const before = leg(a.price, a.currency);
        const after = leg(b.price, b.currency);
        const t = { id: 'P1', changedAt: new Date(now).toISOString(), before: shown(before, now), after: shown(after, now) };
        const [event] = new WatchIndex([watch]).eventsOf(t, now);
        const changed = JSON.stringify(t.before) !== JSON.stringify(t.after);
        const expected = within(after) && !within(before) ? 'empty_leg.listed' : within(before) && !within(after) ? 'empty_leg.withdrawn' : within(before) && changed ? 'empty_leg.updated' : undefined;
        expect(event?.type).toBe(expected);
      }),
      fcParams(1000),
    );
  });

  it('a leg above maxPrice makes no event; one under it does; an unpriced leg never passes a bound', () => {
    const cap = watchOf({ currency: 'EUR', maxPrice: 15000 });
    const floor = watchOf({ currency: 'EUR', minPrice: 0 });
    const index = new WatchIndex([cap, floor]);
    const listedNow = (l: StoredLeg) => index.eventsOf({ id: 'P1', changedAt: '', before: null, after: shown(l, now) }, now).map((e) => e.watch.id).sort();
    // 16,000 USD at 1.0432 per euro: 15,337.42 EUR; 15,600 USD: 14,953.99 EUR.
    expect(listedNow(leg(16000, 'USD'))).toEqual([floor.id]);
    expect(listedNow(leg(15600, 'USD'))).toEqual([cap.id, floor.id].sort());
    expect(listedNow(leg(null, null))).toEqual([]);
    expect(listedNow(leg(100, 'CHF'))).toEqual([]);
  });

  it('pricedOnly keeps legs with a converted price (without currency: with a price)', () => {
    const converted = watchOf({ currency: 'GBP', pricedOnly: true });
    const priced = watchOf({ pricedOnly: 'true' });
    const index = new WatchIndex([converted, priced]);
    const listedNow = (l: StoredLeg) => index.eventsOf({ id: 'P1', changedAt: '', before: null, after: shown(l, now) }, now).map((e) => e.watch.id).sort();
    expect(listedNow(leg(500, 'USD'))).toEqual([converted.id, priced.id].sort());
    expect(listedNow(leg(500, 'CHF'))).toEqual([priced.id]);
    expect(listedNow(leg(null, null))).toEqual([]);
  });

  it('a currency the rates in force no longer know converts nothing: its bounds pass no leg, its other filters still match', () => {
    const stored = parseWatchFilters({ currency: 'JPY', maxPrice: 1e6 }, () => airports, RATES).stored;
    const withoutJpy: RateSet = { date: '2026-11-30', rates: { USD: '1.04' } };
    const bounded = { id: 'B', clientId: 'C', filters: parseStoredFilters(stored, () => airports, withoutJpy) };
    const plain = { id: 'P', clientId: 'C', filters: parseStoredFilters({ currency: 'JPY' }, () => airports, withoutJpy) };
    const events = new WatchIndex([bounded, plain]).eventsOf({ id: 'P1', changedAt: '', before: null, after: shown(leg(10, 'EUR'), now) }, now);
    expect(events.map((e) => e.watch.id)).toEqual(['P']);
    expect(() => parseWatchFilters(stored, () => airports, withoutJpy)).toThrow("Invalid parameter 'currency'");
  });
});
