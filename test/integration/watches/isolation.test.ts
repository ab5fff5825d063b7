import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '../../../local/dynamodb-local.js';
import { AirportIndex } from '../../../src/airports/reference.js';
import type { ListingTransition } from '../../../src/changes/index.js';
import { batchPut } from '../../../src/aws/batch-write.js';
import { fixedClock } from '../../../src/clock.js';
import { createKey, revokeKey } from '../../../src/api-keys/store.js';
import { logger } from '../../../src/logger.js';
import { processDelivery, type DeliveryMessage } from '../../../src/watches/delivery.js';
import { createActiveClients } from '../../../src/watches/match/active-clients.js';
import { createTransitionMatcher } from '../../../src/watches/match/transitions.js';
import type { QueuedMessage } from '../../../src/watches/queue.js';
import { generateSecret } from '../../../src/watches/resource.js';
import { countWatches, getDelivery, listWatches, WatchLimitReached, type WatchRecord, type WatchTables } from '../../../src/watches/store.js';
import { deleteWatch, putWatch } from '../../../src/watches/counted-writes.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';

/**
 * One client cannot hurt the others (docs/watches.md): the watch limit holds under concurrent
 * creations, a client without a key gets no push and gets them again with a new key, and a
 * malformed item written by hand is skipped, logged with its key and counted, on DynamoDB Local.
 */
jest.setTimeout(60_000);

let t: TestTables;
const suffix = randomUUID().slice(0, 8);
const names = { watchesTableName: `watches-${suffix}`, deliveriesTableName: `deliveries-${suffix}`, localQueueTableName: `queue-${suffix}` };
let tables: WatchTables;
const T0 = Date.parse('2026-11-21T12:00:00Z');
const clock = fixedClock(T0);
const airports = () => new AirportIndex([]);

beforeAll(async () => {
  t = await createTestTables();
  await ensureTables(t.client, { legsTableName: t.legsTableName, keysTableName: t.keysTableName, watches: names });
  tables = { client: t.client, watchesTableName: names.watchesTableName, deliveriesTableName: names.deliveriesTableName };
});
afterAll(async () => {
  for (const TableName of Object.values(names)) await t.client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
  await t.drop();
});

let n = 0;
function watch(clientId: string, over: Partial<WatchRecord> = {}): WatchRecord {
  n++;
  return {
    clientId,
    watchId: `wat_${String(n).padStart(20, '0')}`,
    url: 'https://hooks.example.com/in',
    filters: {},
    description: null,
    status: 'active',
    createdAt: new Date(T0).toISOString(),
    secret: generateSecret(),
    failingSince: null,
    disabledAt: null,
    ...over,
  };
}

let changes = 0;
function listed(id: string): ListingTransition {
  const { listed: _l, blocked: _b, depTimezone: _z, source: _s, ...leg } = storedLeg({ id, startDate: '2026-11-25', endDate: '2026-11-26' });
  return { id, changedAt: new Date(T0).toISOString(), changeId: String(1000 + ++changes), before: null, after: leg };
}

function matcherWith(sent: QueuedMessage[]) {
  return createTransitionMatcher({
    tables,
    queue: { send: (messages) => Promise.resolve(void sent.push(...messages)) },
    airports,
    clock,
    activeClients: createActiveClients({ client: t.client, keysTableName: t.keysTableName, clock, intervalMs: 0 }),
  });
}

const clientsOf = (sent: QueuedMessage[]) => new Set(sent.map((m) => (JSON.parse(m.body) as DeliveryMessage).clientId));

