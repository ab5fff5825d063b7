import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeleteCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { loadFeed, type FeedLoadRequest } from '../../../src/loading/feed-load.js';
import { LoadError } from '../../../src/loading/loader.js';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { scanLegItems } from '../../../src/loading/table-scan.js';
import { LEGS_INDEX } from '../../../src/tables.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { flakyClient } from '../../support/flaky-client.js';
import { storedLeg } from '../../support/legs.js';

/** Syncing feeds into DynamoDB Local: what is written, unlisted, refused, and how a failure is repaired. */
const NOW = new Date('2026-11-21T12:00:00Z');
const day = (n: number) => new Date(NOW.getTime() + n * 86_400_000).toISOString().slice(0, 10);

function feed(source: string, count: number, over: Partial<StoredLeg> = {}): StoredLeg[] {
  return Array.from({ length: count }, (_, i) =>
    storedLeg({ id: `${source.toUpperCase()}-${String(i).padStart(3, '0')}`, startDate: day(1 + (i % 20)), endDate: day(2 + (i % 20)), source, ...over }),
  );
}

type Item = Record<string, unknown>;
const byId = (items: readonly Item[]) => new Map(items.map((i) => [i.id as string, i]));

/**
 * The table's legs by id, each without its change stamp `lc` (the instant of its last incremental
 * write, src/snapshot/snapshot.ts: a write again changes it, and it says nothing of the leg).
 */
async function table(t: TestTables): Promise<Map<string, Item>> {
  return byId((await scanLegItems(t.client, t.legsTableName)).map(({ lc: _lc, ...item }) => item));
}

async function clear(t: TestTables): Promise<void> {
  for (const id of (await table(t)).keys()) await t.client.send(new DeleteCommand({ TableName: t.legsTableName, Key: { id } }));
}

/** Ids the listing index holds for a month bucket. */
async function indexed(client: DynamoDBDocumentClient, tableName: string, bucket: string): Promise<string[]> {
  const out = await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: LEGS_INDEX.indexName,
      KeyConditionExpression: '#b = :b',
      ExpressionAttributeNames: { '#b': LEGS_INDEX.partitionKey },
      ExpressionAttributeValues: { ':b': bucket },
    }),
  );
  return (out.Items ?? []).map((i) => i.id as string).sort();
}

