// @dateIndependent: its legs start 3 to 20 days after the clock's UTC date, in UTC, and every window it asks for holds them all, so no instant brings one near an edge.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addDays, utcDate } from '../../../src/kernel/dates.js';
import { createListRepository } from '../../../src/listing/list-handler.js';
import { listEmptyLegs } from '../../../src/listing/list-legs.js';
import { MatchMemo } from '../../../src/listing/match-memo.js';
import { parseListQuery } from '../../../src/listing/query.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { cachedRegistry, createSourcesStore } from '../../../src/sources/index.js';
import type { StoredLeg } from '../../../src/kernel/leg-item.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';
import { testNow } from '../../support/clock.js';

/**
 * `group=flight` against DynamoDB Local (docs/api.md, "Flights"): legs loaded by the loader, the
 * registry's kinds, read through the functions' repository; the expectations computed here from
 * the ungrouped listing and the rule.
 */
const now = new Date(testNow());
const today = utcDate(now);
const KIND: Record<string, 'operator' | 'broker' | undefined> = { acme: 'operator', 'jet-brokers': 'broker', 'cheap-seats': 'broker' };

/** id, registration, dep, arr, start day, span, price (EUR), source. */
const LEGS: [string, string | null, string, string, number, number, number | null, string][] = [
  // One flight offered three times: the operator, a broker and a cheaper broker (hyphens differ).
  ['f1-op', 'F-HCJF', 'LFPB', 'LSGG', 5, 2, 12000, 'acme'],
  ['f1-br', 'FHCJF', 'LFPB', 'LSGG', 6, 0, 11000, 'jet-brokers'],
  ['f1-cheap', 'f-hcjf', 'LFPB', 'LSGG', 4, 1, 9000, 'cheap-seats'],
  // Twice, by brokers only, a chain of overlaps.
  ['f2-a', 'N-123AB', 'KTEB', 'KVNY', 3, 1, 30000, 'jet-brokers'],
  ['f2-b', 'N123AB', 'KTEB', 'KVNY', 4, 3, 28000, 'cheap-seats'],
  // Same aircraft and route a week later: another flight.
  ['f3', 'N123AB', 'KTEB', 'KVNY', 14, 1, 25000, 'acme'],
  // Same aircraft, other route: another flight.
  ['f4', 'F-HCJF', 'LSGG', 'LFPB', 7, 1, 8000, 'acme'],
  // No registration: never merged.
  ['n1', null, 'LFPB', 'LSGG', 5, 2, 7000, 'acme'],
  ['n2', null, 'LFPB', 'LSGG', 5, 2, 7000, 'jet-brokers'],
  ['solo', 'G-ABCD', 'EGLF', 'LFMN', 20, 0, null, 'acme'],
];

const FLIGHTS = [['f1-op', 'f1-br', 'f1-cheap'], ['f2-a', 'f2-b'], ['f3'], ['f4'], ['n1'], ['n2'], ['solo']];

let t: TestTables;

beforeAll(async () => {
  t = await createTestTables();
  const legs: StoredLeg[] = LEGS.map(([id, registration, dep, arr, start, span, price, source]) =>
    storedLeg({
      id,
      registration,
      depAirportIcao: dep,
      arrAirportIcao: arr,
      startDate: addDays(today, start),
      endDate: addDays(today, start + span),
      price,
      currency: price === null ? null : 'EUR',
      source,
    }),
  );
  await writeLegs(t.client, t.legsTableName, legs);
  const sources = createSourcesStore(t.client, t.legsTableName);
  for (const [id, kind] of Object.entries(KIND)) await sources.set(id, { kind: kind!, ...(id === 'jet-brokers' ? { verified: true } : {}) }, { id: 'run-1', at: testNow() });
});
afterAll(async () => t.drop());

