// @dateIndependent: one injected clock (T0 and after) for the data, the functions and the signature check; standardwebhooks verified at that clock.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { Webhook } from 'standardwebhooks';
import { ensureTables } from '../../../local/dynamodb-local.js';
import { createStreamPoller, type StreamPoller } from '../../../local/stream-poller.js';
import { createStreamsClient } from '../../../src/aws/dynamodb-streams.js';
import { createChangeConsumerHandler } from '../../../src/changes/handlers.js';
import { readChanges } from '../../../src/changes/feed.js';
import { decodeCursor } from '../../../src/changes/cursor.js';
import { createChangeLogStore } from '../../../src/changes/store.js';
import { atClockInstant, type Clock } from '../../../src/clock.js';
import { createKey } from '../../../src/api-keys/store.js';
import { AirportIndex } from '../../../src/airports/reference.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { createListRepository } from '../../../src/listing/list-handler.js';
import { listedIdsOfSource, listEmptyLegs, parseListQuery } from '../../../src/listing/index.js';
import { getEmptyLeg } from '../../../src/leg-by-id/get-leg.js';
import { createLegReader } from '../../../src/leg-by-id/store.js';
import { createSourcesStore, staleSourceIds, staleSourcesAt } from '../../../src/sources/index.js';
import { createSweepStore, sweepListing } from '../../../src/sweep/index.js';
import { processDelivery, type DeliveryMessage } from '../../../src/watches/delivery.js';
import { createActiveClients } from '../../../src/watches/match/active-clients.js';
import { createMatchHandler } from '../../../src/watches/match/handler.js';
import { createTransitionMatcher } from '../../../src/watches/match/transitions.js';
import type { QueuedMessage } from '../../../src/watches/queue.js';
import { generateSecret } from '../../../src/watches/resource.js';
import { putWatch } from '../../../src/watches/counted-writes.js';
import type { WatchTables } from '../../../src/watches/store.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';

/**
 * A source goes stale and comes back (docs/sources.md, "Stale sources"), on DynamoDB Local and its
 * stream, on an injected clock: the change consumer and the watches' matcher read the stream as
 * `npm start` runs them, the sweep runs when the test says, and a real receiver on 127.0.0.1 gets
 * the signed deliveries. The feed and the receiver see `withdrawn`/`stale`, then `listed`.
 */
jest.setTimeout(90_000);

const T0 = Date.parse('2026-11-25T10:00:00Z');
let now = T0;
const clock: Clock = () => now;
const suffix = randomUUID().slice(0, 8);
const names = { watchesTableName: `watches-${suffix}`, deliveriesTableName: `deliveries-${suffix}`, localQueueTableName: `queue-${suffix}` };
const CURSOR_KEY = 'cursor-key-of-the-tests-0123456789abcdef';
let t: TestTables;
let tables: WatchTables;
let consumer: StreamPoller;
let matcher: StreamPoller;
let receiver: Receiver;
const queued: QueuedMessage[] = [];
const failures: string[] = [];

beforeAll(async () => {
  t = await createTestTables();
  await ensureTables(t.client, { legsTableName: t.legsTableName, keysTableName: t.keysTableName, watches: names });
  tables = { client: t.client, watchesTableName: names.watchesTableName, deliveriesTableName: names.deliveriesTableName };
  receiver = await startReceiver();
  const sources = createSourcesStore(t.client, t.legsTableName);
  const streams = () => createStreamsClient({ endpoint: t.endpoint });
  consumer = createStreamPoller({
    streams: streams(),
    client: t.client,
    tableName: t.legsTableName,
    idleMs: 50,
    onFailure: (_records, err) => failures.push(`consumer: ${(err as Error).stack}`),
    handle: createChangeConsumerHandler({
      store: createChangeLogStore(t.client, t.legsTableName),
      clock,
      stage: 'sandbox',
      emit: () => undefined,
      staleSources: async (at) => staleSourcesAt(await sources.read(), at),
    }),
  });
  const activeClients = createActiveClients({ client: t.client, keysTableName: t.keysTableName, clock, intervalMs: 0 });
  matcher = createStreamPoller({
    streams: streams(),
    client: t.client,
    tableName: t.legsTableName,
    idleMs: 50,
    onFailure: (_records, err) => failures.push(`matcher: ${String(err)}`),
    handle: createMatchHandler({
      match: createTransitionMatcher({
        tables,
        queue: { send: (messages) => Promise.resolve(void queued.push(...messages)) },
        airports: () => new AirportIndex([]),
        clock,
        activeClients,
      }),
      clock,
      stage: 'sandbox',
      emit: () => undefined,
    }),
  });
  consumer.start();
  matcher.start();
});

afterAll(async () => {
  await Promise.all([consumer?.stop(), matcher?.stop(), receiver?.close()]);
  for (const TableName of Object.values(names)) await t.client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
  await t.drop();
});

