import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createStreamsClient } from '../../../src/aws/dynamodb-streams.js';
import { createChangeConsumerHandler } from '../../../src/changes/handlers.js';
import { createChangeLogStore } from '../../../src/changes/store.js';
import { fixedClock } from '../../../src/clock.js';
import { createListRepository } from '../../../src/listing/list-handler.js';
import { listEmptyLegs } from '../../../src/listing/list-legs.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { parseListQuery } from '../../../src/listing/query.js';
import { buildSnapshot } from '../../../src/snapshot/snapshot-build.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { createStreamPoller } from '../../../local/stream-poller.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';
import { getEmptyLeg } from '../../../src/leg-by-id/get-leg.js';
import { createLegReader } from '../../../src/leg-by-id/store.js';

/**
 * Writes made around the project's tools, in the listing: once the stream consumer ran, a warm list
 * container (it follows the change log) and a container started afterwards (the listing snapshot
 * and the log since) both list a hand-made put and an update, and drop a blocked and a deleted leg.
 */
const NOW = Date.parse('2026-11-25T10:00:00Z');
const leg = (id: string, fields: Partial<Parameters<typeof storedLeg>[0]> = {}) =>
  storedLeg({ id, startDate: '2026-12-01', endDate: '2026-12-05', price: 100, ...fields });

let t: TestTables;
beforeAll(async () => {
  t = await createTestTables();
});
afterAll(async () => {
  await t.drop();
});

async function ids(repo: ReturnType<typeof createListRepository>) {
  const page = await listEmptyLegs(parseListQuery({ size: '100' }), { repository: repo, now: new Date(NOW) });
  return page.records.map((r) => `${r.id}:${r.price}`).sort();
}

describe('writes made around the tools', () => {
  it('reach warm containers and new containers through the change log', async () => {
    await writeLegs(t.client, t.legsTableName, [leg('A'), leg('B'), leg('C'), leg('D')]);
    const handler = createChangeConsumerHandler({ store: createChangeLogStore(t.client, t.legsTableName), clock: fixedClock(NOW), stage: 'sandbox', emit: () => undefined });
    const poller = createStreamPoller({ streams: createStreamsClient({ endpoint: t.endpoint }), client: t.client, tableName: t.legsTableName, handle: handler, idleMs: 50 });
    await poller.drain();
    // Built more than a minute after the load was logged: the delta starts after it.
    await buildSnapshot(t.client, t.legsTableName, { clock: () => NOW + 120_000 });
    const config = { legsTableName: t.legsTableName, listingCacheTtlSeconds: 900 };
    const warm = createListRepository(t.client, config);
    expect(await ids(warm)).toEqual(['A:100', 'B:100', 'C:100', 'D:100']);

    await t.client.send(new PutCommand({ TableName: t.legsTableName, Item: toStorageItem(leg('H')) }));
    await t.client.send(new UpdateCommand({ TableName: t.legsTableName, Key: { id: 'A' }, UpdateExpression: 'SET price = :p', ExpressionAttributeValues: { ':p': 7 } }));
    await t.client.send(
      new UpdateCommand({ TableName: t.legsTableName, Key: { id: 'B' }, UpdateExpression: 'SET blocked = :b REMOVE lb, ls, lf', ExpressionAttributeValues: { ':b': true } }),
    );
    await t.client.send(new DeleteCommand({ TableName: t.legsTableName, Key: { id: 'D' } }));
    await poller.drain();

    // The warm container reads the log's head (its interval has passed by then) and sees all four.
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await ids(warm)).toEqual(['A:7', 'C:100', 'H:100']);
    // A container started now reads the snapshot built before the writes, and the log since.
    const cold = createListRepository(t.client, config);
    expect(await ids(cold)).toEqual(['A:7', 'C:100', 'H:100']);
    await poller.stop();
  }, 60_000);
});

/** The ids a listing query gives (every page of 100), through `repo`. */
async function found(repo: ReturnType<typeof createListRepository>, params: Record<string, string>): Promise<string[]> {
  const page = await listEmptyLegs(parseListQuery({ size: '100', ...params }), { repository: repo, now: new Date(NOW) });
  return page.records.map((r) => r.id).sort();
}

