// @dateSensitive: runs again at each of the fixed instants of `npm test` (jest.config.js, TEST_INSTANTS).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { addDays, dateInZone, utcDate } from '../../../src/kernel/dates.js';
import { listEmptyLegs } from '../../../src/listing/list-legs.js';
import { parseListQuery } from '../../../src/listing/query.js';
import { MatchMemo } from '../../../src/listing/match-memo.js';
import { createLegsRepository, withBucketCache } from '../../../src/listing/repository.js';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { testNow } from '../../support/clock.js';
import { storedLeg } from '../../support/legs.js';

/** The repository and the list use case against DynamoDB Local: real index, real queries. */
const now = new Date(testNow());
const today = utcDate(now);

function leg(id: string, start: number, span: number, over: Partial<StoredLeg> = {}): StoredLeg {
  return storedLeg({
    id,
    startDate: addDays(today, start),
    endDate: addDays(today, start + span),
    depCityName: 'Geneva',
    depAirportName: 'Geneva Airport',
    depAirportIcao: 'LSGG',
    depAirportIata: 'GVA',
    depCountryCode: 'CH',
    arrCityName: 'London',
    arrAirportIcao: 'EGGW',
    arrAirportIata: 'LTN',
    registration: 'HB-ABC',
    price: 4200,
    currency: 'CHF',
    depTimezone: 'Europe/Zurich',
    ...over,
  });
}

// Spread over many months, with legs that start in a previous month and overlap into the next,
// long-window legs, and hidden ones.
const legs: StoredLeg[] = [
  ...Array.from({ length: 150 }, (_, i) => leg(`m${String(i).padStart(3, '0')}`, (i * 2) % 300, i % 5)),
  leg('long-window', -20, 60),
  leg('crosses-month', 25, 10),
  leg('blocked', 3, 1, { blocked: true }),
  leg('unlisted', 3, 1, { listed: false }),
  leg('expired', -10, 5),
  leg('no-airport', 4, 1, { depAirportIcao: null, depAirportIata: null, depAirportName: null }),
];

const order = (a: StoredLeg, b: StoredLeg) =>
  a.startDate === b.startDate ? (a.id < b.id ? -1 : 1) : a.startDate < b.startDate ? -1 : 1;
/** Expired once endDate has passed in the departure's zone (not UTC's: Zurich's date runs ahead from 22:00 or 23:00 UTC). */
const visible = legs.filter((l) => l.listed && !l.blocked && l.endDate >= dateInZone(now, l.depTimezone)).sort(order);

let t: TestTables;

beforeAll(async () => {
  t = await createTestTables();
  const items = legs.map(toStorageItem);
  for (let i = 0; i < items.length; i += 25) {
    await t.client.send(
      new BatchWriteCommand({
        RequestItems: { [t.legsTableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
  }
});
afterAll(async () => t.drop());

const list = (params: Record<string, string>) =>
  listEmptyLegs(parseListQuery(params), { repository: createLegsRepository(t.client, t.legsTableName), now });

describe('listing against DynamoDB Local', () => {
  it('returns every visible leg across all buckets in order, and hides blocked, unlisted and expired legs', async () => {
    const ids: string[] = [];
    let total = 0;
    for (let page = 1; page <= 2; page++) {
      const result = await list({ size: '100', page: String(page) });
      total = result.total;
      ids.push(...result.records.map((r) => r.id));
    }
    expect(total).toBe(visible.length);
    expect(ids).toEqual(visible.map((l) => l.id));
    expect(ids).not.toEqual(expect.arrayContaining(['blocked']));
    expect(ids).not.toContain('unlisted');
    expect(ids).not.toContain('expired');
    expect(ids).toContain('long-window');
  });

  it('finds a leg that started in the previous month and still overlaps the window', async () => {
    const target = addDays(today, 33);
    const result = await list({ depDate: target, size: '100' });
    const expected = visible.filter((l) => l.startDate <= target && l.endDate >= target).map((l) => l.id);
    expect(expected).toContain('crosses-month');
    expect(result.records.map((r) => r.id)).toEqual(expected);
  });

  it('returns full records for the page from the table', async () => {
    const result = await list({ depAirportCode: 'LSGG', size: '1' });
    const source = visible.find((l) => l.depAirportIcao === 'LSGG')!;
    expect(result.records[0]).toMatchObject({ id: source.id, registration: 'HB-ABC', price: 4200, arrAirportIata: 'LTN' });
    expect(result.total).toBe(visible.filter((l) => l.depAirportIcao === 'LSGG').length);
  });

  it('never matches an airport filter for a leg without a departure airport', async () => {
    const byCity = await list({ depCityName: 'geneva', size: '100' });
    expect(byCity.records.map((r) => r.id)).toContain('no-airport');
    const byCode = await list({ depAirportCode: 'GVA', size: '100' });
    expect(byCode.records.map((r) => r.id)).not.toContain('no-airport');
  });

  it('answers the same with the warm caches and the match memo as without them, page after page', async () => {
    const cached = withBucketCache(createLegsRepository(t.client, t.legsTableName), 60_000);
    const memo = new MatchMemo();
    const queries = [{}, { depCityName: 'gene' }, { depDate: addDays(today, 33), offsetDays: '15' }, { arrAirportCode: 'LTN' }];
    for (const params of queries) {
      for (const page of ['1', '2', '3']) {
        const q = parseListQuery({ ...params, page, size: '40' });
        const plain = await listEmptyLegs(q, { repository: createLegsRepository(t.client, t.legsTableName), now });
        const first = await listEmptyLegs(q, { repository: cached, now, memo });
        const again = await listEmptyLegs(q, { repository: cached, now, memo });
        expect(first).toEqual(plain);
        expect(again).toEqual(plain);
      }
    }
    expect(memo.size).toBe(queries.length);
  });
});

