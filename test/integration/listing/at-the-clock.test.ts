// @dateSensitive: runs again at each of the fixed instants of `npm test` (jest.config.js, TEST_INSTANTS).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildSnapshot } from '../../../src/snapshot/snapshot-build.js';
import { addDays, dateInZone, utcDate } from '../../../src/kernel/dates.js';
import { getEmptyLeg } from '../../../src/leg-by-id/get-leg.js';
import { createLegReader } from '../../../src/leg-by-id/store.js';
import { createListRepository } from '../../../src/listing/list-handler.js';
import { listEmptyLegs } from '../../../src/listing/list-legs.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { parseListQuery } from '../../../src/listing/query.js';
import { createLegsRepository, type LegsRepository } from '../../../src/listing/repository.js';
import type { StoredLeg } from '../../../src/kernel/leg-item.js';
import { testClock } from '../../support/clock.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';

/**
 * The listing and the by-id read at the tests' clock (`npm test -- --at`), for legs in the zones
 * furthest apart: each leg ends on the day before, of, or after "today" in its own departure zone,
 * and starts on the last or first day of a month around it. Expected: expired once endDate has
 * passed in the departure zone; the query's today is UTC's. Read from the index, the snapshot, and
 * the functions' cached repository alike.
 */
const ZONES = ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Europe/Zurich', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC'];
const now = new Date(testClock());
const todayUtc = utcDate(now);

const legs: StoredLeg[] = ZONES.flatMap((zone, z) => {
  const localToday = dateInZone(now, zone);
  return [-1, 0, 1].map((endOffset) => {
    const endDate = addDays(localToday, endOffset);
    // Starts from two days before the end, so that some cross a month or a year.
    const startDate = addDays(endDate, -(z % 3));
    return storedLeg({ id: `z${z}-end${endOffset + 1}`, startDate, endDate, depTimezone: zone, price: 1000 + z, currency: 'EUR' });
  });
});

const notExpired = (l: StoredLeg) => l.endDate >= dateInZone(now, l.depTimezone);
const byStart = (a: StoredLeg, b: StoredLeg) => (a.startDate === b.startDate ? (a.id < b.id ? -1 : 1) : a.startDate < b.startDate ? -1 : 1);

let t: TestTables;
beforeAll(async () => {
  t = await createTestTables();
  await writeLegs(t.client, t.legsTableName, legs);
  await buildSnapshot(t.client, t.legsTableName, { clock: testClock });
}, 60_000);
afterAll(async () => t?.drop());

async function ids(repository: LegsRepository, params: Record<string, string>): Promise<string[]> {
  const page = await listEmptyLegs(parseListQuery({ size: '100', ...params }), { repository, now });
  return page.records.map((r) => r.id);
}

describe(`at the tests' clock (${now.toISOString()})`, () => {
  const repositories: [string, () => LegsRepository][] = [
    ['the index', () => createLegsRepository(t.client, t.legsTableName)],
    ['the snapshot behind the cache', () => createListRepository(t.client, { legsTableName: t.legsTableName, listingCacheTtlSeconds: 900, clock: testClock })],
  ];

  it.each(repositories)('the unfiltered listing holds every leg not expired in its own zone (%s)', async (_, repository) => {
    expect(await ids(repository(), {})).toEqual(legs.filter(notExpired).sort(byStart).map((l) => l.id));
  });

  it.each(repositories)("depDate: UTC's today matches; a window ending yesterday is empty, one reaching today is clipped (%s)", async (_, repository) => {
    const onToday = legs.filter((l) => notExpired(l) && l.startDate <= todayUtc && l.endDate >= todayUtc).sort(byStart).map((l) => l.id);
    const repo = repository();
    expect(await ids(repo, { depDate: todayUtc })).toEqual(onToday);
    expect(await ids(repo, { depDate: addDays(todayUtc, -1) })).toEqual([]);
    expect(await ids(repo, { depDate: addDays(todayUtc, -1), offsetDays: '1' })).toEqual(onToday);
  });

  it('the by-id read serves exactly the legs the listing lists', async () => {
    const readLeg = createLegReader(t.client, t.legsTableName);
    for (const leg of legs) {
      const served = await getEmptyLeg(leg.id, { readLeg, now: () => now }).then(
        (r) => r.id,
        () => undefined,
      );
      expect([leg.id, served]).toEqual([leg.id, notExpired(leg) ? leg.id : undefined]);
    }
  });
});
