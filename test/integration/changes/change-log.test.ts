import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { createStreamsClient } from '../../../src/aws/dynamodb-streams.js';
import { decodeCursor, encodeCursor } from '../../../src/changes/cursor.js';
import { readChanges } from '../../../src/changes/feed.js';
import { createChangeConsumerHandler } from '../../../src/changes/handlers.js';
import { createChangeLogStore, ENTRY_PREFIX, GROUP_SIZE, type ChangeLogStore } from '../../../src/changes/store.js';
import type { ListingTransition } from '../../../src/changes/transition.js';
import { AppError } from '../../../src/errors.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { toApiRecord } from '../../../src/kernel/model.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { createStreamPoller, type StreamPoller } from '../../../local/stream-poller.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';

/**
 * The change log on DynamoDB Local: the legs table's stream, read by the local poller, fed to the
 * consumer's handler, whatever wrote the items (the loader, hand-made PutItem, UpdateItem,
 * DeleteItem); the feed read back from the table; a consumer stopped in the middle of a batch and
 * resumed from its checkpoint applies every change once.
 */
const AT = Date.parse('2026-11-25T10:00:00Z');
const clock = () => AT;
const KEY = 'cursor-key-of-the-tests-0123456789abcdef';
const leg = (id: string, fields: Partial<Parameters<typeof storedLeg>[0]> = {}) =>
  storedLeg({ id, startDate: '2026-12-01', endDate: '2026-12-05', price: 100, ...fields });

let t: TestTables;
beforeAll(async () => {
  t = await createTestTables();
});
afterAll(async () => {
  await t.drop();
});

function poller(handle: (e: DynamoDBStreamEvent) => Promise<unknown>, checkpoints?: Map<string, string>): StreamPoller {
  return createStreamPoller({
    streams: createStreamsClient({ endpoint: t.endpoint }),
    client: t.client,
    tableName: t.legsTableName,
    handle,
    idleMs: 50,
    ...(checkpoints ? { checkpoints } : {}),
  });
}

async function readAll(store: ChangeLogStore, after: string | undefined, now = AT) {
  const changes = [];
  let cursor = after;
  for (;;) {
    const page = await readChanges({ after: cursor === undefined ? undefined : decodeCursor(cursor, KEY), size: 7 }, { store, clock: () => now, cursorKey: KEY });
    changes.push(...page.changes);
    cursor = page.cursor;
    if (!page.hasMore) return { changes, cursor };
  }
}

