import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createStreamsClient } from '../../../src/aws/dynamodb-streams.js';
import { createChangeConsumerHandler } from '../../../src/changes/handlers.js';
import { parseChangesQuery, readChanges } from '../../../src/changes/feed.js';
import { createChangeLogStore } from '../../../src/changes/store.js';
import { fixedClock } from '../../../src/clock.js';
import { loadFeed } from '../../../src/loading/feed-load.js';
import { cachedRegistry, createSourcesStore, sourceFactsOfRegistry } from '../../../src/sources/index.js';
import { createStreamPoller } from '../../../local/stream-poller.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';

/**
 * `include` on the change feed, on DynamoDB Local: the first listing and the log's entries carry the
 * blocks from what the log kept of the leg's item at the change; without it, the feed is as before.
 */
const T0 = Date.parse('2027-03-20T08:00:00Z');
const NOW = T0 + 3_600_000;
const KEY = 'k'.repeat(43);
const leg = { ...storedLeg({ id: 'F1', startDate: '2027-03-27', endDate: '2027-03-28', depTimezone: 'Europe/London', price: 100, currency: 'EUR' }), source: 'acme', depTimeTo: '14:00' };

let t: TestTables;
beforeAll(async () => {
  t = await createTestTables();
});
afterAll(async () => {
  await t.drop();
});

describe('include on the change feed', () => {
  it('gives provenance and departure on the first listing and on the entries, and nothing more without it', async () => {
    const store = createChangeLogStore(t.client, t.legsTableName);
    const poller = createStreamPoller({
      streams: createStreamsClient({ endpoint: t.endpoint }),
      client: t.client,
      tableName: t.legsTableName,
      handle: createChangeConsumerHandler({ store, clock: fixedClock(NOW), stage: 'sandbox', emit: () => undefined }),
      idleMs: 50,
    });
    await loadFeed(t.client, t.legsTableName, { legs: [leg], mode: 'upsert', now: new Date(T0) });
    await createSourcesStore(t.client, t.legsTableName).set('acme', { name: 'Acme Jets', kind: 'broker' }, { id: 'run-1', at: T0 });
    await poller.drain();
    const deps = { store, clock: () => NOW, cursorKey: KEY, sourceFacts: sourceFactsOfRegistry(cachedRegistry(createSourcesStore(t.client, t.legsTableName), { clock: () => NOW })) };

    const first = await readChanges(parseChangesQuery({ include: 'provenance,departure' }, KEY), deps);
    expect(first.changes).toHaveLength(1);
    expect(first.changes[0]!.leg).toMatchObject({
      id: 'F1',
      provenance: { source: 'acme', sourceName: 'Acme Jets', kind: 'broker', verified: false, firstSeenAt: new Date(T0).toISOString(), confirmedAt: new Date(T0).toISOString() },
      departure: { earliestLocal: null, latestLocal: '2027-03-28T14:00', earliestUtc: null, latestUtc: '2027-03-28T13:00:00.000Z' },
    });
    const plain = await readChanges(parseChangesQuery({}, KEY), deps);
    expect(Object.keys(plain.changes[0]!)).toEqual(['type', 'id', 'changedAt', 'leg']);
    expect(Object.keys(plain.changes[0]!.leg!)).not.toContain('provenance');

    // A hand edit: the entry keeps the instants the consumer gave it.
    await t.client.send(new UpdateCommand({ TableName: t.legsTableName, Key: { id: 'F1' }, UpdateExpression: 'SET price = :p', ExpressionAttributeValues: { ':p': 90 } }));
    await poller.drain();
    const next = await readChanges(parseChangesQuery({ after: first.cursor, include: 'provenance' }, KEY), deps);
    const updated = next.changes.find((c) => c.type === 'updated')!;
    expect(updated.leg).toMatchObject({ price: 90, provenance: { updatedAt: new Date(NOW).toISOString(), firstSeenAt: new Date(T0).toISOString() } });
    expect(Object.keys(updated.leg!)).not.toContain('departure');
    expect(() => parseChangesQuery({ include: 'reason' }, KEY)).toThrow(/'include'/);
    await poller.stop();
  }, 60_000);
});