describe('syncing feeds', () => {
  let t: TestTables;
  const acme = feed('acme', 40);
  const jetco = feed('jetco', 30);
  const sync = (legs: readonly StoredLeg[], more: Partial<FeedLoadRequest> = {}, client?: DynamoDBDocumentClient) =>
    loadFeed(client ?? t.client, t.legsTableName, { legs, mode: 'sync', now: NOW, ...more }, { sleep: () => Promise.resolve() });

  beforeAll(async () => {
    t = await createTestTables();
  });
  afterAll(async () => t.drop());

  async function seed(): Promise<Map<string, Item>> {
    await clear(t);
    await sync(acme);
    await sync(jetco);
    return table(t);
  }

  it('unlists the absent legs of the synced source (kept, out of the index) and leaves other sources as they were', async () => {
    const before = await seed();
    expect(before.size).toBe(70);
    const kept = acme.slice(0, 25);
    const outcome = await sync(kept);
    expect(outcome.status).toBe('loaded');
    expect([outcome.written, outcome.unlisted]).toEqual([0, 15]);
    const after = await table(t);
    expect(after.size).toBe(70);
    for (const leg of acme.slice(25)) {
      const item = after.get(leg.id)!;
      // the whole leg is kept with its instants, only `listed` changes (and with it the index attributes go)
      const { firstSeenAt, updatedAt, confirmedAt } = before.get(leg.id)!;
      expect(item).toEqual({ ...toStorageItem({ ...leg, listed: false }), firstSeenAt, updatedAt, confirmedAt });
      expect(item).not.toHaveProperty(LEGS_INDEX.partitionKey);
    }
    for (const leg of [...kept, ...jetco]) expect(after.get(leg.id)).toEqual(before.get(leg.id));
    const month = day(1).slice(0, 7);
    const inIndex = await indexed(t.client, t.legsTableName, month);
    for (const leg of acme.slice(25)) expect(inIndex).not.toContain(leg.id);
  });

  it('refuses a truncated feed (more than half of the listing of a source gone) and writes nothing; --force goes ahead', async () => {
    const before = await seed();
    const truncated = acme.slice(0, 10);
    const refused = await sync(truncated);
    expect(refused.status).toBe('refused');
    expect(refused.plan!.refusals).toEqual([{ source: 'acme', inListing: 40, leaving: 30 }]);
    expect(await table(t)).toEqual(before);
    const forced = await sync(truncated, { force: true });
    expect([forced.status, forced.unlisted]).toEqual(['loaded', 30]);
    // a later full feed brings them back
    const back = await sync(acme);
    expect([back.written, back.unlisted]).toEqual([30, 0]);
    expect(await table(t)).toEqual(before);
  });

  it('a dry run plans and writes nothing', async () => {
    const before = await seed();
    const changed = acme.map((l, i) => (i < 5 ? { ...l, price: 1000, currency: 'EUR' } : l)).slice(0, 30);
    const extra = feed('acme', 45).slice(40);
    const outcome = await sync([...changed, ...extra], { dryRun: true });
    expect(outcome.status).toBe('dry-run');
    expect(outcome.plan!.bySource).toEqual([
      { source: 'acme', synced: true, new: 5, changed: 5, unchanged: 25, unlist: 10, inListing: 40, leaving: 10 },
    ]);
    expect(await table(t)).toEqual(before);
  });

  it('is idempotent: the same sync again sends no write at all', async () => {
    await seed();
    await sync(acme.slice(0, 30));
    const after = await table(t);
    const counting = flakyClient(t.client, {});
    const again = await sync(acme.slice(0, 30), {}, counting.client);
    expect([again.written, again.unlisted, counting.batchWrites]).toEqual([0, 0, 0]);
    expect(await table(t)).toEqual(after);
  });

  it('retries the items DynamoDB hands back unprocessed until all are written', async () => {
    await clear(t);
    const flaky = flakyClient(t.client, { processOnly: 7 });
    const outcome = await sync(acme, {}, flaky.client);
    expect(outcome.written).toBe(40);
    expect(flaky.unprocessedReturned).toBeGreaterThan(0);
    expect([...(await table(t)).keys()].sort()).toEqual(acme.map((l) => l.id));
  });

  it('a failure part-way leaves a state that running the same sync again repairs', async () => {
    // The result of one clean sync, to compare with.
    await seed();
    const next = [...acme.slice(0, 22).map((l, i) => (i % 3 === 0 ? { ...l, seatNum: 9 } : l)), ...feed('acme', 60).slice(40)];
    await sync(next);
    const clean = await table(t);

    await seed();
    const broken = flakyClient(t.client, { failFrom: 2 });
    await expect(sync(next, {}, broken.client)).rejects.toThrow(LoadError);
    const partial = await table(t);
    expect(partial).not.toEqual(clean);
    const rerun = await sync(next);
    expect(rerun.status).toBe('loaded');
    expect(await table(t)).toEqual(clean);
  });

  it('upsert (no --sync) writes every leg and unlists nothing; a leg may move to another source', async () => {
    await seed();
    const moved = { ...acme[0]!, source: 'jetco' };
    const outcome = await loadFeed(t.client, t.legsTableName, { legs: [moved], mode: 'upsert', now: NOW });
    expect([outcome.status, outcome.written, outcome.unlisted, outcome.plan]).toEqual(['loaded', 1, 0, undefined]);
    const after = await table(t);
    expect(after.get(moved.id)!.source).toBe('jetco');
    expect(after.size).toBe(70);
    const plan = await loadFeed(t.client, t.legsTableName, { legs: [{ ...moved, source: 'acme' }], mode: 'upsert', dryRun: true, now: NOW });
    expect(plan.plan!.moves).toEqual([{ id: moved.id, from: 'jetco', to: 'acme' }]);
  });
});
