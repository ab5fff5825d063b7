import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { createStreamsClient } from '../../../src/aws/dynamodb-streams.js';
import { batchPut } from '../../../src/aws/batch-write.js';
import { decodeCursor } from '../../../src/changes/cursor.js';
import { readChanges, type ChangesPage } from '../../../src/changes/feed.js';
import { createChangeConsumerHandler } from '../../../src/changes/handlers.js';
import { LISTING_SCANS_PER_PAGE } from '../../../src/changes/store-parts/initial-listing.js';
import { createChangeLogStore } from '../../../src/changes/store.js';
import { fixedClock } from '../../../src/clock.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { createStreamPoller } from '../../../local/stream-poller.js';
import { countingClient, type CountingClient } from '../../support/counting-client.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';

/**
 * The change feed's first read (no `after`) on DynamoDB Local: it lists every leg listed, a leg a
 * hand-made put left without its index attributes (before the consumer writes them back) included,
 * each once; and one page reads at most LISTING_SCANS_PER_PAGE pages of the index, its cursor going on.
 */
const NOW = Date.parse('2026-11-25T10:00:00Z');
const KEY = 'cursor-key-of-the-tests-0123456789abcdef';
const leg = (id: string, fields: Partial<Parameters<typeof storedLeg>[0]> = {}) => storedLeg({ id, startDate: '2026-12-01', endDate: '2026-12-05', price: 100, ...fields });
/** A put by hand: the fields, without the index attributes the loader writes. */
const handMade = (id: string) => ({ id, startDate: '2026-12-02', endDate: '2026-12-06', listed: true, blocked: false, depCityName: 'X', arrCityName: 'Y' });

let t: TestTables;
beforeAll(async () => {
  t = await createTestTables();
});
afterAll(async () => {
  await t.drop();
});

function consumer() {
  const handler = createChangeConsumerHandler({ store: createChangeLogStore(t.client, t.legsTableName), clock: fixedClock(NOW), stage: 'sandbox', emit: () => undefined });
  return createStreamPoller({ streams: createStreamsClient({ endpoint: t.endpoint }), client: t.client, tableName: t.legsTableName, handle: handler, idleMs: 50 });
}

/** Every page of a first read, with the Scan requests each made (when `counting`). */
async function readAll(size: number, counting?: CountingClient): Promise<(ChangesPage & { scans: number })[]> {
  const deps = { store: createChangeLogStore(counting?.client ?? t.client, t.legsTableName), clock: () => NOW, cursorKey: KEY };
  const pages: (ChangesPage & { scans: number })[] = [];
  let after: string | undefined;
  do {
    counting?.reset();
    const page = await readChanges({ after: after === undefined ? undefined : decodeCursor(after, KEY), size }, deps);
    pages.push({ ...page, scans: counting?.named('ScanCommand').length ?? 0 });
    after = page.cursor;
  } while (pages.at(-1)!.hasMore);
  return pages;
}

describe('the first read of the change feed', () => {
  it('lists a leg a hand-made put left unindexed (before the consumer writes its index back), and every leg once', async () => {
    await writeLegs(t.client, t.legsTableName, [leg('A'), leg('B', { price: 200 }), leg('Z', { blocked: true })]);
    await t.client.send(new PutCommand({ TableName: t.legsTableName, Item: handMade('H') }));
    const poller = consumer();
    await poller.drain();
    // H again by hand, unchanged to a reader: no new entry, and its item unindexed until the consumer runs.
    await t.client.send(new PutCommand({ TableName: t.legsTableName, Item: handMade('H') }));

    for (const size of [1, 2, 100]) {
      const listed = (await readAll(size)).flatMap((p) => p.changes);
      expect(listed.map((c) => `${c.type}:${c.id}`).sort()).toEqual(['listed:A', 'listed:B', 'listed:H']);
      expect(listed.find((c) => c.id === 'B')?.leg?.price).toBe(200);
      expect(listed.find((c) => c.id === 'H')?.leg).toMatchObject({ id: 'H', startDate: '2026-12-02', depCityName: 'X' });
    }
    await poller.drain();
    expect((await readAll(100)).flatMap((p) => p.changes).map((c) => c.id).sort()).toEqual(['A', 'B', 'H']);
  });

  it(`reads at most ${LISTING_SCANS_PER_PAGE} pages of the index per answer; the cursor goes on to every leg`, async () => {
    // 400 legs ended before NOW, still in the index (retirement has not run): evaluated, never listed.
    const ended = Array.from({ length: 400 }, (_, i) => toStorageItem(leg(`old${String(i).padStart(3, '0')}`, { startDate: '2026-11-01', endDate: '2026-11-02' })));
    await batchPut(t.client, t.legsTableName, ended, { concurrency: 4, attempts: 8 });
    const pages = await readAll(1, countingClient(t.client));
    expect(Math.max(...pages.map((p) => p.scans))).toBe(LISTING_SCANS_PER_PAGE);
    expect(pages.flatMap((p) => p.changes).map((c) => c.id).sort()).toEqual(['A', 'B', 'H']);
    // An answer capped: no change yet, and more to come.
    expect(pages.some((p) => p.changes.length === 0 && p.hasMore)).toBe(true);
  });
});
