// @dateIndependent: signs and verifies at the tests' clock (atClockInstant); its instants are offsets from it
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { ensureTables } from '../../../local/dynamodb-local.js';
import { rotateWatchSecret, SECRET_OVERLAP_MS } from '../../../src/watch-admin/rotate-secret.js';
import { replayDelivery, sendTestEvent, type SendDependencies } from '../../../src/watch-admin/send-now.js';
import { processDelivery } from '../../../src/watches/delivery.js';
import { generateSecret } from '../../../src/watches/resource.js';
import { getDelivery, getWatch, putDelivery, type DeliveryRecord, type WatchRecord, type WatchTables } from '../../../src/watches/store.js';
import { putWatch } from '../../../src/watches/counted-writes.js';
import { systemResolver } from '../../../src/watches/target.js';
import { batchPut } from '../../../src/aws/batch-write.js';
import { findDelivery } from '../../../src/watch-admin/store.js';
import { countingClient } from '../../support/counting-client.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { startReceiver, verifiesWith, type Receiver } from '../../support/webhook-receiver.js';
import { testNow } from '../../support/clock.js';
import type { AppError } from '../../../src/errors.js';

/**
 * The owner's attempts made now (src/watch-admin/): a test event, a replay and the signing after a
 * rotation, on DynamoDB Local, sent over loopback to a real receiver and verified there with the
 * standardwebhooks library. Its verifier allows 5 minutes of skew from the real clock, so every
 * attempt is made at the real instant and the rotations are placed before it (the clock injected).
 */
let t: TestTables;
let receiver: Receiver;
const suffix = randomUUID().slice(0, 8);
const names = { watchesTableName: `watches-${suffix}`, deliveriesTableName: `deliveries-${suffix}`, localQueueTableName: `queue-${suffix}` };
let tables: WatchTables;
let n = 0;
const NOW = testNow();

beforeAll(async () => {
  t = await createTestTables();
  await ensureTables(t.client, { legsTableName: t.legsTableName, keysTableName: t.keysTableName, watches: names });
  tables = { client: t.client, watchesTableName: names.watchesTableName, deliveriesTableName: names.deliveriesTableName };
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  for (const TableName of Object.values(names)) await t.client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
  await t.drop();
});

const deps = (over: Partial<SendDependencies> = {}): SendDependencies => ({ tables, targets: 'local', resolver: systemResolver, clock: () => NOW, ...over });

async function watchAt(path: string, over: Partial<WatchRecord> = {}): Promise<WatchRecord> {
  n++;
  const watch: WatchRecord = {
    clientId: `cli_${suffix}${String(n).padStart(12, '0')}`,
    watchId: `wat_${suffix}${String(n).padStart(12, '0')}`,
    url: receiver.url(path),
    filters: {},
    description: null,
    status: 'active',
    createdAt: new Date(NOW).toISOString(),
    secret: generateSecret(),
    failingSince: null,
    disabledAt: null,
    ...over,
  };
  await putWatch(tables, watch, 100);
  return watch;
}

const arrived = async (webhookId: string) => (await receiver.waitFor((r) => r.webhookId === webhookId, 2_000))!;

