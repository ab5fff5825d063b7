// @dateIndependent: one injected clock (T0 and after) for the data, the functions and the signature check; standardwebhooks verified at that clock.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { Webhook } from 'standardwebhooks';
import { ensureTables } from '../../../local/dynamodb-local.js';
import { createStreamPoller, type StreamPoller } from '../../../local/stream-poller.js';
import { createStreamsClient } from '../../../src/aws/dynamodb-streams.js';
import { createChangeConsumerHandler } from '../../../src/changes/handlers.js';
import { createChangeLogStore } from '../../../src/changes/store.js';
import { atClockInstant, type Clock } from '../../../src/clock.js';
import { createKey } from '../../../src/api-keys/store.js';
import { AirportIndex } from '../../../src/airports/reference.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { parseInclude } from '../../../src/kernel/leg/blocks.js';
import { createLegsRepository, listEmptyLegs, parseListQuery } from '../../../src/listing/index.js';
import { createSourcesStore, sourceBlockFactsOf, sourceFactsOfRegistry, staleSourcesAt } from '../../../src/sources/index.js';
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
 * A watch of `group: "flight"` (docs/watches.md, "Flights"), on DynamoDB Local and its stream, on an
 * injected clock: the change consumer and the watches' matcher read the stream as `npm start` runs
 * them (the matcher reading the listing index for a flight's other offers), and a real receiver on
 * 127.0.0.1 gets the signed deliveries. A broker's copy of a flight arrives after the operator's: one
 * `listed`, then one `updated`; the operator's offer leaves: `updated`, the broker's best; the last
 * leaves: `withdrawn`. A watch of legs beside it keeps its events; a flight watch with `include` gets
 * the blocks of the flight's best offer, as the grouped listing's record carries them.
 */
jest.setTimeout(90_000);

const T0 = Date.parse('2026-11-25T10:00:00Z');
let now = T0;
const clock: Clock = () => now;
const suffix = randomUUID().slice(0, 8);
const names = { watchesTableName: `watches-${suffix}`, deliveriesTableName: `deliveries-${suffix}`, localQueueTableName: `queue-${suffix}` };
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
    onFailure: (_records, err) => failures.push(`matcher: ${(err as Error).stack}`),
    handle: createMatchHandler({
      match: createTransitionMatcher({
        tables,
        queue: { send: (messages) => Promise.resolve(void queued.push(...messages)) },
        airports: () => new AirportIndex([]),
        clock,
        activeClients,
        blockSources: sourceFactsOfRegistry(() => sources.read()),
        flights: { repository: createLegsRepository(t.client, t.legsTableName), registry: () => sources.read() },
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

interface Delivered {
  type: string;
  data: { id: string; reason?: string; leg: { id: string; offerCount?: number; offers?: { id: string; kind: string; source: string }[] } | null };
}

/** The queued deliveries, each attempted once against the real receiver (the delivery worker's code, at the clock). */
async function deliverQueued(secret: string, expected: number): Promise<Delivered[]> {
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
  return receiver.received.slice(before).map((r) => atClockInstant(clock, () => new Webhook(secret).verify(r.raw, r.headers)) as Delivered);
}

describe('a watch of group "flight"', () => {
  it('gets one listed, then one updated when a broker re-posts the flight; the operator leaving updates it, the last offer leaving withdraws it', async () => {
    const sources = createSourcesStore(t.client, t.legsTableName);
    await sources.set('acme-air', { kind: 'operator', verified: true }, { id: 'run-1', at: T0 });
    await sources.set('jet-broker', { kind: 'broker' }, { id: 'run-2', at: T0 });
    const key = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['watch:write'], now: T0 });
    const secret = generateSecret();
    const watch = (watchId: string, group?: 'flight', include?: string) =>
      putWatch(
        tables,
        { clientId: key.record.clientId!, watchId, url: receiver.url(watchId), filters: { depAirportCode: 'LFPB' }, ...(group === undefined ? {} : { group }), ...(include === undefined ? {} : { include }), description: null, status: 'active', createdAt: new Date(T0).toISOString(), secret, failingSince: null, disabledAt: null },
        100,
      );
    const FLIGHT = `wat_${'F'.repeat(20)}`;
    const LEGS = `wat_${'L'.repeat(20)}`;
    const BLOCKS = `wat_${'B'.repeat(20)}`;
    await watch(FLIGHT, 'flight');
    await watch(LEGS);
    await watch(BLOCKS, 'flight', 'provenance,departure,flight');
    const leg = (id: string, source: string, registration: string, price: number, listed = true) =>
      storedLeg({ id, startDate: '2026-11-27', endDate: '2026-11-28', depAirportIcao: 'LFPB', arrAirportIcao: 'LSGG', registration, price, currency: 'EUR', source, listed, depTimeFrom: '09:00' });
    const of = (got: Delivered[], watchId: string) =>
      got
        .filter((d) => (d.data as { watchId?: string }).watchId === watchId)
        .map((d) => [d.type, d.data.id, d.data.leg?.id ?? null, d.data.leg?.offers?.map((o) => `${o.id}:${o.kind}`) ?? null, d.data.reason ?? null]);

    // The operator posts the flight: the flight watch hears of it once, the leg watch too.
    now = T0 + 1_000;
    await writeLegs(t.client, t.legsTableName, [leg('OP-1', 'acme-air', 'F-HABC', 9_000)]);
    const first = await deliverQueued(secret, 3);
    expect(of(first, FLIGHT)).toEqual([['empty_leg.listed', 'OP-1', 'OP-1', ['OP-1:operator'], null]]);
    expect(of(first, LEGS)).toEqual([['empty_leg.listed', 'OP-1', 'OP-1', null, null]]);

    // A broker re-posts it cheaper (its registration spelled otherwise): one updated, the operator's still best.
    now += 1_000;
    await writeLegs(t.client, t.legsTableName, [leg('BR-1', 'jet-broker', 'fhabc', 8_000)]);
    const second = await deliverQueued(secret, 3);
    expect(of(second, FLIGHT)).toEqual([['empty_leg.updated', 'BR-1', 'OP-1', ['OP-1:operator', 'BR-1:broker'], null]]);
    expect(second.find((d) => (d.data as { watchId?: string }).watchId === FLIGHT)!.data.leg!.offerCount).toBe(2);
    expect(of(second, LEGS)).toEqual([['empty_leg.listed', 'BR-1', 'BR-1', null, null]]);
    // With include: the blocks of the operator's offer (the best, not the broker's copy that changed), as GET /open/v1/empty-legs?group=flight&include=... gives them.
    const grouped = async (include: string) => {
      const registry = await sources.read();
      const blockSources = () => Promise.resolve({ sourceFacts: (id: string) => sourceBlockFactsOf(registry, id), registryRead: registry });
      const page = await listEmptyLegs(parseListQuery({ group: 'flight' }), { repository: createLegsRepository(t.client, t.legsTableName), now: new Date(now), registry: () => Promise.resolve(registry), include: parseInclude(include)!, blockSources });
      return JSON.stringify(page.records.find((r) => r.id === 'OP-1'));
    };
    const blocked = second.find((d) => (d.data as { watchId?: string }).watchId === BLOCKS)!.data.leg as unknown as { provenance: { source: string; kind: string } };
    expect([blocked.provenance.source, blocked.provenance.kind]).toEqual(['acme-air', 'operator']);
    expect(JSON.stringify(blocked)).toBe(await grouped('provenance,departure,flight'));
    expect(JSON.stringify(second.find((d) => (d.data as { watchId?: string }).watchId === FLIGHT)!.data.leg)).toBe(await grouped(''));

    // The operator's offer leaves: the flight is updated, the broker's offer now its best.
    now += 1_000;
    await writeLegs(t.client, t.legsTableName, [leg('OP-1', 'acme-air', 'F-HABC', 9_000, false)]);
    const third = await deliverQueued(secret, 3);
    expect(of(third, FLIGHT)).toEqual([['empty_leg.updated', 'OP-1', 'BR-1', ['BR-1:broker'], null]]);
    expect(of(third, LEGS)).toEqual([['empty_leg.withdrawn', 'OP-1', null, null, 'unlisted']]);

    // The last offer leaves: withdrawn, with its reason.
    now += 1_000;
    await writeLegs(t.client, t.legsTableName, [leg('BR-1', 'jet-broker', 'fhabc', 8_000, false)]);
    const last = await deliverQueued(secret, 3);
    expect(of(last, FLIGHT)).toEqual([['empty_leg.withdrawn', 'BR-1', null, null, 'unlisted']]);
  });
});
