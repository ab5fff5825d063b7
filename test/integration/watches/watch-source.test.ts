import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '../../../local/dynamodb-local.js';
import { AirportIndex } from '../../../src/airports/reference.js';
import { updateWatch } from '../../../src/watch-admin/store.js';
import { deleteWatch, putWatch } from '../../../src/watches/counted-writes.js';
import { createWatchSource, MAX_STALE_MS, PENDING_SLOT_MS, READ_ATTEMPTS } from '../../../src/watches/match/watch-source.js';
import { generateSecret } from '../../../src/watches/resource.js';
import { WATCH_CHANGE_SLOTS, type WatchRecord, type WatchTables } from '../../../src/watches/store.js';
import { countingClient, type CountingClient } from '../../support/counting-client.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';

/**
 * The matcher's watch index on DynamoDB Local, its reads counted: every watch is read once, at the
 * first batch; after that a watch's create, change (PATCH) or delete makes it read the version item
 * and that watch by key, never the whole table. A failed read is retried after a backoff, and the
 * last index goes on meanwhile.
 */
let t: TestTables;
const suffix = randomUUID().slice(0, 8);
const names = { watchesTableName: `watches-${suffix}`, deliveriesTableName: `deliveries-${suffix}`, localQueueTableName: `queue-${suffix}` };
let tables: WatchTables;
const airports = () => new AirportIndex([]);
const NOW = Date.parse('2026-11-28T12:00:00Z');
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

function watch(over: Partial<WatchRecord> = {}): WatchRecord {
  n++;
  return {
    clientId: `cli_${suffix}${String(n % 7).padStart(12, '0')}`,
    watchId: `wat_${suffix}${String(n).padStart(12, '0')}`,
    url: 'https://hooks.example.com/x',
    filters: {},
    description: 'a description long enough to make a scan of every watch cost something',
    status: 'active',
    createdAt: new Date(NOW).toISOString(),
    secret: generateSecret(),
    failingSince: null,
    disabledAt: null,
    ...over,
  };
}

const ids = (w: { index: { watches: readonly { id: string }[] } }) => w.index.watches.map((x) => x.id).sort();
const watchReads = (c: CountingClient) => c.commands.filter((x) => x.name !== 'GetCommand' || (x.input.Key as { clientId?: string }).clientId !== '~version');

