import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { matchesKey, PAGING_FIELDS } from '../../../src/listing/match-memo.js';
import { LIST_QUERY_FIELDS, parseListQuery, type ListQuery } from '../../../src/listing/query.js';
import { fcParams } from '../../support/fast-check.js';

/**
 * The memo key of the listing (src/listing/match-memo.ts) decides which queries share memoised
 * matches. A field left out of it would serve one query's legs to another from a warm container.
 * The fields come from the query's schema (LIST_QUERY_FIELDS), so a new parameter is checked here
 * as soon as it has a generator below (the record's type demands one for every field).
 */
const TODAY = '2026-11-22';

const absentOr = (values: fc.Arbitrary<string>) => fc.option(values, { nil: undefined, freq: 3 });
const cities = absentOr(fc.constantFrom('Paris', 'paris', 'New York', 'São Paulo', 'sao paulo', 'Zürich', 'Nice', '  Nice  ', 'ab', ''));
const airports = absentOr(fc.constantFrom('LFPB', 'lfpb', 'LBG', 'NCE', 'nce', 'LFMN', 'KTEB', 'TEB', ''));

/** Raw query-string values of each parameter, valid or empty (absent). */
const RAW: { readonly [F in keyof ListQuery]: fc.Arbitrary<string | undefined> } = {
  page: absentOr(fc.integer({ min: -2, max: 40 }).map(String)),
  size: absentOr(fc.integer({ min: -2, max: 120 }).map(String)),
  depDate: absentOr(
    fc.integer({ min: -30, max: 500 }).map((d) => new Date(Date.UTC(2026, 10, 22 + d)).toISOString().slice(0, 10)),
  ),
  offsetDays: absentOr(fc.integer({ min: 0, max: 15 }).map(String)),
  depCityName: cities,
  arrCityName: cities,
  depAirportCode: airports,
  arrAirportCode: airports,
  depNear: airports,
  depRadiusKm: absentOr(fc.integer({ min: 1, max: 1000 }).map(String)),
  arrNear: airports,
  arrRadiusKm: absentOr(fc.integer({ min: 1, max: 1000 }).map(String)),
  minSeats: absentOr(fc.integer({ min: 1, max: 850 }).map(String)),
  aircraftType: absentOr(
    fc
      .subarray(['Light Jet', 'light jet', 'HEAVY-JET', 'ULR', 'Ultra Long Range', 'Helicopter', 'Piston', 'Super Mid'], { minLength: 1 })
      .map((list) => list.join(',')),
  ),
  tripFrom: airports,
  tripTo: airports,
  maxDetourPct: absentOr(fc.integer({ min: 0, max: 100 }).map(String)),
  depCountryCode: absentOr(fc.constantFrom('FR', 'fr', 'FR,IT', 'it, fr', 'GB', '')),
  arrCountryCode: absentOr(fc.constantFrom('FR', 'IT', 'us,CA', '')),
  depContinent: absentOr(fc.constantFrom('EU', 'eu', 'EU,NA', 'AS', '')),
  arrContinent: absentOr(fc.constantFrom('EU', 'NA,SA', 'oc', '')),
  source: absentOr(fc.constantFrom('acme-air', ' acme-air', 'acme-air,resell-co', 'resell-co, acme-air', 'default', '')),
  kind: absentOr(fc.constantFrom('operator', 'broker', ' broker', 'operator,broker', '')),
  verifiedOnly: absentOr(fc.constantFrom('true', 'false')),
  maxAgeHours: absentOr(fc.integer({ min: 1, max: 720 }).map(String)),
  sort: absentOr(fc.constantFrom('startDate', 'detour', 'price', '-price')),
  currency: absentOr(fc.constantFrom('EUR', 'USD', 'GBP')),
  minPrice: absentOr(fc.constantFrom('0', '1000', '12500.5', '20000')),
  maxPrice: absentOr(fc.constantFrom('0', '1000', '15000', '99999.99')),
  pricedOnly: absentOr(fc.constantFrom('true', 'false')),
  group: absentOr(fc.constantFrom('leg', 'flight')),
};

type Raw = Partial<Record<keyof ListQuery, string>>;

const rawQuery: fc.Arbitrary<Raw> = fc.record(RAW, { requiredKeys: [] });

function parsed(raw: Raw): ListQuery | undefined {
  try {
    return parseListQuery(raw);
  } catch {
    return undefined; // an invalid combination (offsetDays without depDate)
  }
}

const paging: ReadonlySet<string> = new Set(PAGING_FIELDS);

describe('the listing memo key', () => {
  it('has a generator for every field of the query schema', () => {
    expect(Object.keys(RAW).sort()).toEqual([...LIST_QUERY_FIELDS].sort());
  });

  it('differs between two queries that differ in any one field that is not paging; is shared by the pages of one query', () => {
    const field = fc.constantFrom(...LIST_QUERY_FIELDS);
    const withOther = field.chain((f) => fc.tuple(fc.constant(f), RAW[f]));
    fc.assert(
      fc.property(rawQuery, withOther, (base, [f, other]) => {
        const a = parsed(base);
        const b = parsed({ ...base, [f]: other });
        fc.pre(a !== undefined && b !== undefined);
        for (const g of LIST_QUERY_FIELDS) if (g !== f) expect(b[g]).toEqual(a[g]);
        const sameKey = matchesKey(a, TODAY) === matchesKey(b, TODAY);
        if (paging.has(f) || isDeepStrictEqual(a[f], b[f])) expect(sameKey).toBe(true);
        else expect(sameKey).toBe(false);
      }),
      fcParams(2_000),
    );
  });

  it('differs from one UTC day to the next (the date window moves with today)', () => {
    fc.assert(
      fc.property(rawQuery, (raw) => {
        const q = parsed(raw);
        fc.pre(q !== undefined);
        expect(matchesKey(q, '2026-11-22')).not.toBe(matchesKey(q, '2026-11-23'));
      }),
      fcParams(200),
    );
  });
});
