import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AirportIndex } from '../../../src/airports/reference.js';
import { AppError } from '../../../src/errors.js';
import { compileQuery } from '../../../src/listing/listing.js';
import { parseListQuery } from '../../../src/listing/query.js';
import type { RateSet } from '../../../src/rates/index.js';
import { answeredFilters, parseWatchFilters, WATCH_FILTER_FIELDS } from '../../../src/watches/filters.js';
import { fcParams } from '../../support/fast-check.js';

/** A watch's filters are the listing's query parameters: the same parse, and the same refusals word for word. */
const airports = new AirportIndex([]);
const rates: RateSet = { date: '2022-07-08', rates: { USD: '1.0163', GBP: '0.84755' } };
const valueArb = fc.oneof(
  fc.constantFrom('EUR', 'USD', 'GBP', 'XAU', 'usd', '15000', '15000.5', '0.001', '1e3', 'true', 'false', 'TRUE', '', ' ', '0', '1', '15', '16', '-1', '+3', '850', '851', '1000', '1001', 'abc', 'LFPB', 'lfpb', 'LBG', 'EGL', 'EGLLX', 'Light Jet', 'light jet,heavy-jet', 'Glider', '2026-11-21', '2026-02-30', 'x', 'São', 'new york'),
  fc.string({ maxLength: 12 }),
);
const paramsArb = fc.dictionary(fc.constantFrom(...WATCH_FILTER_FIELDS.filter((f) => f !== 'depNear' && f !== 'arrNear')), valueArb, { maxKeys: 4 });

function outcome(run: () => unknown): { ok: unknown } | { error: string } {
  try {
    return { ok: run() };
  } catch (err) {
    if (err instanceof AppError) return { error: `${err.code}: ${err.message}` };
    throw err;
  }
}

describe('watch filters', () => {
  it('parse as the listing parses the same parameters, and refuse with the same message', () => {
    fc.assert(
      fc.property(paramsArb, (params) => {
        // The listing parses, then compiles with the rates in force (an unknown currency is refused there).
        const listing = outcome(() => compileQuery(parseListQuery(params), () => airports, rates).query);
        const watch = outcome(() => parseWatchFilters(params, () => airports, rates).parsed.query);
        expect(watch).toEqual(listing);
      }),
      fcParams(2000),
    );
  });

  it('refuse paging, an order, unknown names and values that are neither strings, numbers nor booleans', () => {
    expect(() => parseWatchFilters({ sort: 'price', currency: 'EUR' }, () => airports)).toThrow("Invalid parameter 'filters.sort': an order does not apply to a watch");
    expect(() => parseWatchFilters({ size: 5 }, () => airports)).toThrow("Invalid parameter 'filters.size': paging does not apply to a watch");
    expect(() => parseWatchFilters({ page: 2 }, () => airports)).toThrow("Invalid parameter 'filters.page'");
    expect(() => parseWatchFilters({ depCity: 'x' }, () => airports)).toThrow("Invalid parameter 'filters.depCity': is not a listing query parameter");
    expect(() => parseWatchFilters({ minSeats: [4] }, () => airports)).toThrow("Invalid parameter 'minSeats': must be a string, a number or a boolean");
    expect(() => parseWatchFilters([], () => airports)).toThrow("Invalid parameter 'filters'");
    expect(() => parseWatchFilters({ depNear: 'EGLX' }, () => airports)).toThrow("Invalid parameter 'depNear': no airport has the ICAO code 'EGLX'");
  });

  it('answer integers and price bounds as numbers, pricedOnly as a boolean and the rest as given', () => {
    const { stored } = parseWatchFilters({ minSeats: 4, offsetDays: '+2', depDate: '2026-11-21', aircraftType: 'light jet' }, () => airports);
    expect(answeredFilters(stored)).toEqual({ depDate: '2026-11-21', offsetDays: 2, minSeats: 4, aircraftType: 'light jet' });
    const priced = parseWatchFilters({ currency: 'USD', minPrice: '1000.50', maxPrice: 15000, pricedOnly: true }, () => airports, rates).stored;
    expect(priced).toEqual({ currency: 'USD', minPrice: '1000.50', maxPrice: '15000', pricedOnly: 'true' });
    expect(answeredFilters(priced)).toEqual({ currency: 'USD', minPrice: 1000.5, maxPrice: 15000, pricedOnly: true });
    expect(answeredFilters({ pricedOnly: '' })).toEqual({ pricedOnly: '' });
    // The source filters: verifiedOnly a boolean, source and kind as given.
    const sourced = parseWatchFilters({ source: 'acme-air,jets-4-u', kind: 'operator', verifiedOnly: true }, () => airports, rates).stored;
    expect(answeredFilters(sourced)).toEqual({ source: 'acme-air,jets-4-u', kind: 'operator', verifiedOnly: true });
    expect(() => parseWatchFilters({ kind: 'unknown' }, () => airports, rates)).toThrow("Invalid parameter 'kind'");
    expect(() => parseWatchFilters({ verifiedOnly: 'yes' }, () => airports, rates)).toThrow("Invalid parameter 'verifiedOnly': must be true or false");
  });

  it('refuse price filters as the listing does: a currency the rates in force do not know, a bound without currency or below the other', () => {
    expect(() => parseWatchFilters({ currency: 'XAU' }, () => airports, rates)).toThrow("Invalid parameter 'currency': must be EUR or a currency of the reference rates in force (2022-07-08)");
    expect(() => parseWatchFilters({ currency: 'USD' }, () => airports)).toThrow("Invalid parameter 'currency': must be EUR or a currency of the reference rates in force");
    expect(() => parseWatchFilters({ maxPrice: 100 }, () => airports, rates)).toThrow("Invalid parameter 'maxPrice': requires currency");
    expect(() => parseWatchFilters({ currency: 'EUR', minPrice: 200, maxPrice: 100 }, () => airports, rates)).toThrow("Invalid parameter 'minPrice': must not be above maxPrice");
    expect(() => parseWatchFilters({ currency: 'EUR', maxPrice: 0.125 }, () => airports, rates)).toThrow("Invalid parameter 'maxPrice': must be a decimal");
    expect(() => parseWatchFilters({ pricedOnly: 'yes' }, () => airports, rates)).toThrow("Invalid parameter 'pricedOnly': must be true or false");
    // EUR needs no rates.
    expect(parseWatchFilters({ currency: 'EUR', maxPrice: 100 }, () => airports).parsed.query).toMatchObject({ currency: 'EUR', maxPrice: 100 });
  });
});