describe('hand edits of the fields the listing filters and orders on', () => {
  it('are in the filters of every reader (warm, cold, no cache) and by id once the consumer ran, as the loader would have written them', async () => {
    const base = { depAirportIcao: 'EGLL', depAirportIata: 'LHR', arrAirportIcao: 'LFMN', arrAirportIata: 'NCE', seatNum: 4, aircraftType: 'Light Jet' as const };
    const ids = ['E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7', 'E8', 'E9'];
    await writeLegs(t.client, t.legsTableName, ids.map((id) => leg(id, base)));
    const handler = createChangeConsumerHandler({ store: createChangeLogStore(t.client, t.legsTableName), clock: fixedClock(NOW), stage: 'sandbox', emit: () => undefined });
    const poller = createStreamPoller({ streams: createStreamsClient({ endpoint: t.endpoint }), client: t.client, tableName: t.legsTableName, handle: handler, idleMs: 50 });
    await poller.drain();
    const warm = createListRepository(t.client, { legsTableName: t.legsTableName, listingCacheTtlSeconds: 900 });
    expect(await found(warm, { depAirportCode: 'EGLL' })).toEqual(expect.arrayContaining(ids));

    const edit = (id: string, set: Record<string, unknown>) =>
      t.client.send(
        new UpdateCommand({
          TableName: t.legsTableName,
          Key: { id },
          UpdateExpression: `SET ${Object.keys(set).map((k, i) => `#k${i} = :v${i}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(Object.keys(set).map((k, i) => [`#k${i}`, k])),
          ExpressionAttributeValues: Object.fromEntries(Object.values(set).map((v, i) => [`:v${i}`, v])),
        }),
      );
    await edit('E1', { depAirportIcao: 'LFPG' });
    await edit('E2', { arrAirportIata: 'CDG', arrAirportIcao: 'LFPG' });
    await edit('E3', { depCityName: 'Genève' });
    await edit('E4', { seatNum: 14 });
    await edit('E5', { aircraftType: 'Heavy Jet' });
    // Another month (another bucket of the index), and a span moved into the past.
    await edit('E6', { startDate: '2027-01-10', endDate: '2027-01-12' });
    await edit('E7', { startDate: '2026-11-20', endDate: '2026-11-22' });
    await edit('E8', { listed: false });
    await edit('E9', { endDate: '2026-12-09' });
    await poller.drain();
    // The consumer's own writes (the items brought in line) come back on the stream: nothing more to do.
    await poller.drain();
    await new Promise((r) => setTimeout(r, 1_100));

    const readers = {
      warm,
      cold: createListRepository(t.client, { legsTableName: t.legsTableName, listingCacheTtlSeconds: 900 }),
      index: createListRepository(t.client, { legsTableName: t.legsTableName, listingCacheTtlSeconds: 0 }),
    };
    for (const [name, repo] of Object.entries(readers)) {
      const got = {
        name,
        egll: await found(repo, { depAirportCode: 'EGLL' }),
        lfpg: await found(repo, { depAirportCode: 'LFPG' }),
        arrCdg: await found(repo, { arrAirportCode: 'CDG' }),
        arrNce: await found(repo, { arrAirportCode: 'NCE' }),
        geneve: await found(repo, { depCityName: 'geneve' }),
        seats: await found(repo, { minSeats: '10' }),
        heavy: await found(repo, { aircraftType: 'Heavy Jet' }),
        january: await found(repo, { depDate: '2027-01-10' }),
        ninth: await found(repo, { depDate: '2026-12-09', offsetDays: '0' }),
      };
      expect(got).toEqual({
        name,
        egll: ['E2', 'E3', 'E4', 'E5', 'E6', 'E9'],
        lfpg: ['E1'],
        arrCdg: ['E2'],
        arrNce: ['E1', 'E3', 'E4', 'E5', 'E6', 'E9'],
        geneve: ['E3'],
        seats: ['E4'],
        heavy: ['E5'],
        january: ['E6'],
        ninth: ['E9'],
      });
    }
    // By id: the leg moved into the past and the one unlisted by hand are gone there too.
    const byId = async (id: string) =>
      getEmptyLeg(id, { readLeg: createLegReader(t.client, t.legsTableName), now: () => new Date(NOW) }).then(
        (l) => l.id,
        () => 'not found',
      );
    expect(await Promise.all(['E6', 'E7', 'E8'].map(byId))).toEqual(['E6', 'not found', 'not found']);
    await poller.stop();
  }, 60_000);
});
