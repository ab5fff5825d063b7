// @dateSensitive: runs again at each of the fixed instants of `npm test` (jest.config.js, TEST_INSTANTS).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addDays, utcDate } from '../../../src/kernel/dates.js';
import { getEmptyLeg } from '../../../src/leg-by-id/get-leg.js';
import { createLegReader } from '../../../src/leg-by-id/store.js';
import { listEmptyLegs } from '../../../src/listing/list-legs.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { parseListQuery } from '../../../src/listing/query.js';
import { createLegsRepository } from '../../../src/listing/repository.js';
import type { StoredLeg } from '../../../src/kernel/leg-item.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';
import { testNow } from '../../support/clock.js';

/**
 * The by-id read against DynamoDB Local: legs written by the loader (the project's write path), read
 * back with the reader of the function (GetItem, strongly consistent), and compared with the listing
 * over the same table.
 */
const now = new Date(testNow());
const today = utcDate(now);
const leg = (id: string, start: number, span: number, over: Partial<StoredLeg> = {}): StoredLeg =>
  storedLeg({ id, startDate: addDays(today, start), endDate: addDays(today, start + span), price: 100, currency: 'EUR', ...over });

const legs = [
  leg('live-1', 2, 3),
  leg('live-long', 1, 60),
  leg('blocked-1', 2, 3, { blocked: true }),
  leg('unlisted-1', 2, 3, { listed: false }),
  leg('expired-1', -10, 3),
];

let tables: TestTables;

beforeAll(async () => {
  tables = await createTestTables();
  await writeLegs(tables.client, tables.legsTableName, legs);
}, 60_000);
afterAll(async () => tables?.drop());

async function served(id: string): Promise<string | undefined> {
  const readLeg = createLegReader(tables.client, tables.legsTableName);
  try {
    return (await getEmptyLeg(id, { readLeg, now: () => now })).id;
  } catch (err) {
    expect((err as { code?: string }).code).toBe('NOT_FOUND');
    return undefined;
  }
}

describe('getEmptyLeg on DynamoDB Local', () => {
  it('serves exactly the legs the listing lists, with the same records', async () => {
    const page = await listEmptyLegs(parseListQuery({ size: '100' }), { repository: createLegsRepository(tables.client, tables.legsTableName), now });
    const listedIds = page.records.map((r) => r.id).sort();
    expect(listedIds).toEqual(['live-1', 'live-long']);
    const readLeg = createLegReader(tables.client, tables.legsTableName);
    for (const record of page.records) expect(await getEmptyLeg(record.id, { readLeg, now: () => now })).toEqual(record);
    const byId = (await Promise.all([...legs.map((l) => l.id), 'never-loaded', '~journal'].map(served))).filter((id) => id !== undefined);
    expect(byId.sort()).toEqual(listedIds);
  });

  it('answers a change written by the loader at the next read: blocked, then listed again', async () => {
    await writeLegs(tables.client, tables.legsTableName, [{ ...legs[0]!, blocked: true }]);
    expect(await served('live-1')).toBeUndefined();
    await writeLegs(tables.client, tables.legsTableName, [{ ...legs[0]!, price: 5 }]);
    expect(await served('live-1')).toBe('live-1');
  });
});
