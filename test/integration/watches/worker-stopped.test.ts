// @dateIndependent: the receiver verifies at the tests' clock (test/support/webhook-receiver.ts), which the worker signs with.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '../../../local/dynamodb-local.js';
import { processClock } from '../../../src/clock.js';
import { airportReference } from '../../../src/airports/reference.js';
import { createTransitionMatcher } from '../../../src/watches/match/transitions.js';
import { createTableQueue } from '../../../src/watches/queue.js';
import { generateSecret } from '../../../src/watches/resource.js';
import { getDelivery, recentDeliveries, type WatchTables } from '../../../src/watches/store.js';
import { putWatch } from '../../../src/watches/counted-writes.js';
import { createKey } from '../../../src/api-keys/store.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';
import { clockEnv } from '../../support/clock.js';

/**
 * At least once, across a worker's death: the delivery worker (the real function, fed by the local
 * queue poller) runs in a process of its own; it is killed with SIGKILL while the receiver holds its
 * request, and a second worker delivers the same delivery (same webhook-id) once the message's
 * visibility ends. Nothing is lost, and the delivery ends `delivered`.
 */
jest.setTimeout(90_000);

let t: TestTables;
let receiver: Receiver;
const suffix = randomUUID().slice(0, 8);
const names = { watchesTableName: `watches-${suffix}`, deliveriesTableName: `deliveries-${suffix}`, localQueueTableName: `queue-${suffix}` };
let tables: WatchTables;
const children: ChildProcess[] = [];

function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/webhook-worker-process.ts'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DYNAMODB_ENDPOINT: t.endpoint,
      AWS_REGION: 'us-east-1',
      WATCHES_TABLE_NAME: names.watchesTableName,
      KEYS_TABLE_NAME: t.keysTableName,
      WATCH_DELIVERIES_TABLE_NAME: names.deliveriesTableName,
      WEBHOOK_LOCAL_QUEUE_TABLE_NAME: names.localQueueTableName,
      WEBHOOK_TARGETS: 'local',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1',
      TEST_VISIBILITY_MS: '2000',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      // The tests' clock (`npm test -- --at`): the worker compares the queue's instants with it.
      ...clockEnv(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
}

beforeAll(async () => {
  t = await createTestTables();
  await ensureTables(t.client, { legsTableName: t.legsTableName, keysTableName: t.keysTableName, watches: names });
  tables = { client: t.client, watchesTableName: names.watchesTableName, deliveriesTableName: names.deliveriesTableName };
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await receiver.close();
  for (const TableName of Object.values(names)) await t.client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
  await t.drop();
});

describe('a delivery worker stopped mid-way', () => {
  it('loses no delivery: another worker sends it, with the same webhook-id', async () => {
    const secret = generateSecret();
    receiver.secrets.set('stop', secret);
    // A client gets pushes while it has a key (docs/watches.md, "A client without a key").
    await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['watch:write'], clientId: 'cli_AAAAAAAAAAAAAAAAAAAA', now: processClock() });
    await putWatch(
      tables,
      {
        clientId: 'cli_AAAAAAAAAAAAAAAAAAAA',
        watchId: 'wat_AAAAAAAAAAAAAAAAAAAA',
        url: receiver.url('stop'),
        filters: {},
        description: null,
        status: 'active',
        createdAt: new Date(processClock()).toISOString(),
        secret,
        failingSince: null,
        disabledAt: null,
      },
      10,
    );
    const matcher = createTransitionMatcher({
      tables,
      queue: createTableQueue(t.client, names.localQueueTableName, processClock),
      airports: airportReference,
      clock: processClock,
      activeClients: () => Promise.resolve({ has: () => true }),
    });
    const today = new Date(processClock()).toISOString().slice(0, 10);
    const { listed: _l, blocked: _b, depTimezone: _z, source: _s, ...leg } = storedLeg({ id: 'STOP-1', startDate: today, endDate: today });
    await matcher([{ id: 'STOP-1', changedAt: new Date(processClock()).toISOString(), before: null, after: leg }]);

    receiver.respond = (_path, attempt) => (attempt === 1 ? 'stall' : 204);
    const first = await startWorker();
    const held = await receiver.waitFor((r) => r.path === '/stop', 10_000);
    expect(held).toBeDefined();
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    await startWorker();
    const second = await receiver.waitFor((r) => r.path === '/stop' && r !== held, 15_000);
    expect(second?.webhookId).toBe(held!.webhookId);
    expect([held!.verified, second!.verified]).toEqual([true, true]);
    for (let i = 0; i < 50; i++) {
      const [d] = await recentDeliveries(tables, 'wat_AAAAAAAAAAAAAAAAAAAA', 1);
      if (d?.status === 'delivered') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const [delivery] = await recentDeliveries(tables, 'wat_AAAAAAAAAAAAAAAAAAAA', 5);
    expect(delivery).toMatchObject({ id: held!.webhookId, status: 'delivered', responseCode: 204 });
    expect(await getDelivery(tables, delivery!.watchId, delivery!.deliveryKey)).toMatchObject({ status: 'delivered' });
    // The queue is empty once the delivery is done.
    for (let i = 0; i < 30; i++) {
      const left = (await t.client.send(new ScanCommand({ TableName: names.localQueueTableName }))).Items ?? [];
      if (left.length === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await t.client.send(new ScanCommand({ TableName: names.localQueueTableName }))).Items).toEqual([]);
  });
});