const deps = () => ({
  repository: createListRepository(t.client, { legsTableName: t.legsTableName, listingCacheTtlSeconds: 0 }),
  now,
  registry: cachedRegistry(createSourcesStore(t.client, t.legsTableName), { clock: () => now.getTime() }),
  rates: () => Promise.resolve({ date: '2026-01-02', rates: { USD: '1.25' } }),
});
const list = (params: Record<string, string>, d = deps()) => listEmptyLegs(parseListQuery({ size: '100', ...params }), d);
const leg = (id: string) => LEGS.find((l) => l[0] === id)!;

/** Best first: operator, broker, unknown; verified; (confirmedAt unknown here); cheapest in euros; id. */
function best(ids: string[]): string[] {
  const rank = (id: string) => {
    const [, , , , , , price, source] = leg(id);
    const kind = KIND[source];
    return [kind === 'operator' ? 0 : kind === 'broker' ? 1 : 2, source === 'jet-brokers' ? 0 : 1, price ?? Infinity];
  };
  return [...ids].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]! || (a < b ? -1 : 1);
  });
}

describe('group=flight on DynamoDB Local', () => {
  it('lists each flight once, its best offer\'s record then its offers best first; total counts flights', async () => {
    const ungrouped = await list({});
    const grouped = await list({ group: 'flight' });
    expect(grouped.total).toBe(FLIGHTS.length);
    const expected = FLIGHTS.map(best).sort((a, b) => {
      const [x, y] = [leg(a[0]!), leg(b[0]!)];
      return x[4] - y[4] || (a[0]! < b[0]! ? -1 : 1);
    });
    expect(grouped.records.map((r) => (r as unknown as { offers: { id: string }[] }).offers.map((o) => o.id))).toEqual(expected);
    for (const record of grouped.records) {
      const { offerCount, offers, ...rest } = record as typeof record & { offerCount: number; offers: { id: string; kind: string; verified: boolean; price: number | null; source: string }[] };
      expect(offerCount).toBe(offers.length);
      expect(rest).toEqual(ungrouped.records.find((r) => r.id === offers[0]!.id));
      for (const o of offers) {
        const [, , , , , , price, source] = leg(o.id);
        expect(o).toEqual({ id: o.id, source, kind: KIND[source] ?? 'unknown', verified: source === 'jet-brokers', price, currency: price === null ? null : 'EUR', confirmedAt: null });
      }
    }
    expect(await list({ group: 'leg' })).toEqual(ungrouped);
  });

  it('applies the filters to the legs first: a flight with one matching offer lists that one', async () => {
    const page = await list({ group: 'flight', currency: 'EUR', maxPrice: '10000', depAirportCode: 'LFPB' });
    const offers = page.records.map((r) => (r as unknown as { offers: { id: string; convertedPrice: unknown }[] }).offers);
    expect(offers.map((o) => o.map((x) => x.id))).toEqual([['f1-cheap'], ['n1'], ['n2']]);
    expect(offers[0]![0]!.convertedPrice).toEqual({ amount: 9000, currency: 'EUR', rateDate: '2026-01-02' });
  });

  it('orders flights by their cheapest matching offer with sort=price, pages count flights', async () => {
    const page = await list({ group: 'flight', currency: 'EUR', sort: 'price' });
    const cheapest = (ids: string[]) => Math.min(...ids.map((id) => leg(id)[6] ?? Infinity));
    const order = [...FLIGHTS].sort((a, b) => cheapest(a) - cheapest(b) || (best(a)[0]! < best(b)[0]! ? -1 : 1)).map((f) => best(f)[0]);
    // Ties (n1, n2 at 7000) in the listing's order, by startDate then id.
    expect(page.records.map((r) => r.id)).toEqual(order);
    const second = await list({ group: 'flight', currency: 'EUR', sort: 'price', size: '2', page: '2' });
    expect(second.records.map((r) => r.id)).toEqual(order.slice(2, 4));
    expect(second.total).toBe(FLIGHTS.length);
  });

  it('answers the same from a warm cache and memo as from the table', async () => {
    const warm = { ...deps(), repository: createListRepository(t.client, { legsTableName: t.legsTableName, listingCacheTtlSeconds: 60 }), memo: new MatchMemo() };
    const cold = await list({ group: 'flight' });
    expect(await list({ group: 'flight' }, warm)).toEqual(cold);
    expect(await list({ group: 'flight' }, warm)).toEqual(cold);
  });

  it("gives the brokers' offers their own record when the operator's leaves, and the operator's again when it is back", async () => {
    const stored = (listed: boolean) => {
      const [id, registration, dep, arr, start, span, price, source] = leg('f1-op');
      return storedLeg({ id, registration, depAirportIcao: dep, arrAirportIcao: arr, startDate: addDays(today, start), endDate: addDays(today, start + span), price, currency: 'EUR', source, listed });
    };
    const flightsOf = async () => (await list({ group: 'flight', depAirportCode: 'LFPB', arrAirportCode: 'LSGG' })).records.filter((r) => r.registration?.replace(/-/g, '').toUpperCase() === 'FHCJF') as unknown as { id: string; offers: { id: string }[] }[];
    expect((await flightsOf()).map((f) => f.offers.map((o) => o.id))).toEqual([['f1-op', 'f1-br', 'f1-cheap']]);
    await writeLegs(t.client, t.legsTableName, [stored(false)]);
    // The operator's window (days 5-7) joined the brokers' (4-5 and 6): without it they no longer
    // overlap, two flights, each a broker's offer, its record that broker's.
    expect((await flightsOf()).map((f) => [f.id, f.offers.map((o) => o.id)])).toEqual([['f1-cheap', ['f1-cheap']], ['f1-br', ['f1-br']]]);
    expect((await list({ group: 'flight' })).total).toBe(FLIGHTS.length + 1);
    await writeLegs(t.client, t.legsTableName, [stored(true)]);
    expect((await flightsOf()).map((f) => f.id)).toEqual(['f1-op']);
  });

  it("makes the verified broker's offer best when the operator's leaves a flight the brokers' windows hold together", async () => {
    const op = (listed: boolean) => storedLeg({ id: 'f2-op', registration: 'N-123 AB', depAirportIcao: 'KTEB', arrAirportIcao: 'KVNY', startDate: addDays(today, 3), endDate: addDays(today, 5), price: 40000, currency: 'EUR', source: 'acme', listed });
    const flightOf = async () => (await list({ group: 'flight', depAirportCode: 'KTEB', arrAirportCode: 'KVNY' })).records[0] as unknown as { id: string; offers: { id: string }[] };
    await writeLegs(t.client, t.legsTableName, [op(true)]);
    expect((await flightOf()).offers.map((o) => o.id)).toEqual(['f2-op', 'f2-a', 'f2-b']);
    await writeLegs(t.client, t.legsTableName, [op(false)]);
    const left = await flightOf();
    expect([left.id, left.offers.map((o) => o.id)]).toEqual(['f2-a', ['f2-a', 'f2-b']]);
  });

  it('compares departure times where the feeds give them: a later departure that day is another flight until a leg bridges them', async () => {
    const timed = (id: string, source: string, depTimeFrom: string, depTimeTo: string) =>
      storedLeg({ id, registration: 'D-CXYZ', depAirportIcao: 'EDDM', arrAirportIcao: 'LOWW', startDate: addDays(today, 9), endDate: addDays(today, 9), price: 5000, currency: 'EUR', source, depTimeFrom, depTimeTo });
    const flights = async () => (await list({ group: 'flight', depAirportCode: 'EDDM' })).records.map((r) => (r as unknown as { offers: { id: string }[] }).offers.map((o) => o.id));
    await writeLegs(t.client, t.legsTableName, [timed('t-morning', 'acme', '08:00', '10:00'), timed('t-afternoon', 'jet-brokers', '12:00', '14:00')]);
    expect(await flights()).toEqual([['t-afternoon'], ['t-morning']]);
    // 09:30 to 12:30 overlaps both: one flight of three, the operator's offer best.
    await writeLegs(t.client, t.legsTableName, [timed('t-bridge', 'cheap-seats', '09:30', '12:30')]);
    expect(await flights()).toEqual([['t-morning', 't-afternoon', 't-bridge']]);
  });
});
