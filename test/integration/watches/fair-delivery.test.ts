// @dateIndependent: its deliveries are due at the tests' clock and timed with performance.now(); the price test's legs fly from tomorrow at that clock
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { ensureTables } from '../../../local/dynamodb-local.js';
import { startQueueWorker, type QueueWorker } from '../../../local/watches/queue-worker.js';
import { processClock } from '../../../src/clock.js';
import { AirportIndex } from '../../../src/airports/reference.js';
import { addDays, utcDate } from '../../../src/kernel/dates.js';
import { listedRecord } from '../../../src/kernel/listed.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { cachedRates, createRatesStore, DEMO_RATES_FILE, loadRatesText } from '../../../src/rates/index.js';
import { createTransitionMatcher } from '../../../src/watches/match/transitions.js';
import { createDeliveryHandler, type DeliveryMessage } from '../../../src/watches/delivery.js';
import { createTableQueue, type DeliveryQueue, type QueuedMessage } from '../../../src/watches/queue.js';
import { generateSecret } from '../../../src/watches/resource.js';
import { putDelivery, type WatchTables } from '../../../src/watches/store.js';
import { putWatch } from '../../../src/watches/counted-writes.js';
import { systemResolver } from '../../../src/watches/target.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';

/**
 * Delivery through the local queue worker, as under npm start, to real HTTP receivers on 127.0.0.1.
 * Fair delivery (docs/watches.md, "Fairness"): one client's 10 receivers hang, or answer 204 after
 * 9 s; another client's delivery, queued after theirs, still arrives within 5 s. Real HTTP receivers
 * on 127.0.0.1, the real delivery function fed by the local queue worker, as under npm start.
 * FAIR_DELIVERY_WAIT_MS (default 5000) lets a measurement wait longer and print the delay.
 */
jest.setTimeout(300_000);

const WAIT_MS = Number(process.env.FAIR_DELIVERY_WAIT_MS ?? 5_000);
let t: TestTables;
const suffix = randomUUID().slice(0, 8);
const names = { watchesTableName: `watches-${suffix}`, deliveriesTableName: `deliveries-${suffix}`, localQueueTableName: `queue-${suffix}` };
let tables: WatchTables;
let queue: DeliveryQueue;
let worker: QueueWorker;
const receivers: Receiver[] = [];
let n = 0;

beforeAll(async () => {
  t = await createTestTables();
  await ensureTables(t.client, { legsTableName: t.legsTableName, keysTableName: t.keysTableName, watches: names });
  tables = { client: t.client, watchesTableName: names.watchesTableName, deliveriesTableName: names.deliveriesTableName };
  queue = createTableQueue(t.client, names.localQueueTableName, processClock);
  worker = startQueueWorker({
    client: t.client,
    tableName: names.localQueueTableName,
    handler: createDeliveryHandler({
      tables,
      queue,
      targets: 'local',
      resolver: systemResolver,
      clock: processClock,
      retryScheduleSeconds: [1, 2, 5, 10, 30, 60],
      disableAfterSeconds: 432_000,
    }),
    clock: processClock,
  });
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await worker?.stop();
  for (const TableName of Object.values(names)) await t.client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
  await t.drop();
});

async function receiver(respond: Receiver['respond']): Promise<Receiver> {
  const r = await startReceiver();
  r.respond = respond;
  receivers.push(r);
  return r;
}

/** A watch of `clientId` on `r`'s path `name`, and one pending delivery of it: its queue message. */
async function pendingDelivery(clientId: string, r: Receiver, name: string): Promise<QueuedMessage> {
  n++;
  const watchId = `wat_${String(n).padStart(20, '0')}`;
  const secret = generateSecret();
  r.secrets.set(name, secret);
  const createdAt = new Date(processClock()).toISOString();
  await putWatch(tables, { clientId, watchId, url: r.url(name), filters: {}, description: null, status: 'active', createdAt, secret, failingSince: null, disabledAt: null }, 100);
  const deliveryId = `msg_${suffix}${n}`;
  const deliveryKey = `${createdAt}#${deliveryId}`;
  await putDelivery(tables, {
    watchId,
    deliveryKey,
    id: deliveryId,
    clientId,
    type: 'empty_leg.listed',
    legId: `FAIR-${n}`,
    status: 'pending',
    attempts: 0,
    responseCode: null,
    lastAttemptAt: null,
    nextAttemptAt: null,
    createdAt,
    ttl: 0,
  });
  const payload = JSON.stringify({ type: 'empty_leg.listed', timestamp: createdAt, data: { watchId, id: `FAIR-${n}`, leg: null } });
  const message: DeliveryMessage = { deliveryId, clientId, watchId, deliveryKey, payload, attempts: 0, dueAt: processClock() };
  return { body: JSON.stringify(message), delaySeconds: 0 };
}

