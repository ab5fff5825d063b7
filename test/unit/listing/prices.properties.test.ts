import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AirportIndex } from '../../../src/airports/reference.js';
import { IndexEntryReader, type IndexEntry } from '../../../src/kernel/index-entry.js';
import { filterText } from '../../../src/kernel/leg-item.js';
import { compileQuery, ranked } from '../../../src/listing/listing.js';
import { parseListQuery } from '../../../src/listing/query.js';
import { parseEcbRates } from '../../../src/rates/ecb-xml.js';
import { exactCents } from '../../../src/rates/conversion.js';
import { AppError } from '../../../src/errors.js';
import { fcParams } from '../../support/fast-check.js';

/**
 * Price filters and orders (docs/api.md, "Prices") against a direct computation: each leg's price
 * converted in exact integers from the ECB file's decimal texts, then filtered and sorted by hand.
 */
const rates = parseEcbRates(readFileSync(new URL('../../../src/rates/data/eurofxref-daily-2022-07-08.xml', import.meta.url), 'utf8'));
const airports = () => new AirportIndex([]);
const WINDOW = { from: '2026-01-01', to: '2026-12-31' };
const NOW = Date.parse('2026-01-01T00:00:00Z');

interface Leg {
  id: string;
  startDate: string;
  price: number | null;
  currency: string | null;
}

const legArb: fc.Arbitrary<Leg> = fc.record({
  id: fc.stringMatching(/^[a-z0-9]{1,6}$/),
  startDate: fc.integer({ min: 1, max: 28 }).map((d) => `2026-03-${String(d).padStart(2, '0')}`),
  price: fc.option(fc.integer({ min: 0, max: 5_000_000 }).map((c) => c / 100), { nil: null, freq: 4 }),
  // XAU: a code the rates do not know; 'usd': no code at all.
  currency: fc.option(fc.constantFrom('EUR', 'USD', 'GBP', 'CHF', 'HKD', 'XAU', 'usd'), { nil: null, freq: 6 }),
});
const legsArb = fc.uniqueArray(legArb, { selector: (l) => l.id, maxLength: 30 });
const queryArb = fc.record(
  {
    currency: fc.constantFrom('EUR', 'USD', 'GBP', 'JPY'),
    minPrice: fc.constantFrom('0', '5000', '12000.5', '20000'),
    maxPrice: fc.constantFrom('0', '9999.99', '15000', '40000'),
    pricedOnly: fc.constantFrom('true', 'false'),
    sort: fc.constantFrom('startDate', 'price', '-price'),
  },
  { requiredKeys: ['currency'] },
);

function entryOf(leg: Leg): IndexEntry {
  const text = filterText(
    { ...leg, endDate: leg.startDate, depCityName: 'Nice', depAirportIcao: 'LFMN', depAirportIata: 'NCE', arrCityName: 'Paris', arrAirportIcao: 'LFPB', arrAirportIata: 'LBG', depCountryCode: 'FR', arrCountryCode: 'FR', seatNum: 8, aircraftType: 'Light Jet' },
    '0',
  );
  return new IndexEntryReader().fromFilter(leg.id, leg.startDate, text)!;
}

/** The converted amount computed directly: exact integers, half up. */
function direct(leg: Leg, to: string): number | null {
  const rate = (c: string) => (c === 'EUR' ? '1' : rates.rates[c]);
  if (leg.price === null || leg.currency === null) return null;
  const from = rate(leg.currency);
  if (from === undefined) return null;
  return Number(exactCents(String(leg.price), from, rate(to)!)) / 100;
}