describe('a test event', () => {
  it('is POSTed now, signed, to the watch of a disabled endpoint too; the answer is the attempt', async () => {
    const watch = await watchAt('test-ok', { status: 'disabled', disabledAt: new Date(NOW).toISOString() });
    const report = await sendTestEvent(watch.clientId, watch.watchId, deps());
    expect(report).toMatchObject({ type: 'watch.test', result: 'delivered', responseCode: 204, error: null, attemptedAt: new Date(NOW).toISOString() });
    expect(report.durationMs).toBeGreaterThanOrEqual(0);
    const got = await arrived(report.webhookId);
    expect(verifiesWith(watch.secret, got)).toBe(true);
    expect(JSON.parse(got.raw)).toEqual({ type: 'watch.test', timestamp: new Date(NOW).toISOString(), data: { watchId: watch.watchId } });
  });

  it("names the receiver's status, a time-out, a refused connection and an unsafe target", async () => {
    receiver.respond = (path) => (path === '/test-503' ? 503 : path === '/test-stall' ? 'stall' : 204);
    const rejected = await watchAt('test-503');
    expect(await sendTestEvent(rejected.clientId, rejected.watchId, deps())).toMatchObject({ result: 'rejected', responseCode: 503, error: 'the receiver answered 503' });
    const stalled = await watchAt('test-stall');
    const timeout = await sendTestEvent(stalled.clientId, stalled.watchId, deps({ postOptions: { timeoutMs: 300, maxResponseBytes: 4096 } }));
    expect(timeout).toMatchObject({ result: 'timeout', responseCode: null, error: 'no answer within 300 ms' });
    expect(timeout.durationMs).toBeGreaterThanOrEqual(300);
    // A port nothing listens on: taken, then let go.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const closed = await watchAt('x', { url: `http://127.0.0.1:${port}/x` });
    expect(await sendTestEvent(closed.clientId, closed.watchId, deps())).toMatchObject({ result: 'refused', responseCode: null, error: 'connection refused' });
    const unsafe = await watchAt('test-unsafe');
    const seen = receiver.received.length;
    const refused = await sendTestEvent(unsafe.clientId, unsafe.watchId, deps({ targets: 'public' }));
    expect(refused).toMatchObject({ result: 'unsafe_target', responseCode: null });
    expect(refused.error).toMatch(/^target refused: /);
    expect(receiver.received.length).toBe(seen);
    receiver.respond = () => 204;
  });

  it("another client's watch is not found", async () => {
    const watch = await watchAt('test-other');
    await expect(sendTestEvent('cli_someoneelse00000000', watch.watchId, deps())).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('a replay', () => {
  async function deliveryOf(watch: WatchRecord, over: Partial<DeliveryRecord> = {}): Promise<DeliveryRecord> {
    const id = `msg_${randomUUID().replace(/-/g, '').slice(0, 27)}`;
    const record: DeliveryRecord = {
      watchId: watch.watchId,
      deliveryKey: `2026-11-21T12:00:00.000Z#${id}`,
      id,
      clientId: watch.clientId,
      type: 'empty_leg.listed',
      legId: 'L1',
      status: 'failed',
      attempts: 8,
      responseCode: 503,
      lastAttemptAt: '2026-11-21T12:00:00.000Z',
      nextAttemptAt: null,
      createdAt: '2026-11-20T12:00:00.000Z',
      ttl: 0,
      payload: JSON.stringify({ type: 'empty_leg.listed', timestamp: '2026-11-20T12:00:00.000Z', data: { watchId: watch.watchId, id: 'L1', leg: null } }),
      ...over,
    };
    await putDelivery(tables, record);
    return record;
  }

  it('sends the same webhook-id and body, signed now; the attempt joins its history and a 2xx makes it delivered', async () => {
    const watch = await watchAt('replay', { failingSince: new Date(NOW - 3_600_000).toISOString() });
    const d = await deliveryOf(watch);
    const report = await replayDelivery(watch.clientId, watch.watchId, d.id, deps());
    expect(report).toMatchObject({ webhookId: d.id, result: 'delivered', responseCode: 204 });
    expect(report.delivery).toMatchObject({ id: d.id, status: 'delivered', attempts: 9, responseCode: 204, lastAttemptAt: new Date(NOW).toISOString(), nextAttemptAt: null });
    const got = await arrived(d.id);
    expect(got.raw).toBe(d.payload);
    expect(verifiesWith(watch.secret, got)).toBe(true);
    expect(await getDelivery(tables, watch.watchId, d.deliveryKey)).toMatchObject({ status: 'delivered', attempts: 9 });
    expect((await getWatch(tables, watch.clientId, watch.watchId))?.failingSince).toBeNull();
  });

  it('a failed replay counts, and leaves the status and the failing period as they were', async () => {
    receiver.respond = (path) => (path === '/replay-503' ? 503 : 204);
    const watch = await watchAt('replay-503');
    const d = await deliveryOf(watch, { status: 'pending', attempts: 2, nextAttemptAt: '2026-11-21T13:00:00.000Z' });
    const report = await replayDelivery(watch.clientId, watch.watchId, d.id, deps());
    expect(report).toMatchObject({ result: 'rejected', responseCode: 503 });
    expect(report.delivery).toMatchObject({ status: 'pending', attempts: 3, responseCode: 503, nextAttemptAt: '2026-11-21T13:00:00.000Z' });
    expect((await getWatch(tables, watch.clientId, watch.watchId))?.failingSince).toBeNull();
    receiver.respond = () => 204;
  });

  it('an unknown delivery or another watch\'s is not found; one without a kept body is DELIVERY_NOT_REPLAYABLE', async () => {
    const watch = await watchAt('replay-404');
    const other = await watchAt('replay-404');
    const d = await deliveryOf(other);
    await expect(replayDelivery(watch.clientId, watch.watchId, d.id, deps())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(replayDelivery(watch.clientId, other.watchId, d.id, deps())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const old = await deliveryOf(watch, { payload: undefined });
    await expect(replayDelivery(watch.clientId, watch.watchId, old.id, deps())).rejects.toMatchObject({ code: 'DELIVERY_NOT_REPLAYABLE', status: 409 });
  });
});

describe('a delivery found by its id', () => {
  it('reads its key from the byDeliveryId index and the delivery by that key: an unknown id reads none of the watch\'s 30 days of deliveries', async () => {
    const watch = await watchAt('by-id');
    const kept = Array.from({ length: 120 }, (_, i) => {
      const id = `msg_${String(i).padStart(4, '0')}${randomUUID().replace(/-/g, '').slice(0, 23)}`;
      return { watchId: watch.watchId, deliveryKey: `2026-11-${String(1 + (i % 28)).padStart(2, '0')}T12:00:00.000Z#${id}`, id, clientId: watch.clientId, type: 'empty_leg.listed', legId: `L${i}`, status: 'delivered', attempts: 1, ttl: 0, payload: 'x'.repeat(1_000) };
    });
    await batchPut(t.client, names.deliveriesTableName, kept, { concurrency: 4, attempts: 8 });
    const counting = countingClient(t.client);
    const counted = { ...tables, client: counting.client };

    expect(await findDelivery(counted, watch.watchId, 'msg_unknown000000000000000000000')).toBeUndefined();
    expect(counting.commands.map((c) => [c.name, c.input.IndexName])).toEqual([['QueryCommand', 'byDeliveryId']]);
    expect(counting.commands[0]!.input.FilterExpression).toBeUndefined();
    // The old Query of the watch's partition read all 120 deliveries (about 30 read units).
    expect(counting.units()).toBeLessThanOrEqual(1);

    counting.reset();
    const wanted = kept[77]!;
    expect(await findDelivery(counted, watch.watchId, wanted.id)).toMatchObject({ id: wanted.id, deliveryKey: wanted.deliveryKey, legId: 'L77' });
    expect(counting.commands.map((c) => c.name)).toEqual(['QueryCommand', 'GetCommand']);
    expect(counting.named('GetCommand')[0]!.input).toMatchObject({ Key: { watchId: watch.watchId, deliveryKey: wanted.deliveryKey }, ConsistentRead: true });
    expect(counting.units()).toBeLessThanOrEqual(2);
  });
});

describe("a secret's rotation", () => {
  it('for 24 hours every attempt (a test event, a queued delivery) verifies with the old secret and the new one', async () => {
    const watch = await watchAt('rotated');
    // Rotated 23 h before the attempts: inside the overlap.
    const rotatedAt = NOW - 23 * 3_600_000;
    const rotated = await rotateWatchSecret(watch.clientId, watch.watchId, { tables, clock: () => rotatedAt });
    expect(rotated).toMatchObject({ id: watch.watchId, rotatedAt: new Date(rotatedAt).toISOString(), previousSecretExpiresAt: new Date(rotatedAt + SECRET_OVERLAP_MS).toISOString() });
    expect(rotated.secret).not.toBe(watch.secret);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const test = await sendTestEvent(watch.clientId, watch.watchId, deps());
    const queuedId = `msg_${'q'.repeat(27)}`;
    const queued = await processDelivery(
      { deliveryId: queuedId, clientId: watch.clientId, watchId: watch.watchId, deliveryKey: 'k', payload: '{}', attempts: 0, dueAt: NOW },
      { tables, queue: { send: () => Promise.resolve() }, targets: 'local', resolver: systemResolver, clock: () => NOW, retryScheduleSeconds: [1], disableAfterSeconds: 86_400 },
    );
    expect(queued).toBe('delivered');
    for (const id of [test.webhookId, queuedId]) {
      const got = await arrived(id);
      expect(got.headers['webhook-signature']!.split(' ')).toHaveLength(2);
      expect(verifiesWith(rotated.secret, got)).toBe(true);
      expect(verifiesWith(watch.secret, got)).toBe(true);
    }
  });

  it('from 24 hours on, only the new secret verifies', async () => {
    const watch = await watchAt('rotated-past');
    const rotated = await rotateWatchSecret(watch.clientId, watch.watchId, { tables, clock: () => NOW - SECRET_OVERLAP_MS });
    const test = await sendTestEvent(watch.clientId, watch.watchId, deps());
    const got = await arrived(test.webhookId);
    expect(got.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifiesWith(rotated.secret, got)).toBe(true);
    expect(verifiesWith(watch.secret, got)).toBe(false);
  });

  it('a second rotation keeps only the secret it replaced besides the new one', async () => {
    const watch = await watchAt('rotated-twice');
    const first = await rotateWatchSecret(watch.clientId, watch.watchId, { tables, clock: () => NOW - 2 * 3_600_000 });
    const second = await rotateWatchSecret(watch.clientId, watch.watchId, { tables, clock: () => NOW - 3_600_000 });
    const got = await arrived((await sendTestEvent(watch.clientId, watch.watchId, deps())).webhookId);
    expect([verifiesWith(second.secret, got), verifiesWith(first.secret, got), verifiesWith(watch.secret, got)]).toEqual([true, true, false]);
  });
});

describe('test events and replays per client (src/watch-admin/send-limit.ts)', () => {
  it('100 test events in a minute: the first 10 are sent, whatever the receiver answers, the other 90 are 429 with Retry-After; another client is not affected', async () => {
    receiver.respond = (path) => (path === '/limit-503' ? 503 : 204);
    const watch = await watchAt('limit-503');
    const results: (string | number)[] = [];
    // One every 0.5 s of the injected clock: 50 s in all.
    for (let i = 0; i < 100; i++) {
      try {
        results.push((await sendTestEvent(watch.clientId, watch.watchId, deps({ clock: () => NOW + i * 500 }))).result);
      } catch (err) {
        const e = err as AppError;
        expect(e).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
        // The first send (at NOW) frees its place at NOW + 60 s.
        expect(Number(e.headers?.['retry-after'])).toBe(Math.ceil((60_000 - i * 500) / 1000));
        results.push(429);
      }
    }
    expect(results.slice(0, 10)).toEqual(Array(10).fill('rejected'));
    expect(results.slice(10)).toEqual(Array(90).fill(429));
    expect(receiver.received.filter((r) => r.path === '/limit-503')).toHaveLength(10);
    // A minute after the first: one place again.
    expect((await sendTestEvent(watch.clientId, watch.watchId, deps({ clock: () => NOW + 60_001 }))).result).toBe('rejected');
    await expect(sendTestEvent(watch.clientId, watch.watchId, deps({ clock: () => NOW + 60_002 }))).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    const other = await watchAt('limit-other');
    expect((await sendTestEvent(other.clientId, other.watchId, deps({ clock: () => NOW + 1_000 }))).result).toBe('delivered');
  });

  it('30 sent at once: exactly 10 go out', async () => {
    const watch = await watchAt('limit-burst');
    const settled = await Promise.allSettled(Array.from({ length: 30 }, () => sendTestEvent(watch.clientId, watch.watchId, deps())));
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(10);
    expect(settled.filter((s) => s.status === 'rejected').map((s) => (s).reason as AppError).every((e) => e.code === 'RATE_LIMITED')).toBe(true);
    expect(receiver.received.filter((r) => r.path === '/limit-burst')).toHaveLength(10);
  });
});