describe('the watch limit under concurrency', () => {
  it('80 concurrent creations from 90 watches leave exactly 100', async () => {
    const clientId = 'cli_LIMITLIMITLIMITLIMI';
    // 90 written before counts existed: the first creation counts them.
    const existing = Array.from({ length: 90 }, () => watch(clientId));
    await batchPut(t.client, names.watchesTableName, existing as unknown as Record<string, unknown>[], { concurrency: 4, attempts: 8 });
    const results = await Promise.allSettled(Array.from({ length: 80 }, () => putWatch(tables, watch(clientId), 100)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(WatchLimitReached);
    expect(await countWatches(tables, clientId)).toBe(100);
    // A deletion makes room for exactly one more.
    const [victim] = await listWatches(tables, clientId);
    expect(await deleteWatch(tables, clientId, victim!.watchId)).toBe(true);
    await putWatch(tables, watch(clientId), 100);
    await expect(putWatch(tables, watch(clientId), 100)).rejects.toBeInstanceOf(WatchLimitReached);
    expect(await countWatches(tables, clientId)).toBe(100);
  });
});

describe('a client without a key', () => {
  it('gets no delivery while it has none, its pending ones are dropped, and it gets them again with a new key', async () => {
    const a = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['watch:write'], now: T0 });
    const b = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['watch:write'], now: T0 });
    const [clientA, clientB] = [a.record.clientId!, b.record.clientId!];
    await putWatch(tables, watch(clientA), 100);
    await putWatch(tables, watch(clientB), 100);
    const sent: QueuedMessage[] = [];
    const match = matcherWith(sent);
    await match([listed('REVOKE-1')]);
    expect(clientsOf(sent)).toEqual(new Set([clientA, clientB]));

    // B's key is revoked: B's next change makes nothing, and B's delivery still queued is dropped.
    await revokeKey(t.client, t.keysTableName, b.record.keyId, { now: T0 });
    const pending = sent.map((m) => JSON.parse(m.body) as DeliveryMessage).find((m) => m.clientId === clientB)!;
    sent.length = 0;
    const result = await match([listed('REVOKE-2')]);
    expect(clientsOf(sent)).toEqual(new Set([clientA]));
    expect(result.withoutKey).toBeGreaterThanOrEqual(1);
    const posted: string[] = [];
    const outcome = await processDelivery(pending, {
      tables,
      queue: { send: () => Promise.resolve() },
      targets: 'public',
      resolver: () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]),
      clock,
      retryScheduleSeconds: [1],
      disableAfterSeconds: 3600,
      post: (url) => {
        posted.push(url.href);
        return Promise.resolve({ status: 204 });
      },
      activeClients: createActiveClients({ client: t.client, keysTableName: t.keysTableName, clock, intervalMs: 0 }),
    });
    expect(outcome).toBe('dropped');
    expect(posted).toEqual([]);
    expect(await getDelivery(tables, pending.watchId, pending.deliveryKey)).toMatchObject({ status: 'dropped' });

    // A new key for B: its watches get pushes again.
    await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['watch:write'], clientId: clientB, now: T0 });
    sent.length = 0;
    await match([listed('REVOKE-3')]);
    expect(clientsOf(sent)).toEqual(new Set([clientA, clientB]));
  });
});

describe('a malformed item written by hand', () => {
  it('is logged with its key and counted; every other watch is matched', async () => {
    const key = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['watch:write'], now: T0 });
    const good = watch(key.record.clientId!, { filters: { depAirportCode: 'KXXA' } });
    await putWatch(tables, good, 100);
    const bad = watch(key.record.clientId!, { filters: { depAirportCode: 'KXXA' } });
    await t.client.send(new PutCommand({ TableName: names.watchesTableName, Item: { ...bad, status: 'paused' } }));
    const errors = jest.spyOn(logger, 'error');
    // This client's deliveries (the other tests' watches have no filters).
    const mine = (sent: QueuedMessage[]) => sent.map((m) => JSON.parse(m.body) as DeliveryMessage).filter((m) => m.clientId === good.clientId).map((m) => m.watchId);
    try {
      const sent: QueuedMessage[] = [];
      const transition = { ...listed('BAD-1'), after: { ...listed('BAD-1').after!, depAirportIcao: 'KXXA' } };
      const result = await matcherWith(sent)([transition]);
      expect(mine(sent)).toEqual([good.watchId]);
      expect(result.malformed).toBe(1);
      expect(errors).toHaveBeenCalledWith('malformed watch item skipped', expect.objectContaining({ clientId: bad.clientId, watchId: bad.watchId }));

      // A delivery item spoiled by hand: left as it is, logged and counted; the others are made.
      const made = sent.map((m) => JSON.parse(m.body) as DeliveryMessage).find((m) => m.watchId === good.watchId)!;
      await t.client.send(new PutCommand({ TableName: names.deliveriesTableName, Item: { watchId: made.watchId, deliveryKey: made.deliveryKey, status: 'paused' } }));
      const other = watch(key.record.clientId!, { filters: { depAirportCode: 'KXXA' } });
      await putWatch(tables, other, 100);
      const again: QueuedMessage[] = [];
      const second = await matcherWith(again)([transition]);
      expect(mine(again)).toEqual([other.watchId]);
      expect(second.malformed).toBe(2);
      expect(errors).toHaveBeenCalledWith('malformed delivery item left as it is', expect.objectContaining({ watchId: made.watchId, deliveryKey: made.deliveryKey }));
    } finally {
      errors.mockRestore();
    }
  });
});