describe('the matcher patches its watch index by key', () => {
  it('reads every watch at its first batch only; a create, a PATCH and a delete read that watch by key, no Scan', async () => {
    const all = Array.from({ length: 24 }, () => watch());
    for (const w of all) await putWatch(tables, w, 100);
    const counting = countingClient(t.client);
    let now = NOW;
    const source = createWatchSource({ tables: { ...tables, client: counting.client }, airports, clock: () => now });

    expect(ids(await source())).toEqual(all.map((w) => w.watchId).sort());
    expect(counting.named('ScanCommand').length).toBeGreaterThan(0);

    // Nothing changed: the version item alone.
    counting.reset();
    await source();
    expect(counting.commands.map((c) => c.name)).toEqual(['GetCommand']);

    // A PATCH (disabled, and another's filters), a create, a delete.
    await updateWatch(tables, all[3]!, { status: 'disabled' });
    await updateWatch(tables, all[4]!, { filters: { depAirportCode: 'KXXA' } });
    const added = watch();
    await putWatch(tables, added, 100);
    await deleteWatch(tables, all[5]!.clientId, all[5]!.watchId);
    counting.reset();
    now += 1_000;
    const after = await source();
    expect(counting.named('ScanCommand')).toEqual([]);
    expect(counting.named('QueryCommand')).toEqual([]);
    const keysRead = counting.named('BatchGetCommand').flatMap((c) => Object.values(c.input.RequestItems as Record<string, { Keys: unknown[] }>).flatMap((r) => r.Keys));
    expect(keysRead).toHaveLength(4);
    expect(ids(after)).toEqual([...all.filter((_, i) => i !== 3 && i !== 5).map((w) => w.watchId), added.watchId].sort());
    expect(after.index.watches.find((w) => w.id === all[4]!.watchId)?.filters.query.depAirportCode?.code.toUpperCase()).toBe('KXXA');
    // A patch reads the version item and one item per watch changed, whatever the number of watches.
    expect(counting.units()).toBeLessThanOrEqual(1 + 4);
    watchReads(counting).forEach((c) => expect(c.name).toBe('BatchGetCommand'));
  });

  it('more changes than the version item keeps between two batches: every watch is read again', async () => {
    const all = Array.from({ length: 3 }, () => watch());
    for (const w of all) await putWatch(tables, w, 100);
    const counting = countingClient(t.client);
    const source = createWatchSource({ tables: { ...tables, client: counting.client }, airports, clock: () => NOW });
    await source();
    for (let i = 0; i <= WATCH_CHANGE_SLOTS; i++) await updateWatch(tables, all[i % 3]!, { description: `change ${i}` });
    counting.reset();
    await source();
    expect(counting.named('ScanCommand').length).toBeGreaterThan(0);
  });

  it('a change whose slot stays unwritten (its writer stopped after the version moved) is waited for, then every watch is read', async () => {
    const counting = countingClient(t.client);
    let now = NOW;
    const source = createWatchSource({ tables: { ...tables, client: counting.client }, airports, clock: () => now });
    await source();
    const stray = watch();
    await putWatch(tables, stray, 100);
    // The version moves without a slot, as a writer stopped between its two writes leaves it.
    await t.client.send(new UpdateCommand({ TableName: names.watchesTableName, Key: { clientId: '~version', watchId: '~version' }, UpdateExpression: 'ADD version :one', ExpressionAttributeValues: { ':one': 1 } }));
    counting.reset();
    const waiting = await source();
    expect(counting.named('ScanCommand')).toEqual([]);
    expect(ids(waiting)).toContain(stray.watchId);
    now += PENDING_SLOT_MS;
    counting.reset();
    await source();
    expect(counting.named('ScanCommand').length).toBeGreaterThan(0);
    counting.reset();
    await source();
    expect(counting.commands.map((c) => c.name)).toEqual(['GetCommand']);
  });
});

describe('a failed read backs off', () => {
  /** The real client, whose reads of the version item fail while `failing`. */
  function failingVersion(real: DynamoDBDocumentClient) {
    const state = { failing: false, versionReads: 0 };
    const client = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop !== 'send') return Reflect.get(target, prop, receiver) as unknown;
        return (command: unknown) => {
          if (command instanceof GetCommand && (command.input.Key as { clientId?: string }).clientId === '~version') {
            state.versionReads++;
            if (state.failing) return Promise.reject(Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' }));
          }
          return real.send(command as never);
        };
      },
    });
    return { client, state };
  }

  it('retried with waits in the batch; then the last index goes on and the next reads wait, until it is too old', async () => {
    const { client, state } = failingVersion(t.client);
    const waits: number[] = [];
    let now = NOW;
    const source = createWatchSource({ tables: { ...tables, client }, airports, clock: () => now, sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });

    // No index yet: the batch fails after its attempts.
    state.failing = true;
    await expect(source()).rejects.toThrow('throttled');
    expect([state.versionReads, waits.length]).toEqual([READ_ATTEMPTS, READ_ATTEMPTS - 1]);

    state.failing = false;
    const good = await source();
    const known = ids(good);

    // With an index: the attempts fail, the batch matches with the last index.
    state.failing = true;
    state.versionReads = 0;
    now += 1_000;
    expect(ids(await source())).toEqual(known);
    expect(state.versionReads).toBe(READ_ATTEMPTS);
    // The next batches, at once: no read at all while the backoff lasts.
    expect(ids(await source())).toEqual(known);
    expect(state.versionReads).toBe(READ_ATTEMPTS);
    // After the backoff, read again; still failing past MAX_STALE_MS: the batch fails.
    now += MAX_STALE_MS;
    await expect(source()).rejects.toThrow('throttled');
    expect(state.versionReads).toBe(2 * READ_ATTEMPTS);
    state.failing = false;
    now += 60_000;
    expect(ids(await source())).toEqual(known);
  });
});
