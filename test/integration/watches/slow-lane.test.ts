// @dateIndependent: its deliveries are due at the process clock and timed with performance.now() (the receiver's arrival times)
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { ensureTables } from '../../../local/dynamodb-local.js';
import { startQueueWorker, type QueueWorker } from '../../../local/watches/queue-worker.js';
import { processClock } from '../../../src/clock.js';
import { createDeliveryHandler, type DeliveryDependencies, type DeliveryMessage } from '../../../src/watches/delivery.js';
import { SLOW_LANE_ANSWER_MS } from '../../../src/watches/lane/slow.js';
import { createTableQueue, type DeliveryLane, type DeliveryQueue, type QueuedMessage } from '../../../src/watches/queue.js';
import { generateSecret } from '../../../src/watches/resource.js';
import { getDelivery, putDelivery, type WatchTables } from '../../../src/watches/store.js';
import { putWatch } from '../../../src/watches/counted-writes.js';
import { systemResolver } from '../../../src/watches/target.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';

/**
 * The slow lane (docs/watches.md, "The slow lane"), through the local queue workers as under npm
 * start, to real HTTP receivers on 127.0.0.1: a receiver that answered slower than 2 s has its
 * next deliveries forwarded to the slow lane, so they never hold the shared lane, and another
 * watch's delivery queued behind them arrives before the slow receiver has answered any of them.
 * The shared lane's worker runs one batch at a time, so a slow batch it kept would hold it.
 */
jest.setTimeout(120_000);

const SLOW_MS = SLOW_LANE_ANSWER_MS + 500;
let t: TestTables;
const suffix = randomUUID().slice(0, 8);
const names = { watchesTableName: `watches-${suffix}`, deliveriesTableName: `deliveries-${suffix}`, localQueueTableName: `queue-${suffix}` };
let tables: WatchTables;
let shared: DeliveryQueue;
const workers: QueueWorker[] = [];
/** The delivery ids each lane's handler was given. */
const handled: Record<DeliveryLane, string[]> = { shared: [], slow: [] };
let slowReceiver: Receiver;
let fastReceiver: Receiver;
let n = 0;

function worker(lane: DeliveryLane, deps: Omit<DeliveryDependencies, 'tables' | 'targets' | 'resolver' | 'clock' | 'retryScheduleSeconds' | 'disableAfterSeconds'>): QueueWorker {
  const handler = createDeliveryHandler({ tables, targets: 'local', resolver: systemResolver, clock: processClock, retryScheduleSeconds: [1, 2, 5], disableAfterSeconds: 432_000, ...deps });
  return startQueueWorker({
    client: t.client,
    tableName: names.localQueueTableName,
    lane,
    concurrency: 1,
    clock: processClock,
    handler: (event: SQSEvent) => {
      for (const r of event.Records) handled[lane].push((JSON.parse(r.body) as DeliveryMessage).deliveryId);
      return handler(event);
    },
  });
}

beforeAll(async () => {
  t = await createTestTables();
  await ensureTables(t.client, { legsTableName: t.legsTableName, keysTableName: t.keysTableName, watches: names });
  tables = { client: t.client, watchesTableName: names.watchesTableName, deliveriesTableName: names.deliveriesTableName };
  shared = createTableQueue(t.client, names.localQueueTableName, processClock);
  const slow = createTableQueue(t.client, names.localQueueTableName, processClock, 'slow');
  workers.push(worker('shared', { queue: shared, slowLane: slow }), worker('slow', { queue: slow }));
  slowReceiver = await startReceiver();
  slowReceiver.respond = () => ({ status: 204, afterMs: SLOW_MS });
  fastReceiver = await startReceiver();
});
afterAll(async () => {
  await slowReceiver?.close();
  await fastReceiver?.close();
  await Promise.all(workers.map((w) => w.stop()));
  for (const TableName of Object.values(names)) await t.client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
  await t.drop();
});

