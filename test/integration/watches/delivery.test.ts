// @dateIndependent: signs and retries at fixed instants (T0); the verifier's own clock check is expected to refuse.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { Webhook } from 'standardwebhooks';
import { ensureTables } from '../../../local/dynamodb-local.js';
import { processDelivery, type DeliveryDependencies, type DeliveryMessage } from '../../../src/watches/delivery.js';
import type { QueuedMessage } from '../../../src/watches/queue.js';
import { generateSecret, readWatch } from '../../../src/watches/resource.js';
import { getDelivery, getWatch, putDelivery, type WatchRecord, type WatchTables } from '../../../src/watches/store.js';
import { deleteWatch, putWatch } from '../../../src/watches/counted-writes.js';
import type { Resolver } from '../../../src/watches/target.js';
import type { WebhookPoster } from '../../../src/watches/post.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';

/**
 * One delivery attempt and what follows it (docs/watches.md, "Retries"), on DynamoDB Local, with
 * the HTTP POST and DNS stubbed (no traffic leaves this machine) and the clock given.
 */
let t: TestTables;
const suffix = randomUUID().slice(0, 8);
const names = { watchesTableName: `watches-${suffix}`, deliveriesTableName: `deliveries-${suffix}`, localQueueTableName: `queue-${suffix}` };
let tables: WatchTables;
const T0 = Date.parse('2026-11-21T12:00:00Z');
const SCHEDULE = [5, 300, 1800];
let n = 0;

beforeAll(async () => {
  t = await createTestTables();
  await ensureTables(t.client, { legsTableName: t.legsTableName, keysTableName: t.keysTableName, watches: names });
  tables = { client: t.client, watchesTableName: names.watchesTableName, deliveriesTableName: names.deliveriesTableName };
});
afterAll(async () => {
  for (const TableName of Object.values(names)) await t.client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
  await t.drop();
});

interface Rig {
  watch: WatchRecord;
  message: DeliveryMessage;
  sent: QueuedMessage[];
  posts: { url: string; address: string; headers: Record<string, string>; body: string }[];
  deps: (over?: Partial<DeliveryDependencies> & { status?: number; now?: number }) => DeliveryDependencies;
}

async function rig(url = 'https://hooks.example.com/x', over: Partial<WatchRecord> = {}): Promise<Rig> {
  n++;
  const watch: WatchRecord = {
    clientId: `cli_${String(n).padStart(20, '0')}`,
    watchId: `wat_${String(n).padStart(20, '0')}`,
    url,
    filters: {},
    description: null,
    status: 'active',
    createdAt: new Date(T0).toISOString(),
    secret: generateSecret(),
    failingSince: null,
    disabledAt: null,
    ...over,
  };
  await putWatch(tables, watch, 100);
  const deliveryKey = `2026-11-21T12:00:00.000Z#msg_${n}`;
  await putDelivery(tables, {
    watchId: watch.watchId,
    deliveryKey,
    id: `msg_${n}`,
    clientId: watch.clientId,
    type: 'empty_leg.listed',
    legId: 'L1',
    status: 'pending',
    attempts: 0,
    responseCode: null,
    lastAttemptAt: null,
    nextAttemptAt: null,
    createdAt: new Date(T0).toISOString(),
    ttl: 0,
  });
  const sent: QueuedMessage[] = [];
  const posts: Rig['posts'] = [];
  const message: DeliveryMessage = {
    deliveryId: `msg_${n}`,
    clientId: watch.clientId,
    watchId: watch.watchId,
    deliveryKey,
    payload: '{"type":"empty_leg.listed","timestamp":"2026-11-21T12:00:00.000Z","data":{"watchId":"w","id":"L1","leg":null}}',
    attempts: 0,
    dueAt: T0,
  };
  const resolver: Resolver = () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]);
  return {
    watch,
    message,
    sent,
    posts,
    deps: ({ status = 204, now = T0, ...over } = {}) => {
      const post: WebhookPoster = (u, address, headers, body) => {
        posts.push({ url: u.href, address: address.address, headers, body });
        return Promise.resolve({ status });
      };
      return {
        tables,
        queue: { send: (m) => Promise.resolve(void sent.push(...m)) },
        targets: 'public',
        resolver,
        clock: () => now,
        retryScheduleSeconds: SCHEDULE,
        disableAfterSeconds: 86_400,
        post,
        random: () => 0,
        ...over,
      };
    },
  };
}

