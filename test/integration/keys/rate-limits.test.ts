import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { createRateLimiter } from '../../../src/keys/limits/limiter.js';
import type { PoolRequest } from '../../../src/keys/limits/limiter-ports.js';
import { getKeyById } from '../../../src/keys/store.js';
import { createKey, listKeys, rotateKey, setKeyRateLimit } from '../../../src/api-keys/store.js';
import { addUsage, readUsage, reserveUsage, usageItemKey } from '../../../src/keys/limits/usage.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';

/** The rate limiter's counters and the per-key limits on DynamoDB Local (src/keys/limits/usage.ts, store.ts). */
const T0 = Date.parse('2026-03-10T12:00:00.000Z');
const DAY = 86_400_000;

describe('rate limits on DynamoDB Local', () => {
  let t: TestTables;
  beforeAll(async () => {
    t = await createTestTables();
  });
  afterAll(async () => t.drop());

  it('adds to a day counter and answers the totals of all writers; TTL 32 days after the day', async () => {
    expect(await addUsage(t.client, t.keysTableName, 'key_CounterCounter0001', '2026-03-10', { served: 3, refused: 1 })).toEqual({ served: 3, refused: 1 });
    expect(await addUsage(t.client, t.keysTableName, 'key_CounterCounter0001', '2026-03-10', { served: 2, refused: 0 })).toEqual({ served: 5, refused: 1 });
    const item = await t.client.send(new GetCommand({ TableName: t.keysTableName, Key: { keyHash: usageItemKey('key_CounterCounter0001', '2026-03-10') } }));
    expect(item.Item?.ttl).toBe((Date.parse('2026-03-10T00:00:00Z') + 32 * DAY) / 1000);
    expect(item.Item?.keyId).toBeUndefined(); // never in the byKeyId index
  });

  it('holds the limit across containers that share the counters, and the usage reads back per day', async () => {
    let now = T0;
    const counter = (keyId: string, day: string, add: { served: number; refused: number }) => addUsage(t.client, t.keysTableName, keyId, day, add);
    const reserve = (keyId: string, day: string, add: { served: number; refused: number }, pool: PoolRequest) => reserveUsage(t.client, t.keysTableName, keyId, day, add, pool);
    const containers = Array.from({ length: 4 }, () => createRateLimiter({ counter, reserve, now: () => now }));
    const limit = { rate: 5, burst: 10 };
    let served = 0;
    let refused = 0;
    let steady = 0;
    // 60 s at 40 requests/s (eight times the limit), round robin over four containers.
    for (let i = 0; i < 2400; i++) {
      now = T0 + i * 25;
      const d = await containers[i % 4]!.check('key_SharedShared000001', limit);
      if (d.allowed) served++;
      else refused++;
      if (d.allowed && i * 25 >= 20_000) steady++;
    }
    for (const c of containers) await c.flush();
    // Each container alone would serve 5/s, 20/s in all; once the shares are learned (two writes,
    // 10 s apart), together they serve 5/s.
    expect(steady / 40).toBeGreaterThan(limit.rate * 0.85);
    expect(steady / 40).toBeLessThan(limit.rate * 1.15);
    for (const c of containers) expect(c.shareOf('key_SharedShared000001')).toBeCloseTo(0.25, 1);
    const days = await readUsage(t.client, t.keysTableName, 'key_SharedShared000001', { now });
    expect(days).toHaveLength(30);
    expect(days.at(-1)).toEqual({ day: '2026-03-10', served, refused });
    expect(days[0]!.day).toBe('2026-02-09');
    expect(days.slice(0, -1).every((d) => d.served === 0 && d.refused === 0)).toBe(true);
  });

  it("stores a key's own limit, carries it through a rotation, and removes it; usage items stay out of list", async () => {
    const created = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], rateLimit: { rate: 2.5, burst: 7 } });
    expect((await getKeyById(t.client, t.keysTableName, created.record.keyId))?.rateLimit).toEqual({ rate: 2.5, burst: 7 });
    const rotated = await rotateKey(t.client, t.keysTableName, created.record.keyId);
    expect(rotated.record.rateLimit).toEqual({ rate: 2.5, burst: 7 });
    await setKeyRateLimit(t.client, t.keysTableName, rotated.record.keyId, undefined);
    expect((await getKeyById(t.client, t.keysTableName, rotated.record.keyId))?.rateLimit).toBeUndefined();
    await setKeyRateLimit(t.client, t.keysTableName, rotated.record.keyId, { rate: 1, burst: 1 });
    expect((await getKeyById(t.client, t.keysTableName, rotated.record.keyId))?.rateLimit).toEqual({ rate: 1, burst: 1 });
    await expect(setKeyRateLimit(t.client, t.keysTableName, 'key_00000000000000000000', undefined)).rejects.toThrow('No key with id');
    const listed = await listKeys(t.client, t.keysTableName);
    expect(listed.map((k) => k.keyId).sort()).toEqual([created.record.keyId, rotated.record.keyId].sort());
  });
});
