import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startReplayProxy, type ReplayProxy } from '../../../bench/replay-proxy.js';

/**
 * The benchmark's replaying proxy (bench/replay-proxy.ts) in its own process, in front of a stand-in
 * for DynamoDB Local that answers each request with its body and a version the test moves: what it
 * replays, what it forwards, what a write's invalidation drops, and that its own check catches an
 * answer kept past a change it was not told of.
 */

const QUERY = 'DynamoDB_20120810.Query';
const STALE_DATE = 'Mon, 01 Jan 2024 00:00:00 GMT';
let version = 1;
let served: string[] = [];
let upstream: http.Server;
let target: string;

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      served.push(`${String(req.headers['x-amz-target'])} ${body}`);
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', date: STALE_DATE });
      res.end(JSON.stringify({ echo: JSON.parse(body) as unknown, version }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
});

beforeEach(() => {
  version = 1;
  served = [];
});

function queryBody(bucket: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ TableName: 't', IndexName: 'byBucket', ExpressionAttributeValues: { ':b': { S: bucket } }, ...extra });
}

async function post(proxy: ReplayProxy, amzTarget: string, body: string): Promise<{ version: number; date: string | null }> {
  const res = await fetch(proxy.endpoint, { method: 'POST', headers: { 'x-amz-target': amzTarget, 'content-type': 'application/x-amz-json-1.0' }, body });
  expect(res.status).toBe(200);
  const parsed = (await res.json()) as { version: number; echo: unknown };
  expect(parsed.echo).toEqual(JSON.parse(body));
  return { version: parsed.version, date: res.headers.get('date') };
}

async function withProxy(checkEvery: number, run: (proxy: ReplayProxy) => Promise<void>): Promise<void> {
  const proxy = await startReplayProxy(target, checkEvery);
  try {
    await run(proxy);
  } finally {
    await proxy.stop();
  }
}

it('replays a Query on the index once answered, until a write touching its bucket is announced', async () => {
  await withProxy(1000, async (proxy) => {
    expect((await post(proxy, QUERY, queryBody('2026-11'))).version).toBe(1);
    version = 2; // a change the proxy was not told of: the kept answer is sent again
    expect((await post(proxy, QUERY, queryBody('2026-11'))).version).toBe(1);
    // Another bucket, another range of the same bucket: each is forwarded the first time.
    expect((await post(proxy, QUERY, queryBody('2026-12'))).version).toBe(2);
    expect((await post(proxy, QUERY, queryBody('2026-11', { ExclusiveStartKey: { id: { S: 'x' } } }))).version).toBe(2);
    expect(served).toHaveLength(3);

    await proxy.invalidate(['2026-12']);
    expect((await post(proxy, QUERY, queryBody('2026-11'))).version).toBe(1);
    expect((await post(proxy, QUERY, queryBody('2026-12'))).version).toBe(2);
    await proxy.invalidate(['2026-11']);
    expect((await post(proxy, QUERY, queryBody('2026-11'))).version).toBe(2);
    expect(served).toHaveLength(5);
    expect(await proxy.stats()).toEqual({ queries: 7, replayed: 2, checked: 0, differed: 0 });
  });
});

it('forwards every request that is not a Query on the index', async () => {
  await withProxy(1000, async (proxy) => {
    const get = JSON.stringify({ TableName: 't', Key: { id: { S: 'a' } } });
    await post(proxy, 'DynamoDB_20120810.GetItem', get);
    await post(proxy, 'DynamoDB_20120810.GetItem', get);
    const tableQuery = JSON.stringify({ TableName: 't', ExpressionAttributeValues: { ':b': { S: '2026-11' } } });
    await post(proxy, QUERY, tableQuery);
    await post(proxy, QUERY, tableQuery);
    expect(served).toHaveLength(4);
    expect((await proxy.stats()).replayed).toBe(0);
  });
});

it('checks its replays against the database and counts an answer that differs', async () => {
  await withProxy(2, async (proxy) => {
    await post(proxy, QUERY, queryBody('long'));
    await post(proxy, QUERY, queryBody('long')); // replay 1: not checked
    await post(proxy, QUERY, queryBody('long')); // replay 2: checked, the same
    expect(await proxy.stats()).toEqual({ queries: 3, replayed: 2, checked: 1, differed: 0 });
    version = 3;
    await post(proxy, QUERY, queryBody('long'));
    const replay = await post(proxy, QUERY, queryBody('long')); // replay 4: checked, differs
    expect(replay.version).toBe(1);
    expect(await proxy.stats()).toEqual({ queries: 5, replayed: 4, checked: 2, differed: 1 });
  });
});

it('sends a replay with the current date, which the SDK corrects its clock by', async () => {
  await withProxy(1000, async (proxy) => {
    expect((await post(proxy, QUERY, queryBody('2027-01'))).date).toBe(STALE_DATE);
    const { date } = await post(proxy, QUERY, queryBody('2027-01'));
    expect(Math.abs(Date.parse(date!) - Date.now())).toBeLessThan(60_000);
  });
});