async function watchOn(r: Receiver): Promise<string> {
  const watchId = `wat_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
  const secret = generateSecret();
  r.secrets.set(watchId, secret);
  const createdAt = new Date(processClock()).toISOString();
  await putWatch(tables, { clientId: 'cli_SLOWLANE0000000000', watchId, url: r.url(watchId), filters: {}, description: null, status: 'active', createdAt, secret, failingSince: null, disabledAt: null }, 100);
  return watchId;
}

/** One pending delivery of `watchId`: its message, its id and key. */
async function pendingDelivery(watchId: string): Promise<{ queued: QueuedMessage; deliveryId: string; deliveryKey: string }> {
  n++;
  const createdAt = new Date(processClock()).toISOString();
  const deliveryId = `msg_${suffix}${String(n).padStart(3, '0')}`;
  const deliveryKey = `${createdAt}#${deliveryId}`;
  const base = { watchId, deliveryKey, id: deliveryId, clientId: 'cli_SLOWLANE0000000000', type: 'empty_leg.listed', legId: `SLOW-${n}` };
  await putDelivery(tables, { ...base, status: 'pending', attempts: 0, responseCode: null, lastAttemptAt: null, nextAttemptAt: null, createdAt, ttl: 0 });
  const payload = JSON.stringify({ type: 'empty_leg.listed', timestamp: createdAt, data: { watchId, id: `SLOW-${n}`, leg: null } });
  const message: DeliveryMessage = { deliveryId, clientId: base.clientId, watchId, deliveryKey, payload, attempts: 0, dueAt: processClock() };
  return { queued: { body: JSON.stringify(message), delaySeconds: 0 }, deliveryId, deliveryKey };
}

async function slowUntilOf(watchId: string): Promise<unknown> {
  const out = await t.client.send(new GetCommand({ TableName: names.watchesTableName, Key: { clientId: 'cli_SLOWLANE0000000000', watchId }, ConsistentRead: true }));
  return out.Item?.slowUntil;
}

describe('the slow lane', () => {
  it("takes a slow receiver's deliveries off the shared lane after its first slow answer; a fast receiver's are not held behind them", async () => {
    const slowWatch = await watchOn(slowReceiver);
    const fastWatch = await watchOn(fastReceiver);

    // The first delivery is attempted in the shared lane: its answer, 2.5 s late, marks the watch slow.
    const first = await pendingDelivery(slowWatch);
    const markedFrom = processClock();
    await shared.send([first.queued]);
    expect(await slowReceiver.waitFor((r) => r.webhookId === first.deliveryId, 20_000)).toBeDefined();
    let slowUntil: unknown;
    for (let i = 0; i < 100 && slowUntil === undefined; i++) {
      slowUntil = await slowUntilOf(slowWatch);
      if (slowUntil === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    expect(typeof slowUntil).toBe('number');
    expect(slowUntil as number).toBeGreaterThan(markedFrom + 3_000_000);
    expect(await slowUntilOf(fastWatch)).toBeUndefined();

    // Five more of the slow watch, then one of the fast watch behind them.
    const later: Awaited<ReturnType<typeof pendingDelivery>>[] = [];
    for (let i = 0; i < 5; i++) later.push(await pendingDelivery(slowWatch));
    const fast = await pendingDelivery(fastWatch);
    await shared.send(later.map((d) => d.queued));
    // The shared lane has taken them before the fast watch's delivery is queued.
    for (let i = 0; i < 300 && !later.every((d) => handled.shared.includes(d.deliveryId)); i++) await new Promise((r) => setTimeout(r, 50));
    await shared.send([fast.queued]);

    const fastGot = await fastReceiver.waitFor((r) => r.webhookId === fast.deliveryId, 30_000);
    expect(fastGot).toBeDefined();
    const laterIds = new Set(later.map((d) => d.deliveryId));
    for (let i = 0; i < 5; i++) expect(await slowReceiver.waitFor((r) => r.webhookId === later[i]!.deliveryId, 60_000)).toBeDefined();
    const laterArrivals = slowReceiver.received.filter((r) => laterIds.has(r.webhookId)).map((r) => r.at);
    // Before the slow receiver answered the first of its later deliveries, the fast one had arrived.
    expect(fastGot!.at).toBeLessThan(Math.min(...laterArrivals) + SLOW_MS);

    // The slow watch's later deliveries were attempted in the slow lane, the fast one in the shared lane; all delivered once.
    expect(handled.slow.filter((id) => laterIds.has(id)).sort()).toEqual([...laterIds].sort());
    expect(handled.slow).not.toContain(fast.deliveryId);
    expect(handled.shared).toContain(fast.deliveryId);
    expect(handled.slow).not.toContain(first.deliveryId);
    for (const d of [first, ...later, fast]) {
      const watchId = d === fast ? fastWatch : slowWatch;
      for (let i = 0; i < 100 && (await getDelivery(tables, watchId, d.deliveryKey))?.status !== 'delivered'; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await getDelivery(tables, watchId, d.deliveryKey))?.status).toBe('delivered');
    }
    expect(slowReceiver.received.filter((r) => laterIds.has(r.webhookId) || r.webhookId === first.deliveryId)).toHaveLength(6);
    expect(slowReceiver.received.every((r) => r.verified)).toBe(true);
  });
});