/** The queued deliveries, each attempted once against the real receiver (the delivery worker's code, at the clock). */
async function deliverQueued(secret: string, expected: number): Promise<{ type: string; data: { id: string; reason?: string; leg: unknown } }[]> {
  // The stream shows a record a moment after its write: both readers are drained until the deliveries expected are queued (or 10 s).
  for (let waited = 0; ; waited += 100) {
    await consumer.drain();
    await matcher.drain();
    if (queued.length >= expected || waited >= 10_000) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(failures).toEqual([]);
  const messages = queued.splice(0).map((m) => JSON.parse(m.body) as DeliveryMessage);
  const before = receiver.received.length;
  for (const message of messages) {
    await processDelivery(message, {
      tables,
      queue: { send: () => Promise.resolve() },
      targets: 'local',
      resolver: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
      clock,
      retryScheduleSeconds: [5],
      disableAfterSeconds: 86_400,
      activeClients: createActiveClients({ client: t.client, keysTableName: t.keysTableName, clock, intervalMs: 0 }),
    });
  }
  return receiver.received.slice(before).map((r) => atClockInstant(clock, () => new Webhook(secret).verify(r.raw, r.headers)) as { type: string; data: { id: string; reason?: string; leg: unknown } });
}

describe('a stale source', () => {
  it('leaves the listing, the by-id route, the feed and the watches, and comes back with its next load', async () => {
    const sources = createSourcesStore(t.client, t.legsTableName);
    const log = createChangeLogStore(t.client, t.legsTableName);
    const repository = createListRepository(t.client, { legsTableName: t.legsTableName, listingCacheTtlSeconds: 0 });
    const told = async () => {
      const state = await createSweepStore(t.client, t.legsTableName).state();
      return (source: string) => state?.stale.has(source) === true;
    };
    const feedDeps = { store: log, clock, cursorKey: CURSOR_KEY, staleSources: told };
    const sweep = () =>
      sweepListing({ store: createSweepStore(t.client, t.legsTableName), registry: () => sources.read(), legsOfSource: (s, at) => listedIdsOfSource(repository, at, s), now });
    const listed = async () => {
      const page = await listEmptyLegs(parseListQuery({}), { repository, now: new Date(now), staleSources: staleSourceIds(await sources.read(), now) });
      return page.records.map((r) => r.id);
    };
    const byId = (id: string) => getEmptyLeg(id, { readLeg: createLegReader(t.client, t.legsTableName), now: () => new Date(now), registry: () => sources.read() }).then((l) => l.id, () => 'NOT_FOUND');

    // A watch of everything, its client with a key; the source with a bound of 1 minute, loaded at T0.
    const key = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['watch:write'], now: T0 });
    const secret = generateSecret();
    const watchId = `wat_${'S'.repeat(20)}`;
    await putWatch(
      tables,
      { clientId: key.record.clientId!, watchId, url: receiver.url('stale'), filters: {}, description: null, status: 'active', createdAt: new Date(T0).toISOString(), secret, failingSince: null, disabledAt: null },
      100,
    );
    await sources.set('acme', { staleAfterMinutes: 1 }, { id: 'run-1', at: T0 });
    await writeLegs(t.client, t.legsTableName, [
      storedLeg({ id: 'ACME-1', startDate: '2026-11-26', endDate: '2026-11-27', source: 'acme' }),
      storedLeg({ id: 'OTHER-1', startDate: '2026-11-26', endDate: '2026-11-27', source: 'other' }),
    ]);
    await sources.recordLoads(['acme', 'other'], T0);
    await sweep();
    await consumer.drain();
    const first = await readChanges({ after: undefined, size: 100 }, feedDeps);
    expect(first.changes.map((c) => [c.type, c.id]).sort()).toEqual([
      ['listed', 'ACME-1'],
      ['listed', 'OTHER-1'],
    ]);
    expect((await deliverQueued(secret, 2)).map((e) => [e.type, e.data.id]).sort()).toEqual([
      ['empty_leg.listed', 'ACME-1'],
      ['empty_leg.listed', 'OTHER-1'],
    ]);
    expect(await listed()).toEqual(['ACME-1', 'OTHER-1']);

    // Two minutes on, nothing loaded: stale. The listing and the by-id route at once, the feed and the watch after the sweep.
    now = T0 + 2 * 60_000;
    expect(await listed()).toEqual(['OTHER-1']);
    expect(await byId('ACME-1')).toBe('NOT_FOUND');
    expect(await byId('OTHER-1')).toBe('OTHER-1');
    expect((await sweep()).sources).toEqual([{ source: 'acme', stale: true, touched: 1, done: true }]);
    const gone = await deliverQueued(secret, 1);
    expect(gone.map((e) => [e.type, e.data.id, e.data.reason, e.data.leg])).toEqual([['empty_leg.withdrawn', 'ACME-1', 'stale', null]]);
    const second = await readChanges({ after: decodeCursor(first.cursor, CURSOR_KEY), size: 100 }, feedDeps);
    expect(second.changes.map((c) => [c.type, c.id, c.reason])).toEqual([['withdrawn', 'ACME-1', 'stale']]);
    // A run later with nothing new touches nothing.
    now += 60_000;
    expect((await sweep()).sources).toEqual([]);

    // Its next load (a sync that carries the leg unchanged writes nothing of it): back everywhere.
    await sources.recordLoads(['acme'], now);
    expect(await listed()).toEqual(['ACME-1', 'OTHER-1']);
    expect(await byId('ACME-1')).toBe('ACME-1');
    now += 1_000;
    expect((await sweep()).sources).toEqual([{ source: 'acme', stale: false, touched: 1, done: true }]);
    const back = await deliverQueued(secret, 1);
    const third = await readChanges({ after: decodeCursor(second.cursor, CURSOR_KEY), size: 100 }, feedDeps);
    expect(third.changes.map((c) => [c.type, c.id])).toEqual([['listed', 'ACME-1']]);
    expect(back.map((e) => [e.type, e.data.id, e.data.reason])).toEqual([['empty_leg.listed', 'ACME-1', undefined]]);
  });
});