/** Another client's delay behind one client's 10 receivers that answer with `respond`. */
async function delayBehind(respond: Receiver['respond'], label: string): Promise<number | undefined> {
  const bad = await receiver(respond);
  const good = await receiver(() => 204);
  const theirs: QueuedMessage[] = [];
  for (let i = 0; i < 10; i++) theirs.push(await pendingDelivery('cli_AAAAAAAAAAAAAAAAAAAA', bad, `a${i}`));
  const other = await pendingDelivery('cli_BBBBBBBBBBBBBBBBBBBB', good, 'b');
  await queue.send(theirs);
  // The worker has taken theirs before the other client's delivery is queued.
  expect(await bad.waitFor(() => true, 10_000)).toBeDefined();
  const queued = performance.now();
  await queue.send([other]);
  const got = await good.waitFor((r) => r.path === '/b', WAIT_MS);
  const delay = got === undefined ? undefined : Math.round(got.at - queued);
  process.stdout.write(`fair delivery, ${label}: the other client's delivery after ${delay ?? `more than ${WAIT_MS}`} ms\n`);
  await bad.close();
  return delay;
}

describe("one client's slow receivers and another client's delivery", () => {
  it('10 hanging receivers delay it by less than 5 s', async () => {
    expect(await delayBehind(() => 'stall', '10 hanging receivers')).toBeLessThan(5_000);
  });

  it('10 receivers answering 204 after 9 s delay it by less than 5 s', async () => {
    expect(await delayBehind(() => ({ status: 204, afterMs: 9_000 }), '10 receivers answering after 9 s')).toBeLessThan(5_000);
  });
});

describe('a watch with a price cap (docs/watches.md, "Prices")', () => {
  it('gets a delivery for a leg under the cap, with its convertedPrice, and none for one above it', async () => {
    // The ECB's file of 2022-07-08 as the rates in force: 1.0163 USD and 0.84585 GBP per euro.
    const store = createRatesStore(t.client, t.legsTableName);
    await loadRatesText(await readFile(DEMO_RATES_FILE, 'utf8'), { store, clock: processClock });
    const r = await receiver(() => 204);
    const secret = generateSecret();
    r.secrets.set('cap', secret);
    const clientId = 'cli_CCCCCCCCCCCCCCCCCCCC';
    const watchId = 'wat_CCCCCCCCCCCCCCCCCCCC';
    const createdAt = new Date(processClock()).toISOString();
    await putWatch(tables, { clientId, watchId, url: r.url('cap'), filters: { currency: 'GBP', maxPrice: '15000' }, description: null, status: 'active', createdAt, secret, failingSince: null, disabledAt: null }, 100);
    const match = createTransitionMatcher({
      tables,
      queue,
      airports: () => new AirportIndex([]),
      clock: processClock,
      rates: cachedRates(store, { clock: processClock, fresh: true }),
      // Only this client has a key: the other tests' watches (no filters) get nothing.
      activeClients: () => Promise.resolve({ has: (c) => c === clientId }),
    });
    const tomorrow = addDays(utcDate(new Date(processClock())), 1);
    const leg = (id: string, price: number) =>
      listedRecord(toStorageItem(storedLeg({ id, startDate: tomorrow, endDate: addDays(tomorrow, 1), price, currency: 'USD' })), new Date(processClock()))!;
    // 17,000 USD / 1.0163 x 0.84585 = 14,148.82 GBP; 18,500 USD = 15,397.25 GBP, above the cap.
    const result = await match(['CAP-UNDER', 'CAP-OVER'].map((id, i) => ({ id, changedAt: createdAt, changeId: `cap${i}`, before: null, after: leg(id, i === 0 ? 17_000 : 18_500) })));
    expect(result).toMatchObject({ deliveries: 1, queued: 1 });
    const got = await r.waitFor((x) => x.path === '/cap', 10_000);
    expect(got?.verified).toBe(true);
    expect(got?.body).toMatchObject({ type: 'empty_leg.listed', data: { watchId, id: 'CAP-UNDER', leg: { price: 17_000, currency: 'USD', convertedPrice: { amount: 14148.82, currency: 'GBP', rateDate: '2022-07-08' } } } });
    expect(r.received.map((x) => x.body.data.id)).toEqual(['CAP-UNDER']);
  });
});
