// @dateIndependent: one injected clock (T0 and after) for the data, the functions and the signature check; standardwebhooks verified at that clock.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Clock } from '../../../src/clock.js';
import { createKey } from '../../../src/api-keys/store.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { parseInclude } from '../../../src/kernel/leg/blocks.js';
import { createLegsRepository, listEmptyLegs, parseListQuery } from '../../../src/listing/index.js';
import { createSourcesStore, sourceBlockFactsOf, sourceFactsOfRegistry } from '../../../src/sources/index.js';
import { generateSecret } from '../../../src/watches/resource.js';
import { putWatch } from '../../../src/watches/counted-writes.js';
import type { WatchTables } from '../../../src/watches/store.js';
import type { TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';
import type { Receiver } from '../../support/webhook-receiver.js';
import { startWatchPipeline, type WatchPipeline } from '../../support/watch-pipeline.js';

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
let pipeline: WatchPipeline;
let t: TestTables;
let tables: WatchTables;
let receiver: Receiver;

beforeAll(async () => {
  pipeline = await startWatchPipeline(clock, ({ client, legsTableName }) => {
    const sources = createSourcesStore(client, legsTableName);
    return {
      blockSources: sourceFactsOfRegistry(() => sources.read()),
      flights: { repository: createLegsRepository(client, legsTableName), registry: () => sources.read() },
    };
  });
  ({ t, tables, receiver } = pipeline);
});

afterAll(() => pipeline?.stop());

interface Delivered {
  type: string;
  data: { id: string; reason?: string; leg: { id: string; offerCount?: number; offers?: { id: string; kind: string; source: string }[] } | null };
}

/** The queued deliveries, each attempted once against the real receiver, verified with `secret`. */
const deliverQueued = (secret: string, expected: number) => pipeline.deliverQueued<Delivered>(secret, expected);

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
