import { beforeEach, describe, expect, it, jest, afterAll } from '@jest/globals';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { encodeBucket, encodeManifest, partId, SNAPSHOT_MANIFEST_ID, type BucketParts } from '../../../src/snapshot/snapshot.js';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { lambdaContext, listEvent } from '../../support/events.js';
import { buildListHandler, resetListHandler } from '../../support/handlers.js';
import { storedLeg } from '../../support/legs.js';

/**
 * The list function with a listing snapshot (src/listing/snapshot-read.ts, composed in
 * src/listing/list-handler.ts): with a manifest, its buckets come from the parts and the change log's
 * entries after the manifest's position, with no Query on the listing index; else from the index.
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
/** Written since (the change log's entries after the build): `a` blocked, `c` moved to January, `e` new. */
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
function snapshotItems(logSeq: number | undefined) {
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
  const manifest: Record<string, unknown> = encodeManifest({
    token: 'token-1',
    builtAt: BUILT_AT,
    logSeq: logSeq ?? 0,
    firstMonth: '2026-10',
    lastMonth: '2027-12',
    buckets,
    retired: [],
  });
  if (logSeq === undefined) delete manifest.lq;
  return { manifest, parts };
}

const LOG_AT_BUILD = 40;
/** The change log: the entries of SINCE after LOG_AT_BUILD, and its head `ahead` entries further. */
function changeLog(ahead = 0): Record<string, unknown>[] {
  const entries = items(SINCE).map((i, n) => ({
    id: `~change#${LOG_AT_BUILD + 1 + n}`,
    q: LOG_AT_BUILD + 1 + n,
    k: typeof i.lb === 'string' ? 'u' : 'w',
    l: i.id,
    a: BUILT_AT + 1_000,
    ...(typeof i.lb === 'string' ? { r: JSON.stringify({ id: i.id }), x: [i.lb, i.ls, i.lf] } : {}),
  }));
  // The index page of those entries (entries 41-43: page 0).
  const page: Record<string, unknown> = { id: '~changes#p0' };
  for (const e of entries) page[`c${String(e.q)}`] = 'x' in e ? [e.l, ...(e.x as string[])] : [e.l];
  return [{ id: '~changes', q: LOG_AT_BUILD + SINCE.length + ahead, r: '[]' }, ...entries, page];
}

function serve(logSeq: number | undefined, ahead = 0) {
  const { manifest, parts } = snapshotItems(logSeq);
  const log = changeLog(ahead);
  expect(parts.length).toBeGreaterThan(Object.keys(JSON.parse(manifest.b as string) as object).length);
  ddb.on(GetCommand).callsFake((input: { Key: { id: string } }) =>
    input.Key.id === SNAPSHOT_MANIFEST_ID ? { Item: manifest } : input.Key.id === '~changes' ? { Item: log[0] } : {},
  );
  ddb.on(QueryCommand).callsFake(
    (input: { IndexName?: string; ExpressionAttributeValues: Record<string, string> }) => {
      const v = input.ExpressionAttributeValues;
      const inBucket = nowItems
        .filter((i) => i.lb === v[':b'] && (v[':lo'] === undefined || (i.ls as string) >= v[':lo']) && (v[':hi'] === undefined || (i.ls as string) <= v[':hi']))
        .sort((x, y) => ((x.ls as string) < (y.ls as string) ? -1 : 1));
      return { Items: inBucket.map((i) => ({ ls: i.ls, lf: i.lf })) };
    },
  );
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => {
    const [table, req] = Object.entries(input.RequestItems)[0]!;
    const all = [...parts, ...nowItems, ...log];
    return { Responses: { [table]: req.Keys.map((k) => all.find((i) => i.id === k.id)).filter(Boolean) } };
  });
}

async function list() {
  const res: APIGatewayProxyStructuredResultV2 = await handler(listEvent(undefined), lambdaContext());
  expect(res.statusCode).toBe(200);
  const body = JSON.parse(res.body ?? '{}') as { data: { records: { id: string; startDate: string }[]; total: number } };
  return body.data;
}


beforeEach(() => resetListHandler(ddb, repository, NOW));
afterAll(() => {
  jest.useRealTimers();
});

const batchGetIds = () =>
  ddb.commandCalls(BatchGetCommand).flatMap((c) => Object.values(c.args[0].input.RequestItems ?? {}).flatMap((r) => (r.Keys ?? []).map((k) => String(k.id))));

describe('list-empty-legs handler with a listing snapshot', () => {
  it('answers from the snapshot parts plus the change log since the build, without a Query on the listing index', async () => {
    serve(LOG_AT_BUILD);
    const data = await list();
    expect(data.records.map((r) => r.id)).toEqual(EXPECTED);
    expect(data.total).toBe(EXPECTED.length);
    // The moved leg is shown where it is now.
    expect(data.records.find((r) => r.id === 'c')!.startDate).toBe('2027-01-05');
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
    const ids = batchGetIds();
    expect(ids.filter((id) => id.startsWith('~snapshot#')).length).toBeGreaterThan(0);
    expect(ids.filter((id) => id.startsWith('~change')).sort()).toEqual(['~changes#p0']);
  });

  it.each([
    ['the manifest is from before the change log (no position)', undefined, 0],
    ['the change log is more than 2,000 entries past the build', LOG_AT_BUILD, 2_000],
  ])('answers from the listing index when %s, the same listing', async (_case, logSeq, ahead) => {
    serve(logSeq, ahead);
    const data = await list();
    expect(data.records.map((r) => r.id)).toEqual(EXPECTED);
    expect(ddb.commandCalls(QueryCommand).length).toBeGreaterThan(0);
    expect(batchGetIds().filter((id) => id.startsWith('~snapshot#'))).toHaveLength(0);
  });
});
