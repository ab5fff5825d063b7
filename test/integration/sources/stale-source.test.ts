// @dateIndependent: one injected clock (T0 and after) for the data, the functions and the signature check; standardwebhooks verified at that clock.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Clock } from '../../../src/clock.js';
import { readChanges } from '../../../src/changes/feed.js';
import { decodeCursor } from '../../../src/changes/cursor.js';
import { createChangeLogStore } from '../../../src/changes/store.js';
import { createKey } from '../../../src/api-keys/store.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { stampedLeg } from '../../../src/loading/sync-plan.js';
import { createListRepository } from '../../../src/listing/list-handler.js';
import { listedIdsOfSource, listEmptyLegs, parseListQuery } from '../../../src/listing/index.js';
import { getEmptyLeg } from '../../../src/leg-by-id/get-leg.js';
import { createLegReader } from '../../../src/leg-by-id/store.js';
import { createSourcesStore, sourceBlockFactsOf, sourceFactsOfRegistry, staleSourceIds } from '../../../src/sources/index.js';
import { parseInclude } from '../../../src/kernel/leg/blocks.js';
import { createSweepStore, sweepListing } from '../../../src/sweep/index.js';
import type { StreamPoller } from '../../../local/stream-poller.js';
import { generateSecret } from '../../../src/watches/resource.js';
import { putWatch } from '../../../src/watches/counted-writes.js';
import type { WatchTables } from '../../../src/watches/store.js';
import type { TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';
import type { Receiver } from '../../support/webhook-receiver.js';
import { startWatchPipeline, type WatchPipeline } from '../../support/watch-pipeline.js';

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
const CURSOR_KEY = 'cursor-key-of-the-tests-0123456789abcdef';
let pipeline: WatchPipeline;
let t: TestTables;
let tables: WatchTables;
let consumer: StreamPoller;
let receiver: Receiver;
let clientId: string;
/** The secret of every watch of the file. */
const secret = generateSecret();

beforeAll(async () => {
  pipeline = await startWatchPipeline(clock, ({ client, legsTableName }) => ({ blockSources: sourceFactsOfRegistry(() => createSourcesStore(client, legsTableName).read()) }));
  ({ t, tables, consumer, receiver } = pipeline);
});

afterAll(() => pipeline?.stop());

/** The queued deliveries, each attempted once against the real receiver (the delivery worker's code, at the clock). */
type Event = { type: string; data: { watchId: string; id: string; reason?: string; leg: unknown } };
const deliverQueued = (expected: number) => pipeline.deliverQueued<Event>(secret, expected);

describe('a stale source', () => {
  const registryStore = () => createSourcesStore(t.client, t.legsTableName);
  const listRepository = () => createListRepository(t.client, { legsTableName: t.legsTableName, listingCacheTtlSeconds: 0 });
  const told = async () => {
    const state = await createSweepStore(t.client, t.legsTableName).state();
    return (source: string) => state?.stale.has(source) === true;
  };
  const feedDependencies = () => ({ store: createChangeLogStore(t.client, t.legsTableName), clock, cursorKey: CURSOR_KEY, staleSources: told });
  const sweep = () =>
    sweepListing({ store: createSweepStore(t.client, t.legsTableName), registry: () => registryStore().read(), legsOfSource: (s, at) => listedIdsOfSource(listRepository(), at, s), now });
  /** The listing's records at the clock (with the blocks `include` asks for). */
  const records = async (include = '') => {
    const registry = await registryStore().read();
    const blockSources = () => Promise.resolve({ sourceFacts: (id: string) => sourceBlockFactsOf(registry, id), registryRead: registry });
    const page = await listEmptyLegs(parseListQuery({}), { repository: listRepository(), now: new Date(now), staleSources: staleSourceIds(registry, now), include: parseInclude(include)!, blockSources });
    return page.records;
  };
  const listed = async () => (await records()).map((r) => r.id);
  /** The feed's changes after the cursor `from` (undefined: a first read), and its next cursor. */
  const feedAfter = async (from: string | undefined) => {
    const page = await readChanges({ after: from === undefined ? undefined : decodeCursor(from, CURSOR_KEY), size: 100 }, feedDependencies());
    return { changes: page.changes.map((c) => [c.type, c.id, c.reason]), cursor: page.cursor };
  };
  let cursor: string;

  it('leaves the listing, the by-id route, the feed and the watches, and comes back with its next load', async () => {
    const sources = createSourcesStore(t.client, t.legsTableName);
    const feedDeps = { store: createChangeLogStore(t.client, t.legsTableName), clock, cursorKey: CURSOR_KEY, staleSources: told };
    const byId = (id: string) => getEmptyLeg(id, { readLeg: createLegReader(t.client, t.legsTableName), now: () => new Date(now), registry: () => sources.read() }).then((l) => l.id, () => 'NOT_FOUND');

    // A watch of everything, its client with a key; the source with a bound of 1 minute, loaded at T0.
    const key = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['watch:write'], now: T0 });
    clientId = key.record.clientId!;
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
    expect((await deliverQueued(2)).map((e) => [e.type, e.data.id]).sort()).toEqual([
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
    const gone = await deliverQueued(1);
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
    const back = await deliverQueued(1);
    const third = await readChanges({ after: decodeCursor(second.cursor, CURSOR_KEY), size: 100 }, feedDeps);
    expect(third.changes.map((c) => [c.type, c.id])).toEqual([['listed', 'ACME-1']]);
    expect(back.map((e) => [e.type, e.data.id, e.data.reason])).toEqual([['empty_leg.listed', 'ACME-1', undefined]]);
    cursor = third.cursor;
  });

  it('lists, when its source comes back, a leg its load wrote while the source was still stale', async () => {
    const store = registryStore();
    // From here on acme is never stale; beta, bound to 1 minute and never loaded, is stale 2 minutes on.
    await store.set('acme', { staleAfterMinutes: null }, { id: 'run-2', at: now });
    await store.set('beta', { staleAfterMinutes: 1 }, { id: 'run-3', at: now });
    now += 2 * 60_000;
    expect((await sweep()).staleSources).toEqual(['beta']);
    // Its next load writes a new leg (as legs:load stamps it) before it records the load: the consumer sees the leg stale.
    await writeLegs(t.client, t.legsTableName, [stampedLeg(storedLeg({ id: 'BETA-1', startDate: '2026-11-27', endDate: '2026-11-28', source: 'beta' }), undefined, now)]);
    await consumer.drain();
    const during = await feedAfter(cursor);
    expect(during.changes).toEqual([]);
    await store.recordLoads(['beta'], now);
    expect(await listed()).toEqual(['ACME-1', 'OTHER-1', 'BETA-1']);
    now += 1_000;
    expect((await sweep()).sources).toEqual([{ source: 'beta', stale: false, touched: 1, done: true }]);
    expect((await deliverQueued(1)).map((e) => [e.type, e.data.id])).toEqual([['empty_leg.listed', 'BETA-1']]);
    const back = await feedAfter(during.cursor);
    expect(back.changes).toEqual([['listed', 'BETA-1', undefined]]);
    cursor = back.cursor;
  });

  it('delivers to a watch with include the blocks the listing gives the same leg, and none to a watch without', async () => {
    const store = registryStore();
    const watchId = `wat_${'I'.repeat(20)}`;
    const createdAt = new Date(now).toISOString();
    await putWatch(tables, { clientId, watchId, url: receiver.url('include'), filters: { source: 'gamma' }, include: 'departure,provenance', description: null, status: 'active', createdAt, secret, failingSince: null, disabledAt: null }, 100);
    await store.set('gamma', { name: 'Gamma Jets', kind: 'operator', verified: true }, { id: 'run-4', at: now });
    await store.recordLoads(['gamma'], now);
    const leg = storedLeg({ id: 'GAMMA-1', startDate: '2026-11-27', endDate: '2026-11-28', source: 'gamma', depTimezone: 'Europe/Paris', depTimeFrom: '09:30', depTimeTo: '18:00' });
    await writeLegs(t.client, t.legsTableName, [stampedLeg(leg, undefined, now)]);
    const events = await deliverQueued(2);
    const legOf = (watch: string) => JSON.stringify(events.find((e) => e.data.watchId === watch && e.data.id === 'GAMMA-1')?.data.leg);
    const listedAs = async (include: string) => JSON.stringify((await records(include)).find((r) => r.id === 'GAMMA-1'));
    expect(events.map((e) => [e.type, e.data.watchId]).sort()).toEqual([['empty_leg.listed', watchId], ['empty_leg.listed', `wat_${'S'.repeat(20)}`]].sort());
    expect(legOf(watchId)).toBe(await listedAs('provenance,departure'));
    expect(legOf(`wat_${'S'.repeat(20)}`)).toBe(await listedAs(''));
    expect(JSON.parse(legOf(watchId))).toMatchObject({
      provenance: { source: 'gamma', sourceName: 'Gamma Jets', kind: 'operator', verified: true, confirmedAt: new Date(Math.floor(now / 1000) * 1000).toISOString() },
      departure: { earliestLocal: '2026-11-27T09:30', latestLocal: '2026-11-28T18:00', earliestUtc: '2026-11-27T08:30:00.000Z', latestUtc: '2026-11-28T17:00:00.000Z' },
    });
  });
});
