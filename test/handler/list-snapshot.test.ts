import { beforeEach, describe, expect, it, jest, afterAll } from '@jest/globals';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { expiryShard } from '../../src/legs/retirement.js';
import { encodeBucket, encodeManifest, partId, SNAPSHOT_MANIFEST_ID, type BucketParts } from '../../src/legs/snapshot.js';
import { toStorageItem, type StoredLeg } from '../../src/legs/storage.js';
import { lambdaContext, listEvent } from '../support/events.js';
import { buildListHandler, resetListHandler } from '../support/handlers.js';
import { storedLeg } from '../support/legs.js';

/**
 * The list function with a listing snapshot (src/legs/snapshot-read.ts, composed in
 * src/legs/list-handler.ts): with a manifest, its buckets come from the parts and the `byChange`
 * delta, with no Query on the listing index; with the manifest stale, from the index.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const { handler, repository } = buildListHandler();
const NOW = new Date('2026-11-21T12:00:00Z');
const BUILT_AT = Date.parse('2026-11-21T06:00:00Z');

const leg = (id: string, startDate: string, endDate: string, over: Partial<StoredLeg> = {}) => storedLeg({ id, startDate, endDate, ...over });

/** The table when the snapshot was built. */
const AT_BUILD = [
  leg('a', '2026-11-25', '2026-11-26'),
  leg('b', '2026-11-28', '2026-11-28'),
  leg('c', '2026-12-03', '2026-12-04'),
  leg('d', '2026-12-10', '2026-12-10'),
  leg('long1', '2026-12-01', '2027-02-15'),
];
/** Written since, by an incremental load: `a` blocked, `c` moved to January, `e` new. */
const SINCE = [
  leg('a', '2026-11-25', '2026-11-26', { blocked: true }),
  leg('c', '2027-01-05', '2027-01-06'),
  leg('e', '2026-11-24', '2026-11-24'),
];
const NOW_LEGS = [...AT_BUILD.filter((l) => !SINCE.some((s) => s.id === l.id)), ...SINCE];
/** The listing by hand: startDate, then id. */
const EXPECTED = ['e', 'b', 'long1', 'd', 'c'];

const items = (legs: StoredLeg[]) => legs.map(toStorageItem);
const nowItems = items(NOW_LEGS);

/** The snapshot's parts and manifest as a build writes them, from the table at build time. */
function snapshotItems(stale: boolean) {
  const buckets: Record<string, BucketParts> = {};
  const parts: Record<string, unknown>[] = [];
  const byBucket = new Map<string, { ls: string; lf: string }[]>();
  for (const item of items(AT_BUILD)) {
    const list = byBucket.get(item.lb as string) ?? [];
    list.push({ ls: item.ls as string, lf: item.lf as string });
    byBucket.set(item.lb as string, list);
  }
  for (const [bucket, list] of byBucket) {
    list.sort((x, y) => (x.ls < y.ls ? -1 : 1));
    // Parts as small as the largest entry alone, so that a bucket of several entries spans several parts.
    const z = encodeBucket(list, Math.max(...list.map((e) => encodeBucket([e])[0]!.length)));
    const hash = `h${bucket.replace('-', '')}`;
    z.forEach((part, k) => parts.push({ id: partId(bucket, hash, k), z: new Uint8Array(part) }));
    buckets[bucket] = { hash, parts: z.length, entries: list.length, bytes: z.reduce((a, p) => a + p.length, 0) };
  }
  const manifest = encodeManifest({
    token: 'token-1',
    stale,
    builtAt: BUILT_AT,
    watermark: BUILT_AT - 60_000,
    journalVersion: 0,
    firstMonth: '2026-10',
    lastMonth: '2027-12',
    buckets,
    retired: [],
  });
  return { manifest, parts };
}

function serve(stale: boolean) {
  const { manifest, parts } = snapshotItems(stale);
  expect(parts.length).toBeGreaterThan(Object.keys(JSON.parse(manifest.b as string) as object).length);
  ddb.on(GetCommand).callsFake((input: { Key: { id: string } }) => (input.Key.id === SNAPSHOT_MANIFEST_ID ? { Item: manifest } : {}));
  ddb.on(QueryCommand).callsFake(
    (input: { IndexName?: string; ExpressionAttributeValues: Record<string, string> }) => {
      const v = input.ExpressionAttributeValues;
      if (input.IndexName === 'byChange') {
        // The delta: the legs written since, in the shard asked, from the watermark on.
        const stamp = new Date(BUILT_AT + 1_000).toISOString();
        expect(stamp >= v[':c']!).toBe(true);
        const delta = items(SINCE).filter((i) => expiryShard(i.id as string) === v[':p']);
        return { Items: delta.map((i) => ({ id: i.id, lb: i.lb, ls: i.ls, lf: i.lf })) };
      }
      const inBucket = nowItems
        .filter((i) => i.lb === v[':b'] && (v[':lo'] === undefined || (i.ls as string) >= v[':lo']) && (v[':hi'] === undefined || (i.ls as string) <= v[':hi']))
        .sort((x, y) => ((x.ls as string) < (y.ls as string) ? -1 : 1));
      return { Items: inBucket.map((i) => ({ ls: i.ls, lf: i.lf })) };
    },
  );
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => {
    const [table, req] = Object.entries(input.RequestItems)[0]!;
    const all = [...parts, ...nowItems];
    return { Responses: { [table]: req.Keys.map((k) => all.find((i) => i.id === k.id)).filter(Boolean) } };
  });
}

async function list() {
  const res: APIGatewayProxyStructuredResultV2 = await handler(listEvent(undefined), lambdaContext());
  expect(res.statusCode).toBe(200);
  const body = JSON.parse(res.body ?? '{}') as { data: { records: { id: string; startDate: string }[]; total: number } };
  return body.data;
}

const queriesOn = (indexName: string) => ddb.commandCalls(QueryCommand).filter((c) => c.args[0].input.IndexName === indexName);

beforeEach(() => resetListHandler(ddb, repository, NOW));
afterAll(() => {
  jest.useRealTimers();
});

describe('list-empty-legs handler with a listing snapshot', () => {
  it('answers from the snapshot parts plus the delta, without a Query on the listing index', async () => {
    serve(false);
    const data = await list();
    expect(data.records.map((r) => r.id)).toEqual(EXPECTED);
    expect(data.total).toBe(EXPECTED.length);
    // The moved leg is shown where it is now.
    expect(data.records.find((r) => r.id === 'c')!.startDate).toBe('2027-01-05');
    expect(queriesOn('byDepartureBucket')).toHaveLength(0);
    // One Query of the delta per shard.
    const shards = queriesOn('byChange').map((c) => String(c.args[0].input.ExpressionAttributeValues?.[':p']));
    expect(new Set(shards).size).toBe(8);
    const partReads = ddb
      .commandCalls(BatchGetCommand)
      .flatMap((c) => Object.values(c.args[0].input.RequestItems ?? {}).flatMap((r) => (r.Keys ?? []).map((k) => String(k.id))))
      .filter((id) => id.startsWith('~snapshot#'));
    expect(partReads.length).toBeGreaterThan(0);
  });

  it('answers from the listing index when the manifest is stale, the same listing', async () => {
    serve(true);
    const data = await list();
    expect(data.records.map((r) => r.id)).toEqual(EXPECTED);
    expect(queriesOn('byDepartureBucket').length).toBeGreaterThan(0);
    expect(queriesOn('byChange')).toHaveLength(0);
  });
});