describe('price filters and orders', () => {
  it('keep and order exactly the legs a direct computation keeps and orders', () => {
    fc.assert(
      fc.property(legsArb, queryArb, (legs, raw) => {
        let query;
        try {
          query = parseListQuery(raw);
        } catch (err) {
          // minPrice above maxPrice is the only refusal here.
          expect(err).toBeInstanceOf(AppError);
          expect(Number(raw.minPrice)).toBeGreaterThan(Number(raw.maxPrice));
          return;
        }
        const compiled = compileQuery(query, airports, rates);
        let got = legs.map(entryOf).filter((e) => compiled.matches(e, WINDOW, NOW));
        if (compiled.rank) got = ranked(got, compiled.rank);
        else got.sort((a, b) => (a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

        const c = raw.currency;
        const kept = legs
          .map((leg) => ({ leg, amount: direct(leg, c) }))
          .filter(({ amount }) => raw.minPrice === undefined || (amount !== null && amount >= Number(raw.minPrice)))
          .filter(({ amount }) => raw.maxPrice === undefined || (amount !== null && amount <= Number(raw.maxPrice)))
          .filter(({ amount }) => raw.pricedOnly !== 'true' || amount !== null);
        const byDate = (a: { leg: Leg }, b: { leg: Leg }) => (a.leg.startDate !== b.leg.startDate ? (a.leg.startDate < b.leg.startDate ? -1 : 1) : a.leg.id < b.leg.id ? -1 : a.leg.id > b.leg.id ? 1 : 0);
        const sign = raw.sort === '-price' ? -1 : 1;
        kept.sort((a, b) => {
          if (raw.sort === 'price' || raw.sort === '-price') {
            if (a.amount === null || b.amount === null) {
              if (a.amount !== b.amount) return a.amount === null ? 1 : -1;
            } else if (a.amount !== b.amount) return sign * (a.amount - b.amount);
          }
          return byDate(a, b);
        });
        expect(got.map((e) => e.id)).toEqual(kept.map((k) => k.leg.id));
      }),
      fcParams(500),
    );
  });

  it('refuse a currency the rates do not know, bounds and price orders without currency, and minPrice above maxPrice', () => {
    expect(() => compileQuery(parseListQuery({ currency: 'XAU' }), airports, rates)).toThrow("Invalid parameter 'currency'");
    expect(() => compileQuery(parseListQuery({ currency: 'USD' }), airports, undefined)).toThrow("Invalid parameter 'currency'");
    expect(() => parseListQuery({ currency: 'usd' })).toThrow("Invalid parameter 'currency'");
    expect(() => parseListQuery({ maxPrice: '100' })).toThrow("Invalid parameter 'maxPrice': requires currency");
    expect(() => parseListQuery({ minPrice: '100' })).toThrow("Invalid parameter 'minPrice': requires currency");
    expect(() => parseListQuery({ sort: 'price' })).toThrow("Invalid parameter 'sort': price and -price require currency");
    expect(() => parseListQuery({ sort: '-price' })).toThrow("Invalid parameter 'sort'");
    expect(() => parseListQuery({ currency: 'EUR', minPrice: '2', maxPrice: '1' })).toThrow("Invalid parameter 'minPrice': must not be above maxPrice");
    expect(() => parseListQuery({ currency: 'EUR', maxPrice: '-1' })).toThrow("Invalid parameter 'maxPrice'");
    expect(() => parseListQuery({ currency: 'EUR', maxPrice: '1.005' })).toThrow("Invalid parameter 'maxPrice'");
    expect(() => parseListQuery({ pricedOnly: 'yes' })).toThrow("Invalid parameter 'pricedOnly': must be true or false");
  });

  it('pricedOnly without currency keeps the legs with a price, whatever its currency', () => {
    const compiled = compileQuery(parseListQuery({ pricedOnly: 'true' }), airports);
    const legs: Leg[] = [
      { id: 'a', startDate: '2026-03-01', price: 100, currency: 'XAU' },
      { id: 'b', startDate: '2026-03-01', price: null, currency: 'EUR' },
      { id: 'c', startDate: '2026-03-01', price: 0, currency: null },
    ];
    expect(legs.map(entryOf).filter((e) => compiled.matches(e, WINDOW, NOW)).map((e) => e.id)).toEqual(['a', 'c']);
  });
});
