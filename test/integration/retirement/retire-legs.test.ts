import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { DeleteCommand, GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { writeLegs } from '../../../src/loading/loader.js';
import { retireDueLegs } from '../../../src/retirement/retire-legs.js';
import { EXPIRY_SHARD_KEYS, expiryShard } from '../../../src/kernel/retirement.js';
import { LONG_BUCKET, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { LEGS_EXPIRY_INDEX, LEGS_INDEX } from '../../../src/tables.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';

// The run's instant: 2026-06-15 09:00 UTC. Legs ending on 2026-06-13 or earlier have retired (their
// day after, 06-14, reached 12:00 UTC yesterday); a leg ending 06-14 is over in Europe but not yet
// in UTC-12 (until 06-15 12:00 UTC), so it stays.
const NOW = Date.parse('2026-06-15T09:00:00Z');
const DAY_S = 86_400;

const legs: StoredLeg[] = [
  // A long window (more than 28 days: the `long` bucket), over for months.
  storedLeg({ id: 'long-old', startDate: '2026-01-01', endDate: '2026-03-01' }),
  storedLeg({ id: 'short-old', startDate: '2026-06-10', endDate: '2026-06-13', depTimezone: 'Pacific/Kiritimati' }),
  storedLeg({ id: 'unlisted-old', startDate: '2026-06-01', endDate: '2026-06-02', listed: false }),
  storedLeg({ id: 'ends-yesterday', startDate: '2026-06-14', endDate: '2026-06-14', depTimezone: 'Europe/Paris' }),
  storedLeg({ id: 'long-live', startDate: '2026-05-01', endDate: '2026-08-01' }),
  storedLeg({ id: 'future', startDate: '2026-07-01', endDate: '2026-07-02' }),
];
const retiredIds = ['long-old', 'short-old', 'unlisted-old'];

describe('retiring the legs expired everywhere (DynamoDB Local)', () => {
  let t: TestTables;

  beforeAll(async () => {
    t = await createTestTables();
  });
  afterAll(async () => t.drop());
  beforeEach(async () => {
    const out = await t.client.send(new ScanCommand({ TableName: t.legsTableName }));
    for (const item of out.Items ?? []) await t.client.send(new DeleteCommand({ TableName: t.legsTableName, Key: { id: String(item.id) } }));
  });

  const item = async (id: string) => (await t.client.send(new GetCommand({ TableName: t.legsTableName, Key: { id } }))).Item!;
  const bucket = async (lb: string) =>
    (
      await t.client.send(
        new QueryCommand({
          TableName: t.legsTableName,
          IndexName: LEGS_INDEX.indexName,
          KeyConditionExpression: 'lb = :lb',
          ExpressionAttributeValues: { ':lb': lb },
        }),
      )
    ).Items!.map((i) => String(i.ls).slice(11));
  const stillInExpiryIndex = async () => {
    const ids: string[] = [];
    for (const xp of EXPIRY_SHARD_KEYS) {
      const out = await t.client.send(
        new QueryCommand({ TableName: t.legsTableName, IndexName: LEGS_EXPIRY_INDEX.indexName, KeyConditionExpression: 'xp = :xp', ExpressionAttributeValues: { ':xp': xp } }),
      );
      ids.push(...(out.Items ?? []).map((i) => String(i.id)));
    }
    return ids.sort();
  };

  it('takes the due legs out of the listing index and sets their ttl', async () => {
    await writeLegs(t.client, t.legsTableName, legs);
    expect(await bucket(LONG_BUCKET)).toEqual(['long-old', 'long-live']);

    const report = await retireDueLegs(t.client, t.legsTableName, { now: NOW });

    expect(report).toMatchObject({ dueDay: '2026-06-14', found: 3, retired: 3, unlisted: 2, skipped: 0, behind: [] });
    // One Query per shard: nothing else read.
    expect(report.queries).toBe(EXPIRY_SHARD_KEYS.length);
    for (const id of retiredIds) {
      const it = await item(id);
      const endDate = legs.find((l) => l.id === id)!.endDate;
      // Out of the listing index and of byExpiry; its shard stays.
      expect([id, 'lb' in it, 'ls' in it, 'lf' in it, 'xd' in it, it.xp]).toEqual([id, false, false, false, false, expiryShard(id)]);
      // 30 days after the day after endDate, 12:00 UTC.
      expect(it.ttl).toBe(Date.parse(`${endDate}T12:00:00Z`) / 1000 + DAY_S + 30 * DAY_S);
      // The leg itself is kept until then.
      expect(it.endDate).toBe(endDate);
    }
    for (const id of ['ends-yesterday', 'long-live', 'future']) {
      const it = await item(id);
      expect([id, it.ttl, typeof it.lb, it.xp]).toEqual([id, undefined, 'string', expiryShard(id)]);
    }
    // The long bucket holds only legs that can still be listed.
    expect(await bucket(LONG_BUCKET)).toEqual(['long-live']);
    expect(await stillInExpiryIndex()).toEqual(['ends-yesterday', 'future', 'long-live'].sort());

  });

  it('a second run finds nothing and writes nothing; a day later the next leg goes', async () => {
    await writeLegs(t.client, t.legsTableName, legs);
    await retireDueLegs(t.client, t.legsTableName, { now: NOW });
    const again = await retireDueLegs(t.client, t.legsTableName, { now: NOW });
    expect(again).toMatchObject({ found: 0, retired: 0 });
    // 06-15 12:00 UTC: the leg that ended 06-14 is over in UTC-12 too.
    const later = await retireDueLegs(t.client, t.legsTableName, { now: Date.parse('2026-06-15T12:00:00Z') });
    expect(later).toMatchObject({ dueDay: '2026-06-15', retired: 1, unlisted: 1 });
    expect((await item('ends-yesterday')).lb).toBeUndefined();
  });

  it('a leg loaded again with a later end is left alone; loading a retired leg again clears its ttl', async () => {
    await writeLegs(t.client, t.legsTableName, legs);
    await retireDueLegs(t.client, t.legsTableName, { now: NOW });
    await writeLegs(t.client, t.legsTableName, [storedLeg({ id: 'short-old', startDate: '2026-06-10', endDate: '2026-06-30' })]);
    const it = await item('short-old');
    expect([it.ttl, typeof it.lb, it.xd]).toEqual([undefined, 'string', '2026-07-01']);
    expect(await retireDueLegs(t.client, t.legsTableName, { now: NOW })).toMatchObject({ found: 0, retired: 0 });
  });

  it('behind its bound, a run leaves the rest to the next, which goes on where it stopped', async () => {
    // Twelve expired legs: more than one per shard, so a bound of one a shard leaves some behind.
    const many = Array.from({ length: 12 }, (_, i) => storedLeg({ id: `old-${i}`, startDate: '2026-05-01', endDate: '2026-05-02' }));
    await writeLegs(t.client, t.legsTableName, many);
    const crowded = new Set(many.map((l) => expiryShard(l.id)).filter((s, _, all) => all.filter((x) => x === s).length > 1));
    const first = await retireDueLegs(t.client, t.legsTableName, { now: NOW, maxPerShard: 1 });
    expect(first.behind.sort()).toEqual([...crowded].sort());
    let runs = 1;
    let retired = first.retired;
    for (let r = first; r.behind.length > 0; runs++) {
      r = await retireDueLegs(t.client, t.legsTableName, { now: NOW, maxPerShard: 1 });
      retired += r.retired;
    }
    expect(retired).toBe(many.length);
    expect(runs).toBeGreaterThan(1);
    expect(await stillInExpiryIndex()).toEqual([]);
  });
});
