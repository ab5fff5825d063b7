import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_RATE_LIMIT } from '../../src/keys/rate-limit.js';
import { createAuthorizerHandler } from '../../src/keys/authorizer-handler.js';
import { createKey, revokeKey, rotateKey } from '../../src/keys/store.js';
import { withChangeAwareCache } from '../../src/legs/change-aware-cache.js';
import { addDays } from '../../src/legs/dates.js';
import { appendChanges, createJournalSource } from '../../src/legs/journal.js';
import { writeLegs } from '../../src/legs/loader.js';
import { listEmptyLegs } from '../../src/legs/list-legs.js';
import { MatchMemo } from '../../src/legs/match-memo.js';
import { parseListQuery } from '../../src/legs/query.js';
import { createLegsRepository } from '../../src/legs/repository.js';
import { toStorageItem, type StoredLeg } from '../../src/legs/storage.js';
import { createTestTables, type TestTables } from '../support/dynamodb.js';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { storedLeg } from '../support/legs.js';
import { testClock, testNow, testToday } from '../support/clock.js';

/**
 * How fresh the caches are, measured against DynamoDB Local: a change made with the project's write
 * paths (writeLegs, the key store) is seen by every warm container within 2 s of real time; a write
 * that bypasses them is seen at the ceiling (controlled clock); the grace deadline is exact.
 */
const today = testToday();
const leg = (id: string, start: number, over: Partial<StoredLeg> = {}): StoredLeg =>
  storedLeg({ id, startDate: addDays(today, start), endDate: addDays(today, start + 1), ...over });

const withKey = (key: string) =>
  ({ type: 'REQUEST', headers: { 'x-api-key': key }, requestContext: { requestId: 'req' } }) as unknown as APIGatewayRequestAuthorizerEventV2;
const ctx = (v: { context: unknown }) => v.context as Record<string, unknown>;

let t: TestTables;
beforeAll(async () => {
  t = await createTestTables();
  await writeLegs(t.client, t.legsTableName, Array.from({ length: 60 }, (_, i) => leg(`base-${i}`, i % 40)));
});
afterAll(async () => {
  await t.drop();
});

function container(clock: () => number = testClock, ceilingMs = 900_000) {
  const cache = withChangeAwareCache(createLegsRepository(t.client, t.legsTableName), createJournalSource(t.client, t.legsTableName), {
    ceilingMs,
    clock,
  });
  const memo = new MatchMemo();
  return {
    cache,
    ids: async (params: Record<string, string> = { size: '100' }, now = new Date(clock())) =>
      (await listEmptyLegs(parseListQuery(params), { repository: cache, now, memo })).records.map((r) => r.id),
  };
}

