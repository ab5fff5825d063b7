// @dateIndependent: the data, the months it expects and the build all follow the tests' today; 1,300 legs are too many to load eight times.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeleteCommand, GetCommand, PutCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { demoLegs } from '../../../local/demo/index.js';
import { addDays } from '../../../src/kernel/dates.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { createChangeSource } from '../../../src/changes/follow.js';
import { createChangeLogStore } from '../../../src/changes/store.js';
import type { StreamPoller } from '../../../local/stream-poller.js';
import { startChangeConsumer } from '../../support/change-consumer.js';
import { createLegsRepository, type LegsRepository, type StartDateRange } from '../../../src/listing/repository.js';
import { partId, partIds, SNAPSHOT_MANIFEST_ID, SNAPSHOT_PART_PREFIX } from '../../../src/snapshot/snapshot.js';
import { buildSnapshot as build, INDEX_LAG_MS, readManifest, snapshotMonths } from '../../../src/snapshot/snapshot-build.js';
import { withSnapshot } from '../../../src/listing/snapshot-read.js';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { type IndexEntry } from '../../../src/kernel/index-entry.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { testClock, testToday } from '../../support/clock.js';

/**
 * The listing snapshot against DynamoDB Local (src/snapshot/, src/listing/snapshot-read.ts), with the change consumer
 * running on the table's stream: built after a large load, read with the change log since, without
 * a position, raced, missing a part, built again. Whatever the state, a bucket read through the snapshot must give what the listing index
 * gives (createLegsRepository), entry for entry and in the same order.
 *
 * The tests run in order on one table: each starts from the state the one before left.
 */
const TODAY = testToday();
const LEGS = demoLegs(TODAY, { count: 1_300, months: 6 });
const MONTHS = snapshotMonths(TODAY);
/** A month no build reads (two years back): always read from the index. */
const OUTSIDE = `${Number(TODAY.slice(0, 4)) - 2}${TODAY.slice(4, 7)}`;

const visible = (l: StoredLeg) => l.listed && !l.blocked;
const bucketOfLeg = (l: StoredLeg) => toStorageItem(l).lb as string;
const keysOf = (entries: readonly IndexEntry[]) => entries.map((e) => `${e.startDate}#${e.id}`);

/** A client that sees every command before the real one sends it (and may act first). */
function spyClient(real: DynamoDBDocumentClient, before?: (command: object) => Promise<void>) {
  const sent: object[] = [];
  const send = real.send.bind(real) as (command: object) => Promise<unknown>;
  const client = Object.create(real) as DynamoDBDocumentClient;
  client.send = async (command: object) => {
    sent.push(command);
    await before?.(command);
    return send(command);
  };
  return { client, sent };
}

