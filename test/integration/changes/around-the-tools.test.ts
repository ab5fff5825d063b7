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