describe('processDelivery', () => {
  let r: Rig;
  beforeEach(async () => {
    r = await rig();
  });

  it('a 2xx: delivered once, signed as standardwebhooks signs the id, the attempt timestamp and the body', async () => {
    expect(await processDelivery(r.message, r.deps())).toBe('delivered');
    expect(r.posts).toHaveLength(1);
    const p = r.posts[0]!;
    expect(p.address).toBe('93.184.216.34');
    expect(p.headers['webhook-id']).toBe(r.message.deliveryId);
    expect(p.headers['webhook-timestamp']).toBe(String(T0 / 1000));
    // The verifier checks the timestamp against the real clock: sign-check at T0 by its own rules.
    const verifier = new Webhook(r.watch.secret);
    expect(() => verifier.verify(p.body, { ...p.headers, 'webhook-timestamp': p.headers['webhook-timestamp']! })).toThrow(/timestamp/i);
    const resigned = verifier.sign(p.headers['webhook-id']!, new Date(T0), p.body);
    expect(resigned).toBe(p.headers['webhook-signature']);
    expect(await getDelivery(tables, r.watch.watchId, r.message.deliveryKey)).toMatchObject({ status: 'delivered', attempts: 1, responseCode: 204 });
    expect(r.sent).toEqual([]);
  });

  it('a 503: the retry is queued after the schedule (with jitter), the same id; after the last, failed', async () => {
    let m = r.message;
    let now = T0;
    for (const [i, delay] of SCHEDULE.entries()) {
      expect(await processDelivery(m, r.deps({ status: 503, now }))).toBe('retry');
      const next = JSON.parse(r.sent.at(-1)!.body) as DeliveryMessage;
      expect(next).toMatchObject({ deliveryId: r.message.deliveryId, attempts: i + 1, dueAt: now + delay * 1000 });
      expect(r.sent.at(-1)!.delaySeconds).toBe(Math.min(delay, 900));
      expect(await getDelivery(tables, r.watch.watchId, m.deliveryKey)).toMatchObject({
        status: 'pending',
        attempts: i + 1,
        responseCode: 503,
        nextAttemptAt: new Date(now + delay * 1000).toISOString(),
      });
      now += delay * 1000;
      m = next;
    }
    expect(await processDelivery(m, r.deps({ status: 503, now }))).toBe('failed');
    expect(r.sent).toHaveLength(SCHEDULE.length);
    expect(await getDelivery(tables, r.watch.watchId, m.deliveryKey)).toMatchObject({ status: 'failed', attempts: 4, nextAttemptAt: null });
    expect(new Set(r.posts.map((p) => p.headers['webhook-id']))).toEqual(new Set([r.message.deliveryId]));
  });

  it('jitter lengthens a delay by up to 20 %, never shortens it', async () => {
    expect(await processDelivery(r.message, r.deps({ status: 503, random: () => 0.999 }))).toBe('retry');
    const next = JSON.parse(r.sent[0]!.body) as DeliveryMessage;
    expect(next.dueAt - T0).toBe(Math.round(SCHEDULE[0]! * 1.1998) * 1000);
  });

  it('a message that comes before it is due goes back to the queue, with no attempt', async () => {
    expect(await processDelivery({ ...r.message, dueAt: T0 + 1800_000 }, r.deps())).toBe('waiting');
    expect(r.posts).toEqual([]);
    expect(r.sent[0]!.delaySeconds).toBe(900);
  });

  it('a deleted watch: the delivery is dropped, nothing is sent', async () => {
    await deleteWatch(tables, r.watch.clientId, r.watch.watchId);
    expect(await processDelivery(r.message, r.deps())).toBe('dropped');
    expect(r.posts).toEqual([]);
    expect(await getDelivery(tables, r.watch.watchId, r.message.deliveryKey)).toMatchObject({ status: 'dropped' });
  });

  it('a name that now resolves to a private address is never called; the attempt fails', async () => {
    for (const address of ['10.0.0.7', '169.254.169.254', '127.0.0.1', 'fd00::1']) {
      const resolver: Resolver = () => Promise.resolve([{ address, family: address.includes(':') ? 6 : 4 }]);
      const fresh = await rig();
      expect(await processDelivery(fresh.message, fresh.deps({ resolver }))).toBe('retry');
      expect(fresh.posts).toEqual([]);
    }
  });

  it('an endpoint failing for the documented time is disabled: its delivery dropped, GET says so', async () => {
    const failing = await rig('https://hooks.example.com/x', { failingSince: new Date(T0 - 86_400_000).toISOString() });
    expect(await processDelivery(failing.message, failing.deps({ status: 500 }))).toBe('failed');
    expect(failing.sent).toEqual([]);
    expect(await readWatch(failing.watch.clientId, failing.watch.watchId, { tables })).toMatchObject({
      status: 'disabled',
      disabledAt: new Date(T0).toISOString(),
      failingSince: new Date(T0 - 86_400_000).toISOString(),
    });
    expect(await getDelivery(tables, failing.watch.watchId, failing.message.deliveryKey)).toMatchObject({ status: 'dropped' });
  });

  it('a 2xx after failures clears failingSince', async () => {
    const recovering = await rig('https://hooks.example.com/x', { failingSince: new Date(T0 - 3_600_000).toISOString() });
    expect(await processDelivery(recovering.message, recovering.deps())).toBe('delivered');
    expect((await getWatch(tables, recovering.watch.clientId, recovering.watch.watchId))?.failingSince).toBeNull();
  });

  it('a 2xx slower than the bound is delivered, but the endpoint counts as failing', async () => {
    const late: WebhookPoster = () => new Promise((resolve) => setTimeout(() => resolve({ status: 204 }), 120));
    expect(await processDelivery(r.message, r.deps({ post: late, slowAfterMs: 50 }))).toBe('delivered');
    expect(await getDelivery(tables, r.watch.watchId, r.message.deliveryKey)).toMatchObject({ status: 'delivered', responseCode: 204 });
    expect((await getWatch(tables, r.watch.clientId, r.watch.watchId))?.failingSince).toBe(new Date(T0).toISOString());
    expect(r.sent).toEqual([]);
  });

  it('the first failed attempt of a new watch (failingSince stored as null) sets failingSince', async () => {
    expect(await processDelivery(r.message, r.deps({ status: 503 }))).toBe('retry');
    expect((await getWatch(tables, r.watch.clientId, r.watch.watchId))?.failingSince).toBe(new Date(T0).toISOString());
  });
});
