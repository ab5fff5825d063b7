// @dateIndependent: its legs start 2 to 13 days after the clock's UTC date and every date it asks for is one of theirs, so no instant brings one near the edge of a day in any zone (listing.test.ts and at-the-clock.test.ts hold the edges).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { addDays, utcDate } from '../../../src/kernel/dates.js';
import { parseImportText } from '../../../src/loading/import/index.js';
import { createListRepository } from '../../../src/listing/list-handler.js';
import { listEmptyLegs } from '../../../src/listing/list-legs.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { MatchMemo } from '../../../src/listing/match-memo.js';
import { parseListQuery } from '../../../src/listing/query.js';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { record } from '../../support/import-records.js';
import { storedLeg } from '../../support/legs.js';
import { testNow } from '../../support/clock.js';

/**
 * `minSeats` and `aircraftType` against DynamoDB Local: legs loaded from import records in the
 * feeds' spellings by the loader, one leg written as a version before the aircraft field wrote it,
 * read through the functions' repository (the lean Query and the response text reader).
 */
const now = new Date(testNow());
const today = utcDate(now);

/** id, day of start from today, seats, aircraftType as the feed writes it, and the category it means. */
const FEED: [string, number, number | null, string | null, string | null][] = [
  ['pc12', 2, 8, 'TURBO-PROP', 'Turboprop'],
  ['m2', 3, 6, 'VLJ', 'Very Light Jet'],
  ['cj4', 3, 8, 'Light jet', 'Light Jet'],
  ['cj3', 4, 7, 'LIGHT JET', 'Light Jet'],
  ['xls', 5, 9, 'mid-size', 'Midsize Jet'],
  ['cl350', 6, 9, 'Super-Midsize', 'Super Midsize Jet'],
  ['g280', 6, 10, 'Super Mid', 'Super Midsize Jet'],
  ['f7x', 7, 14, 'Large jet', 'Heavy Jet'],
  ['g650', 8, 16, 'Ultra Long Range', 'Ultra Long Range'],
  ['gl7500', 9, 17, 'Long range', 'Ultra Long Range'],
  ['acj', 10, 19, 'VIP Airliner', 'Airliner'],
  ['aw139', 11, 8, 'Helicopter', 'Helicopter'],
  ['seneca', 12, 5, 'piston', 'Piston'],
  ['no-seats', 12, null, 'Heavy', 'Heavy Jet'],
  ['no-type', 13, 12, null, null],
];

/** Written before the aircraft field: its entry has six fields, its aircraftType another spelling. */
const OLD = storedLeg({
  id: 'old',
  startDate: addDays(today, 4),
  endDate: addDays(today, 6),
  seatNum: 30,
  aircraftType: 'HEAVY JET' as StoredLeg['aircraftType'],
  depCityName: 'Paris',
});

let t: TestTables;

beforeAll(async () => {
  t = await createTestTables();
  const lines = FEED.map(([id, start, seats, type]) =>
    JSON.stringify(record({ id, startDate: addDays(today, start), endDate: addDays(today, start + 2), seatNum: seats, aircraftType: type })),
  );
  const parsed = parseImportText(lines.join('\n'), { today });
  expect(parsed.errors).toEqual([]);
  await writeLegs(t.client, t.legsTableName, parsed.legs);
  const item = toStorageItem(OLD);
  item.lf = (item.lf as string).split('\u001f').slice(0, 6).join('\u001f');
  await t.client.send(new PutCommand({ TableName: t.legsTableName, Item: item }));
});
afterAll(async () => t.drop());

const repository = () => createListRepository(t.client, { legsTableName: t.legsTableName, listingCacheTtlSeconds: 0 });
const list = (params: Record<string, string>) => listEmptyLegs(parseListQuery(params), { repository: repository(), now });
const idsOf = async (params: Record<string, string>) => (await list({ size: '100', ...params })).records.map((r) => r.id);

/** The feed's legs, in listing order (startDate, then id), that pass `keep`. */
const feedIds = (keep: (seats: number | null, category: string | null) => boolean) =>
  FEED.filter(([, , seats, , category]) => keep(seats, category))
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
    .map(([id]) => id);

describe('minSeats and aircraftType against DynamoDB Local', () => {
  it('stores each feed spelling as its category and serves it; serves an old stored spelling as its category', async () => {
    const records = (await list({ size: '100' })).records;
    const served = new Map(records.map((r) => [r.id, r.aircraftType]));
    for (const [id, , , , category] of FEED) expect([id, served.get(id)]).toEqual([id, category]);
    expect(served.get('old')).toBe('Heavy Jet');
  });

  it('keeps legs with at least minSeats seats; unknown seats and entries written before never match', async () => {
    for (const min of [1, 8, 10, 17, 20]) {
      expect(await idsOf({ minSeats: String(min) })).toEqual(feedIds((seats) => seats !== null && seats >= min));
    }
  });

  it('keeps legs of any category asked for, in any case and spacing; an unknown category and entries written before never match', async () => {
    expect(await idsOf({ aircraftType: 'light jet' })).toEqual(['cj4', 'cj3']);
    expect(await idsOf({ aircraftType: 'Heavy Jet,ultra_long_range, super-midsize-jets' })).toEqual(
      feedIds((_, c) => c === 'Heavy Jet' || c === 'Ultra Long Range' || c === 'Super Midsize Jet'),
    );
    expect(await idsOf({ aircraftType: 'Airliner,Helicopter,Piston' })).toEqual(['acj', 'aw139', 'seneca']);
  });

  it('combines them with each other and the other filters by AND, in order, page after page', async () => {
    const want = feedIds((seats, c) => seats !== null && seats >= 9 && c !== null && c !== 'Light Jet' && c !== 'Turboprop');
    const params = { minSeats: '9', aircraftType: 'midsize jet,super midsize jet,heavy jet,ultra long range,airliner,helicopter' };
    expect(await idsOf(params)).toEqual(want);
    const paged: string[] = [];
    for (let page = 1; page <= want.length + 1; page++) {
      const result = await list({ ...params, size: '2', page: String(page) });
      expect(result.total).toBe(want.length);
      paged.push(...result.records.map((r) => r.id));
    }
    expect(paged).toEqual(want);
    // Every leg is flyable for 3 days from its start.
    const onDay6 = want.filter((id) => {
      const start = FEED.find((f) => f[0] === id)![1];
      return start <= 6 && 6 <= start + 2;
    });
    expect(onDay6).toEqual(['xls', 'cl350', 'g280']);
    expect(await idsOf({ ...params, depAirportCode: 'LFPB', depDate: addDays(today, 6) })).toEqual(onDay6);
    expect(await idsOf({ ...params, depAirportCode: 'KTEB' })).toEqual([]);
  });

  it('answers the same with the warm caches and the match memo', async () => {
    const warm = createListRepository(t.client, { legsTableName: t.legsTableName, listingCacheTtlSeconds: 30 });
    const memo = new MatchMemo();
    for (const params of [{ minSeats: '9' }, { aircraftType: 'Light Jet' }, { aircraftType: 'heavy-jet' }, { minSeats: '9', aircraftType: 'Heavy Jet' }]) {
      const q = parseListQuery(params);
      const plain = await listEmptyLegs(q, { repository: repository(), now });
      expect(await listEmptyLegs(q, { repository: warm, now, memo })).toEqual(plain);
      expect(await listEmptyLegs(q, { repository: warm, now, memo })).toEqual(plain);
    }
    expect(memo.size).toBe(4);
  });
});