/** Polls until `ok` holds for every container; the real time it took, in ms. */
async function timeUntil(ok: () => Promise<boolean>, limitMs = 10_000): Promise<number> {
  const start = performance.now();
  while (!(await ok())) {
    if (performance.now() - start > limitMs) throw new Error(`not seen within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - start;
}

describe('listing cache: change-aware', () => {
  it('every warm container sees legs written with writeLegs within 2 s, and reads only the change', async () => {
    const containers = [container(), container(), container()];
    for (const c of containers) expect(await c.ids()).not.toContain('fresh-1');
    const queriesBefore = containers.map((c) => c.cache.stats.headReads);

    await writeLegs(t.client, t.legsTableName, [leg('fresh-1', 2), leg('base-3', 3, { blocked: true }), leg('base-5', 30)]);
    const written = performance.now();
    const elapsed = await timeUntil(async () => {
      const seen = await Promise.all(containers.map((c) => c.ids()));
      return seen.every((ids) => ids.includes('fresh-1') && !ids.includes('base-3'));
    });
    expect(performance.now() - written).toBeLessThan(2_000);
    expect(elapsed).toBeLessThan(2_000);
    for (const [i, c] of containers.entries()) {
      expect(c.cache.stats.headReads).toBeGreaterThan(queriesBefore[i]!);
      expect(c.cache.stats.fullReloads).toBe(0);
    }
    // What a fresh container (an oracle reading the index) answers, in the same order.
    expect(await containers[0]!.ids()).toEqual(await container().ids());
  });

  it('reads the head at most once a second (controlled clock)', async () => {
    let clock = testNow();
    const c = container(() => clock);
    await c.ids();
    await c.ids();
    clock += 999;
    await c.ids();
    expect(c.cache.stats.headReads).toBe(1);
    clock += 1;
    await c.ids();
    expect(c.cache.stats.headReads).toBe(2);
  });

  it('a write that bypasses the journal is seen at the ceiling, not before (controlled clock)', async () => {
    let clock = testNow();
    const c = container(() => clock, 60_000);
    await c.ids();
    await t.client.send(new PutCommand({ TableName: t.legsTableName, Item: toStorageItem(leg('bypass-1', 1)) }));
    clock += 59_999;
    expect(await c.ids()).not.toContain('bypass-1');
    clock += 1;
    expect(await c.ids()).toContain('bypass-1');
  });

  it('a container that fell behind the journal re-reads everything and answers like a fresh one', async () => {
    let clock = testNow();
    const c = container(() => clock);
    await c.ids();
    // More change sets than the head holds and than one slot read may fetch (100).
    for (let i = 0; i <= 100; i++) {
      await appendChanges(t.client, t.legsTableName, [{ id: `no-such-leg-${'x'.repeat(50)}-${i}` }]);
    }
    await writeLegs(t.client, t.legsTableName, [leg('after-gap', 4)]);
    clock += 1_000;
    const ids = await c.ids();
    expect(c.cache.stats).toMatchObject({ fullReloads: 1, slotReads: 1 });
    expect(ids).toContain('after-gap');
    expect(ids).toEqual(await container().ids());
  });

  it('a burst of change sets beyond the head is fetched from the slots, not re-read', async () => {
    let clock = testNow();
    const c = container(() => clock);
    await c.ids();
    const burst = Array.from({ length: 200 }, (_, i) => leg(`burst-${i}`, i % 20));
    await writeLegs(t.client, t.legsTableName, burst);
    clock += 1_000;
    const ids = await c.ids({ size: '100', page: '1' });
    expect(c.cache.stats.fullReloads).toBe(0);
    expect(c.cache.stats.slotReads).toBe(1);
    expect(ids).toEqual(await container().ids({ size: '100', page: '1' }));
  });
});

describe('authorizer: keys version', () => {
  const authorizer = (now?: () => number) =>
    createAuthorizerHandler({ client: t.client, tableName: t.keysTableName, stage: 'sandbox', ...(now ? { now } : {}) });

  it('every warm container refuses a revoked key within 2 s', async () => {
    const { key, record } = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'] });
    const containers = [authorizer(), authorizer(), authorizer()];
    for (const h of containers) expect((await h(withKey(key))).context).toMatchObject({ verdict: 'ok' });
    await revokeKey(t.client, t.keysTableName, record.keyId);
    const elapsed = await timeUntil(async () => {
      const verdicts = await Promise.all(containers.map((h) => h(withKey(key))));
      return verdicts.every((v) => ctx(v).verdict === 'error' && ctx(v).errorCode === 'API_KEY_INVALID');
    });
    expect(elapsed).toBeLessThan(2_000);
  });

  it('every warm container marks a just-rotated key deprecated within 2 s', async () => {
    // The highest rate limit: the polling below asks far more often than the default allows.
    const { key, record } = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], rateLimit: MAX_RATE_LIMIT });
    const containers = [authorizer(), authorizer()];
    for (const h of containers) expect((await h(withKey(key))).context).toMatchObject({ verdict: 'ok', deprecated: false });
    await rotateKey(t.client, t.keysTableName, record.keyId);
    const elapsed = await timeUntil(async () => {
      const verdicts = await Promise.all(containers.map((h) => h(withKey(key))));
      return verdicts.every((v) => ctx(v).verdict === 'ok' && ctx(v).deprecated === true);
    });
    expect(elapsed).toBeLessThan(2_000);
  });

  it('the grace deadline is exact to the millisecond (controlled clock)', async () => {
    let clock = testNow();
    const { key, record } = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], now: clock });
    const h = authorizer(() => clock);
    await rotateKey(t.client, t.keysTableName, record.keyId, { graceMs: 5_000, now: clock });
    const deadline = clock + 5_000;
    expect((await h(withKey(key))).context).toMatchObject({ verdict: 'ok', deprecated: true });
    clock = deadline - 1;
    expect((await h(withKey(key))).context).toMatchObject({ verdict: 'ok', deprecated: true });
    clock = deadline;
    expect((await h(withKey(key))).context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_EXPIRED' });
  });
});