describe('the change log fed by the stream', () => {
  it('every writer counts: loader, hand-made put (listed), update (blocked), delete; the feed says listed, updated, withdrawn, in order', async () => {
    const store = createChangeLogStore(t.client, t.legsTableName);
    const seen: ListingTransition[] = [];
    const handler = createChangeConsumerHandler({
      store,
      clock,
      stage: 'sandbox',
      emit: () => undefined,
      subscribers: [(batch) => Promise.resolve(void seen.push(...batch))],
    });
    const p = poller(handler);
    const start = await readAll(store, undefined);
    expect(start.changes).toEqual([]);

    await writeLegs(t.client, t.legsTableName, [leg('T1'), leg('T2')]);
    await t.client.send(new PutCommand({ TableName: t.legsTableName, Item: toStorageItem(leg('H1', { price: 5 })) }));
    await t.client.send(new PutCommand({ TableName: t.legsTableName, Item: toStorageItem(leg('H1', { price: 6 })) }));
    await t.client.send(
      new UpdateCommand({
        TableName: t.legsTableName,
        Key: { id: 'T2' },
        UpdateExpression: 'SET blocked = :b REMOVE lb, ls, lf',
        ExpressionAttributeValues: { ':b': true },
      }),
    );
    await t.client.send(new DeleteCommand({ TableName: t.legsTableName, Key: { id: 'T1' } }));
    await p.drain();

    const after = await readAll(store, start.cursor);
    expect(after.changes.map((c) => [c.type, c.id, c.leg?.price ?? null])).toEqual([
      ['listed', 'T1', 100],
      ['listed', 'T2', 100],
      ['listed', 'H1', 5],
      ['updated', 'H1', 6],
      ['withdrawn', 'T2', null],
      ['withdrawn', 'T1', null],
    ]);
    expect(after.changes[3]!.leg).toEqual(toApiRecord(toStorageItem(leg('H1', { price: 6 }))));
    // The subscribers get what moved the listing only: the consumer's own writes (H1's instants, T2's expiry-index
    // attribute removed) come back on the stream and move nothing (src/changes/moves.ts).
    expect(seen.map((s) => [s.id, s.before?.price ?? null, s.after?.price ?? null])).toEqual([
      ['T1', null, 100],
      ['T2', null, 100],
      ['H1', null, 5],
      ['H1', 5, 6],
      ['T2', 100, null],
      ['T1', 100, null],
    ]);

    // A new mirror starts with the listing as it is: H1 only.
    const fresh = await readAll(store, undefined);
    expect(fresh.changes.map((c) => [c.type, c.id])).toEqual([['listed', 'H1']]);
  });

  it('a consumer stopped in the middle of a batch, then resumed from its checkpoint, applies every change once', async () => {
    const store = createChangeLogStore(t.client, t.legsTableName);
    const before = await store.head();
    const count = GROUP_SIZE * 2 + 5;
    const ids = Array.from({ length: count }, (_, i) => `S${String(i).padStart(3, '0')}`);
    // Put as a load writes them (with their instants): the consumer has nothing to write back.
    const at = Date.parse('2026-11-01T00:00:00Z');
    const stamped = (id: string) => toStorageItem({ ...leg(id), firstSeenAt: at, updatedAt: at, confirmedAt: at });
    for (const id of ids) await t.client.send(new PutCommand({ TableName: t.legsTableName, Item: stamped(id) }));

    // The first consumer commits one group of its first batch, then stops (its process ends).
    const checkpoints = new Map<string, string>();
    let first: StreamPoller | undefined = undefined;
    let appends = 0;
    const stopping: ChangeLogStore = {
      ...store,
      async append(group, at) {
        if (++appends > 1) {
          void first!.stop();
          throw new Error('the consumer stopped');
        }
        return store.append(group, at);
      },
    };
    first = poller(createChangeConsumerHandler({ store: stopping, clock, stage: 'sandbox', emit: () => undefined }), checkpoints);
    first.start();
    while (appends < 2) await new Promise((r) => setTimeout(r, 20));
    await first.stop();
    expect((await store.head()) - before).toBe(GROUP_SIZE);

    const second = poller(createChangeConsumerHandler({ store, clock, stage: 'sandbox', emit: () => undefined }), checkpoints);
    await second.drain();
    const head = await store.head();
    const entries = await store.entries(before + 1, head);
    expect(entries.map((e) => e!.id).sort()).toEqual(ids);
    expect(entries.every((e) => e!.type === 'listed')).toBe(true);
  });

  it('a cursor older than 30 days, or one whose following entries expired, is CURSOR_EXPIRED; one from elsewhere is INVALID_PARAMETER', async () => {
    const store = createChangeLogStore(t.client, t.legsTableName);
    const { cursor } = await readAll(store, undefined);
    const later = AT + 31 * 86_400_000;
    await expect(readChanges({ after: decodeCursor(cursor, KEY), size: 10 }, { store, clock: () => later, cursorKey: KEY })).rejects.toMatchObject({ code: 'CURSOR_EXPIRED', status: 410 });
    // Entry 1 deleted (as TTL deletes it): a cursor before it has lost changes.
    await t.client.send(new DeleteCommand({ TableName: t.legsTableName, Key: { id: `${ENTRY_PREFIX}1` } }));
    const old = encodeCursor({ kind: 'log', seq: 0, safeAt: AT }, KEY);
    await expect(readChanges({ after: decodeCursor(old, KEY), size: 10 }, { store, clock, cursorKey: KEY })).rejects.toMatchObject({ code: 'CURSOR_EXPIRED' });
    const ahead = encodeCursor({ kind: 'log', seq: 1_000_000, safeAt: AT }, KEY);
    await expect(readChanges({ after: decodeCursor(ahead, KEY), size: 10 }, { store, clock, cursorKey: KEY })).rejects.toBeInstanceOf(AppError);
    expect(() => decodeCursor('not a cursor!', KEY)).toThrow("Invalid parameter 'after'");
  });
});
