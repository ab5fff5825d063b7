import http from 'node:http';
import { forkModule, isForkedModule } from './fork.js';

/**
 * An HTTP proxy in front of DynamoDB Local for the traffic simulation's TTL design
 * (docs/performance.md, "Traffic simulation"). Its containers read every bucket again every 10 s:
 * about 120 full reads of the index in a minute, each costing DynamoDB Local 1-2 s of CPU, which
 * was most of the benchmark's length. Yet most of those reads ask for a bucket that has not changed
 * since the same request was last answered.
 *
 * The proxy forwards every request, and keeps the answer of each Query on the listing index, keyed
 * by the request's body (table, index, bucket, range, start key, ConsumedCapacity setting). The
 * benchmark tells it which buckets a write touches before the write's first request is served;
 * their answers are dropped. A Query whose answer is kept gets the same status, headers and bytes
 * again (the items, Count, LastEvaluatedKey and ConsumedCapacity of an unchanged bucket), so the
 * design's client sees what DynamoDB Local would send, read units included. Only the time is not
 * DynamoDB Local's: a replayed read is faster, which flatters the TTL design's latency, never the
 * change-aware one's (its client goes to DynamoDB Local directly).
 *
 * It checks itself: every `checkEvery`-th replay is also forwarded and the two bodies compared;
 * the benchmark fails when one differs. It runs in a process of its own, so that its work is not
 * counted in the CPU time of the requests it serves.
 */
export interface ReplayStats {
  /** Query requests on the listing index. */
  queries: number;
  /** Of those, answered from a kept answer. */
  replayed: number;
  /** Replays also forwarded to DynamoDB Local and compared. */
  checked: number;
  /** Checked replays whose body differed from DynamoDB Local's. */
  differed: number;
}

export interface ReplayProxy {
  endpoint: string;
  /** Drops the kept answers of these buckets; resolves once the proxy has. */
  invalidate(buckets: readonly string[]): Promise<void>;
  stats(): Promise<ReplayStats>;
  stop(): Promise<void>;
}

type Request = { id: number; op: 'start'; target: string; checkEvery: number } | { id: number; op: 'invalidate'; buckets: string[] } | { id: number; op: 'stats' };
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
interface Reply {
  id: number;
  value: unknown;
}

export async function startReplayProxy(target: string, checkEvery = 10): Promise<ReplayProxy> {
  const child = forkModule(import.meta.url);
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  child.on('message', (m: Reply) => {
    pending.get(m.id)?.resolve(m.value);
    pending.delete(m.id);
  });
  child.once('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`the replay proxy ended (exit code ${code})`));
    pending.clear();
  });
  const call = (request: WithoutId<Request>): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ ...request, id });
    });
  const port = (await call({ op: 'start', target, checkEvery })) as number;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    invalidate: async (buckets) => {
      if (buckets.length > 0) await call({ op: 'invalidate', buckets: [...buckets] });
    },
    stats: async () => (await call({ op: 'stats' })) as ReplayStats,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// The proxy process.

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

interface Kept extends Answer {
  bucket: string;
}

const QUERY_TARGET = 'DynamoDB_20120810.Query';

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

/** The bucket of a Query on the listing index (`:b` of its key condition), or undefined. */
function bucketOfQuery(body: string): string | undefined {
  try {
    const input = JSON.parse(body) as { IndexName?: unknown; ExpressionAttributeValues?: Record<string, { S?: unknown }> };
    const bucket = input.ExpressionAttributeValues?.[':b']?.S;
    return typeof input.IndexName === 'string' && typeof bucket === 'string' ? bucket : undefined;
  } catch {
    return undefined;
  }
}

function serveProxy(target: URL, checkEvery: number): Promise<{ port: number; stats: ReplayStats; invalidate(buckets: readonly string[]): void }> {
  const kept = new Map<string, Kept>();
  const stats: ReplayStats = { queries: 0, replayed: 0, checked: 0, differed: 0 };
  const agent = new http.Agent({ keepAlive: true });

  const forward = (req: http.IncomingMessage, body: Buffer): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const out = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host }, agent },
        (res) => {
          readAll(res).then((b) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: b }), reject);
        },
      );
      out.once('error', reject);
      out.end(body);
    });

  const send = (res: http.ServerResponse, answer: Answer, replay: boolean) => {
    const headers = { ...answer.headers };
    delete headers['transfer-encoding'];
    // A replay is sent now: the SDK corrects its clock by a response's Date.
    if (replay) headers.date = new Date().toUTCString();
    headers['content-length'] = String(answer.body.length);
    res.writeHead(answer.status, headers);
    res.end(answer.body);
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      let key: string | undefined;
      let bucket: string | undefined;
      if (req.headers['x-amz-target'] === QUERY_TARGET) {
        key = body.toString('utf8');
        bucket = bucketOfQuery(key);
        if (bucket !== undefined) stats.queries += 1;
      }
      const hit = key !== undefined && bucket !== undefined ? kept.get(key) : undefined;
      if (hit) {
        stats.replayed += 1;
        if (stats.replayed % checkEvery === 0) {
          stats.checked += 1;
          const real = await forward(req, body);
          if (real.status !== hit.status || !real.body.equals(hit.body)) stats.differed += 1;
        }
        send(res, hit, true);
        return;
      }
      const answer = await forward(req, body);
      if (key !== undefined && bucket !== undefined && answer.status === 200) kept.set(key, { ...answer, bucket });
      send(res, answer, false);
    })().catch((err: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(err instanceof Error ? err.message : String(err));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({
        port,
        stats,
        invalidate(buckets) {
          const drop = new Set(buckets);
          for (const [k, v] of kept) if (drop.has(v.bucket)) kept.delete(k);
        },
      });
    });
  });
}

if (isForkedModule(import.meta.url)) {
  let proxy: Awaited<ReturnType<typeof serveProxy>> | undefined;
  process.on('message', (m: Request) => {
    const reply = (value: unknown) => process.send!({ id: m.id, value } satisfies Reply);
    if (m.op === 'start') void serveProxy(new URL(m.target), m.checkEvery).then((p) => reply((proxy = p).port));
    else if (m.op === 'invalidate') reply(proxy?.invalidate(m.buckets));
    else reply(proxy?.stats);
  });
  process.once('disconnect', () => process.exit(0));
}