describe('the listing snapshot on DynamoDB Local', () => {
  let t: TestTables;
  let index: LegsRepository;
  /** The legs as the table holds them now (the test's own record of what it wrote). */
  const current = new Map<string, StoredLeg>();

  let consumer: StreamPoller;

  beforeAll(async () => {
    t = await createTestTables();
    index = createLegsRepository(t.client, t.legsTableName);
    consumer = startChangeConsumer(t);
  });
  afterAll(async () => {
    await consumer.stop();
    await t.drop();
  });

  const log = () => createChangeSource(createChangeLogStore(t.client, t.legsTableName));
  const reader = (client = t.client) => withSnapshot(index, client, t.legsTableName, log());
  /** A build once what was written is logged, INDEX_LAG_MS later (its delta starts after those writes). */
  const buildSnapshot = async (client = t.client) => {
    await consumer.drain();
    return build(client, t.legsTableName, { clock: () => testClock() + INDEX_LAG_MS + 1_000 });
  };

  /**
   * Ranges of a bucket from its own dates (read from the index): open, and with `all`, from, to,
   * both, one day, between two dates (when they are apart), none.
   */
  async function rangesOf(bucket: string, all: boolean): Promise<StartDateRange[]> {
    const entries = await index.queryBucket(bucket);
    const ranges: StartDateRange[] = [{}];
    if (entries.length > 0) {
      const a = entries[Math.floor(entries.length / 3)]!.startDate;
      const b = entries[Math.floor((2 * entries.length) / 3)]!.startDate;
      ranges.push({ from: a, to: b });
      if (all) {
        ranges.push({ from: a }, { to: a }, { from: b, to: b });
        // The index refuses an inverted range (BETWEEN), which the listing never asks for.
        if (addDays(a, 1) <= addDays(b, -1)) ranges.push({ from: addDays(a, 1), to: addDays(b, -1) });
      }
    }
    if (all) ranges.push({ from: '1999-01-01', to: '1999-12-31' });
    return ranges;
  }

  /**
   * Every bucket the build reads, and one it does not, in a few ranges (`all`: many): the snapshot's
   * read equals the index's. Returns the reads made through the snapshot reader, and of those, of
   * the bucket outside the build's months.
   */
  async function expectSameAsIndex(snapshot: LegsRepository, all = false): Promise<{ reads: number; outside: number }> {
    let reads = 0;
    let outside = 0;
    for (const bucket of [...MONTHS.buckets, OUTSIDE]) {
      const ranges = await rangesOf(bucket, all);
      await Promise.all(
        ranges.map(async (range) => {
          const [fromSnapshot, fromIndex] = await Promise.all([snapshot.queryBucket(bucket, range), index.queryBucket(bucket, range)]);
          expect([bucket, range, keysOf(fromSnapshot)]).toEqual([bucket, range, keysOf(fromIndex)]);
        }),
      );
      reads += ranges.length;
      if (bucket === OUTSIDE) outside += ranges.length;
    }
    return { reads, outside };
  }

  /** What the index should hold for `bucket`, from the test's own record of the legs. */
  const expectedKeys = (bucket: string) =>
    [...current.values()]
      .filter((l) => visible(l) && bucketOfLeg(l) === bucket)
      .map((l) => `${l.startDate}#${l.id}`)
      .sort();

  async function snapshotPartIdsStored(): Promise<string[]> {
    const ids: string[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const out = await t.client.send(new ScanCommand({ TableName: t.legsTableName, ProjectionExpression: 'id', ExclusiveStartKey }));
      for (const item of out.Items ?? []) if (String(item.id).startsWith(SNAPSHOT_PART_PREFIX)) ids.push(String(item.id));
      ExclusiveStartKey = out.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return ids.sort();
  }

  async function exists(id: string): Promise<boolean> {
    const out = await t.client.send(new GetCommand({ TableName: t.legsTableName, Key: { id }, ConsistentRead: true }));
    return out.Item !== undefined;
  }

  /** Writes, recorded, once the change log has them. */
  async function writeSome(legs: StoredLeg[]) {
    await writeLegs(t.client, t.legsTableName, legs);
    await consumer.drain();
    for (const l of legs) current.set(l.id, l);
  }

  /** A listed leg in a month bucket of the snapshot, not `except`. */
  function listedLegIn(predicate: (l: StoredLeg) => boolean, except: string[] = []): StoredLeg {
    const found = [...current.values()].find(
      (l) => visible(l) && !except.includes(l.id) && bucketOfLeg(l) !== 'long' && MONTHS.buckets.includes(bucketOfLeg(l)) && predicate(l),
    );
    if (!found) throw new Error('the demo data has no such leg');
    return found;
  }

  it('a build after a large load publishes a snapshot, and every bucket read through it equals the index read, with no index read', async () => {
    await writeSome(LEGS);
    const inSnapshot = LEGS.filter((l) => visible(l) && MONTHS.buckets.includes(bucketOfLeg(l)));
    const result = await buildSnapshot();
    expect([result.published, result.entries]).toEqual([true, inSnapshot.length]);

    const manifest = await readManifest(t.client, t.legsTableName);
    expect(manifest).toMatchObject({ firstMonth: MONTHS.first, lastMonth: MONTHS.last, logSeq: await createChangeLogStore(t.client, t.legsTableName).head() });
    for (const bucket of MONTHS.buckets) {
      expect([bucket, manifest!.buckets[bucket]?.entries ?? 0]).toEqual([bucket, expectedKeys(bucket).length]);
    }
    // Every part the manifest names is stored, and no other.
    expect(await snapshotPartIdsStored()).toEqual(partIds(manifest!).sort());

    const spy = spyClient(t.client);
    const snapshot = reader(spy.client);
    const { reads, outside } = await expectSameAsIndex(snapshot, true);
    // The whole buckets are also what the legs say (not only what the index says).
    for (const bucket of MONTHS.buckets) expect(keysOf(await snapshot.queryBucket(bucket))).toEqual(expectedKeys(bucket));
    expect(snapshot.stats).toEqual({ snapshotReads: reads - outside + MONTHS.buckets.length, indexReads: outside });
    // The snapshot's own reads never touch the listing index.
    for (const command of spy.sent) expect((command as { input: { IndexName?: string } }).input.IndexName).not.toBe('byDepartureBucket');
  }, 180_000);

  it('shows a write (blocked, moved to another month, new) to a new reader, through the change log since the build', async () => {
    const blocked = listedLegIn(() => true);
    const moved = listedLegIn((l) => l.startDate === l.endDate || l.endDate <= addDays(l.startDate, 3), [blocked.id]);
    // 35 days later: another month bucket, still one the snapshot holds (the demo legs start within 6 months).
    const movedTo = { ...moved, startDate: addDays(moved.startDate, 35), endDate: addDays(moved.endDate, 35) };
    expect(bucketOfLeg(movedTo)).not.toBe(bucketOfLeg(moved));
    expect(MONTHS.buckets).toContain(bucketOfLeg(movedTo));
    const added = { ...blocked, id: 'snapshot-test-new-leg', startDate: addDays(TODAY, 10), endDate: addDays(TODAY, 11), blocked: false };
    const before = await readManifest(t.client, t.legsTableName);
    await writeSome([{ ...blocked, blocked: true }, movedTo, added]);
    // The manifest is the one built before: what changed is only in the change log.
    expect((await readManifest(t.client, t.legsTableName))?.token).toBe(before!.token);

    const snapshot = reader();
    const { outside } = await expectSameAsIndex(snapshot, true);
    expect(snapshot.stats.indexReads).toBe(outside);
    const keys = async (bucket: string) => keysOf(await snapshot.queryBucket(bucket));
    expect(await keys(bucketOfLeg(blocked))).not.toContain(`${blocked.startDate}#${blocked.id}`);
    expect(await keys(bucketOfLeg(moved))).not.toContain(`${moved.startDate}#${moved.id}`);
    expect(await keys(bucketOfLeg(movedTo))).toContain(`${movedTo.startDate}#${moved.id}`);
    expect(await keys(bucketOfLeg(added))).toContain(`${added.startDate}#${added.id}`);
    for (const bucket of MONTHS.buckets) expect(await keys(bucket)).toEqual(expectedKeys(bucket));
  }, 60_000);

  it('a reader that read the manifest before a write sees the write once invalidated', async () => {
    const snapshot = reader();
    const leg = listedLegIn(() => true);
    const bucket = bucketOfLeg(leg);
    expect(keysOf(await snapshot.queryBucket(bucket))).toContain(`${leg.startDate}#${leg.id}`);
    await writeSome([{ ...leg, listed: false }]);
    snapshot.invalidate();
    expect(keysOf(await snapshot.queryBucket(bucket))).toEqual(expectedKeys(bucket));
    expect(keysOf(await snapshot.queryBucket(bucket))).not.toContain(`${leg.startDate}#${leg.id}`);
  });

  it('a manifest without a change log position (written before the log) serves no read (the index does, the same); a build publishes one', async () => {
    await t.client.send(new UpdateCommand({ TableName: t.legsTableName, Key: { id: SNAPSHOT_MANIFEST_ID }, UpdateExpression: 'REMOVE lq' }));
    const old = reader();
    const oldPass = await expectSameAsIndex(old);
    expect(old.stats).toEqual({ snapshotReads: 0, indexReads: oldPass.reads });

    const built = await buildSnapshot();
    expect(built.published).toBe(true);
    const fresh = reader();
    const { reads, outside } = await expectSameAsIndex(fresh);
    expect(fresh.stats).toEqual({ snapshotReads: reads - outside, indexReads: outside });
  }, 60_000);

  it('a rebuild with nothing changed writes nothing; a change rewrites its bucket only, and the old parts go one build later', async () => {
    const first = await buildSnapshot();
    const unchanged = await buildSnapshot();
    expect([unchanged.published, unchanged.partsWritten]).toEqual([true, 0]);
    expect(unchanged.manifest!.buckets).toEqual(first.manifest!.buckets);
    expect(unchanged.manifest!.retired).toEqual([]);

    const leg = listedLegIn(() => true);
    const bucket = bucketOfLeg(leg);
    await writeSome([{ ...leg, depCityName: `${leg.depCityName} Renamed` }]);
    const changed = await buildSnapshot();
    const [was, now] = [unchanged.manifest!, changed.manifest!];
    expect(now.buckets[bucket]!.hash).not.toBe(was.buckets[bucket]!.hash);
    expect(changed.partsWritten).toBe(now.buckets[bucket]!.parts);
    for (const [b, parts] of Object.entries(now.buckets)) if (b !== bucket) expect([b, parts]).toEqual([b, was.buckets[b]]);
    const superseded = Array.from({ length: was.buckets[bucket]!.parts }, (_, k) => partId(bucket, was.buckets[bucket]!.hash, k));
    expect([...now.retired].sort()).toEqual([...superseded].sort());
    // Still there for the readers of the previous manifest...
    for (const id of superseded) expect([id, await exists(id)]).toEqual([id, true]);

    const later = await buildSnapshot();
    expect([later.partsWritten, later.partsDeleted]).toEqual([0, superseded.length]);
    // ...gone one build later.
    for (const id of superseded) expect([id, await exists(id)]).toEqual([id, false]);
    expect(await snapshotPartIdsStored()).toEqual(partIds(later.manifest!).sort());
    await expectSameAsIndex(reader());
  }, 60_000);

  it('a build that another build publishes before does not publish, and leaves no part of its own behind', async () => {
    // A change, so that the build writes parts of its own.
    const leg = listedLegIn(() => true);
    await writeSome([{ ...leg, arrCityName: `${leg.arrCityName} Again` }]);
    let raced = false;
    const racing = spyClient(t.client, async (command) => {
      if (!raced && command instanceof PutCommand && command.input.Item?.id === SNAPSHOT_MANIFEST_ID) {
        raced = true;
        expect((await buildSnapshot()).published).toBe(true);
      }
    });
    const result = await buildSnapshot(racing.client);
    expect(raced).toBe(true);
    expect(result.published).toBe(false);
    expect(result.partsWritten).toBeGreaterThan(0);

    const manifest = (await readManifest(t.client, t.legsTableName))!;
    const named = new Set([...partIds(manifest), ...manifest.retired]);
    const orphans = (await snapshotPartIdsStored()).filter((id) => !named.has(id));
    expect(orphans).toEqual([]);
    const fresh = reader();
    await expectSameAsIndex(fresh);
    expect(fresh.stats.snapshotReads).toBeGreaterThan(0);
  }, 60_000);

  it('a bucket whose part is missing is read from the index, and the answer is still right', async () => {
    const manifest = (await readManifest(t.client, t.legsTableName))!;
    const [bucket, parts] = Object.entries(manifest.buckets).find(([b]) => b !== 'long')!;
    await t.client.send(new DeleteCommand({ TableName: t.legsTableName, Key: { id: partId(bucket, parts.hash, 0) } }));

    const snapshot = reader();
    expect(keysOf(await snapshot.queryBucket(bucket))).toEqual(expectedKeys(bucket));
    expect(snapshot.stats).toEqual({ snapshotReads: 0, indexReads: 1 });
    const other = MONTHS.buckets.find((b) => b !== bucket && manifest.buckets[b] !== undefined)!;
    expect(keysOf(await snapshot.queryBucket(other))).toEqual(expectedKeys(other));
    expect(snapshot.stats).toEqual({ snapshotReads: 1, indexReads: 1 });
    await expectSameAsIndex(reader());
  }, 60_000);
});
