import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createStreamsClient } from '../../../src/aws/dynamodb-streams.js';
import { createChangeConsumerHandler } from '../../../src/changes/handlers.js';
import { createChangeLogStore } from '../../../src/changes/store.js';
import { fixedClock } from '../../../src/clock.js';
import { IndexEntryReader } from '../../../src/kernel/index-entry.js';
import { confirmedAtOf, instantsOf } from '../../../src/kernel/leg/instants.js';
import { loadFeed } from '../../../src/loading/feed-load.js';
import { createSourcesStore } from '../../../src/sources/index.js';
import { createStreamPoller } from '../../../local/stream-poller.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';

/**
 * A leg's instants on DynamoDB Local, through every path (docs/storage.md, "A leg's instants"): an
 * upsert, a sync that carries it unchanged (no write: its source's sync stamp confirms it), a sync
 * that changes it, and a write by hand that the change consumer sees.
 */
const T0 = Date.parse('2026-12-01T08:00:00Z');
const HOUR = 3_600_000;
const legOf = (id: string, price = 100) => ({ ...storedLeg({ id, startDate: '2027-01-10', endDate: '2027-01-12', price, currency: 'EUR' }), source: 'acme' });

let t: TestTables;
beforeAll(async () => {
  t = await createTestTables();
});
afterAll(async () => {
  await t.drop();
});

const item = async (id: string) => (await t.client.send(new GetCommand({ TableName: t.legsTableName, Key: { id }, ConsistentRead: true }))).Item!;
const load = (legs: ReturnType<typeof legOf>[], mode: 'upsert' | 'sync', at: number) =>
  loadFeed(t.client, t.legsTableName, { legs, mode, now: new Date(at) });

describe('the instants of a leg on DynamoDB Local', () => {
  it('are set by every path, with one write per leg at most', async () => {
    await load([legOf('I1'), legOf('I2')], 'upsert', T0);
    expect(instantsOf(await item('I1'))).toEqual({ firstSeenAt: T0, updatedAt: T0, confirmedAt: T0 });

    // A sync an hour later that carries I1 unchanged and changes I2's price: only I2 is written.
    const synced = await load([legOf('I1'), legOf('I2', 90)], 'sync', T0 + HOUR);
    expect(synced.written).toBe(1);
    const i1 = await item('I1');
    expect(instantsOf(i1)).toEqual({ firstSeenAt: T0, updatedAt: T0, confirmedAt: T0 });
    const registry = await createSourcesStore(t.client, t.legsTableName).read();
    expect(registry.lastSyncedAt?.get('acme')).toBe(T0 + HOUR);
    expect(confirmedAtOf(new IndexEntryReader().read(i1)!, registry.lastSyncedAt?.get('acme'))).toBe(T0 + HOUR);
    expect(instantsOf(await item('I2'))).toEqual({ firstSeenAt: T0, updatedAt: T0 + HOUR, confirmedAt: T0 + HOUR });

    // An upsert carrying I1 unchanged: its confirmed instant only moves, in the item and its entry.
    await load([legOf('I1')], 'upsert', T0 + 2 * HOUR);
    const again = await item('I1');
    expect(instantsOf(again)).toEqual({ firstSeenAt: T0, updatedAt: T0, confirmedAt: T0 + 2 * HOUR });
    expect(new IndexEntryReader().read(again)!.confirmedAt).toBe(T0 + 2 * HOUR);

    // A hand edit of the price: the consumer sets updatedAt (with the index attributes) in its one repair write.
    const drained = createStreamPoller({
      streams: createStreamsClient({ endpoint: t.endpoint }),
      client: t.client,
      tableName: t.legsTableName,
      handle: createChangeConsumerHandler({ store: createChangeLogStore(t.client, t.legsTableName), clock: fixedClock(T0 + 3 * HOUR), stage: 'sandbox', emit: () => undefined }),
      idleMs: 50,
    });
    await drained.drain();
    expect(instantsOf(await item('I1'))).toEqual({ firstSeenAt: T0, updatedAt: T0, confirmedAt: T0 + 2 * HOUR });
    await t.client.send(new UpdateCommand({ TableName: t.legsTableName, Key: { id: 'I2' }, UpdateExpression: 'SET price = :p', ExpressionAttributeValues: { ':p': 7 } }));
    await drained.drain();
    expect(instantsOf(await item('I2'))).toEqual({ firstSeenAt: T0, updatedAt: T0 + 3 * HOUR, confirmedAt: T0 + HOUR });
    await drained.stop();
  }, 60_000);
});
