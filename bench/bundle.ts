import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DATABASE_DEADLINE_MS, FUNCTION_DYNAMODB_BUDGET } from '../src/time-budget.js';
import { median } from './stats.js';

/**
 * Bundles the functions exactly as the CDK stack does (lib/bundling.ts `esbuildOptions`), and
 * measures each bundle's size and its import time in a fresh `node` process, beside a one-line
 * hello-world bundle built with the same settings in the same run.
 *
 * Import time is the wall time of a fresh `node` process that imports the bundle and exits (what a
 * cold start adds on top of the runtime), median of `runs`; the time spent inside `import()` alone
 * is reported beside it, and the process's CPU time up to the end of the import (user + system),
 * which other work on the machine does not lengthen: the import-time target compares that.
 */
export interface BundleFigures {
  name: string;
  bytes: number;
  /** Median wall time of `node` importing the bundle, ms. */
  importMs: number;
  /** Median time inside `await import()`, ms. */
  inProcessImportMs: number;
  /** Median CPU time of the process from its start to the end of the import (process.cpuUsage), ms. */
  importCpuMs: number;
  samples: number[];
}

export interface BundleReport {
  list: BundleFigures;
  authorizer: BundleFigures;
  hello: BundleFigures;
  /** What the list bundle holds, read from its text. */
  checks: {
    /** No `@aws-sdk/*` or `@smithy/*` import left outside the bundle (esbuild's metafile). */
    sdkBundled: boolean;
    minified: boolean;
    keepAlive: boolean;
    /**
     * Observed, not read from the text: the bundled list handler, pointed at a socket that accepts
     * and never answers, answers 503 SERVICE_UNAVAILABLE within its database deadline after every
     * attempt's request timeout fired (one connection per attempt, torn down by the client).
     */
    requestTimeout: boolean;
    /** Observed: pointed at a port that refuses connections, it answers 503 within its deadline. */
    refusedConnection: boolean;
    /** Observed: the bundle reads the airport reference beside it (a centre no airport has is refused with 400). */
    airportReference: boolean;
  };
  /** What those two runs of the bundle answered, and after how long. */
  faults: { stalled: FaultRun; refused: FaultRun };
  /**
   * What the airport reference costs the list function (read on its first nearby search, not at
   * import): CPU of a first and a second nearby request in a fresh process of the bundle, median
   * of `runs` processes. Both requests name a centre no airport has (400, no database read), so the
   * difference is the reference's reading.
   */
  nearby: { firstMs: number; nextMs: number; status: number; code: string };
}

export interface FaultRun {
  status: number;
  code: string;
  ms: number;
  /** Connections the peer accepted / saw closed by the client (stalled peer only). */
  connections: number;
  closedByClient: number;
}

interface Metafile {
  outputs: Record<string, { imports: { path: string; external?: boolean }[] }>;
}
type Build = (options: object) => Promise<{ metafile?: Metafile }>;

export const HELLO_SOURCE = "export const handler = async () => ({ statusCode: 200, body: 'hello' });\n";

export async function buildAndMeasure(options: {
  dir: string;
  runs: number;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}): Promise<BundleReport> {
  const esbuild = (await import('esbuild')) as unknown as { build: Build };
  const bundling = await import('../lib/bundling.js');
  const helloEntry = path.join(options.dir, 'hello.ts');
  writeFileSync(helloEntry, HELLO_SOURCE);
  const entries = {
    list: bundling.entryPath('listEmptyLegs'),
    authorizer: bundling.entryPath('authorizer'),
    hello: helloEntry,
  };
  const files: Record<keyof typeof entries, string> = { list: '', authorizer: '', hello: '' };
  const external: Record<keyof typeof entries, string[]> = { list: [], authorizer: [], hello: [] };
  for (const name of Object.keys(entries) as (keyof typeof entries)[]) {
    const opts = bundling.esbuildOptions(entries[name], path.join(options.dir, name));
    // The metafile only describes the output; the bundle is the stack's.
    const result = await esbuild.build({ ...opts, logLevel: 'error', metafile: true });
    // The files the stack puts beside the bundle (the list function's airport reference).
    if (name === 'list') bundling.copyBundledFiles('listEmptyLegs', path.join(options.dir, name));
    files[name] = opts.outfile;
    for (const out of Object.values(result.metafile?.outputs ?? {})) {
      for (const imp of out.imports) if (imp.external) external[name].push(imp.path);
    }
  }
  options.log(`bundled: list ${statSync(files.list).size} B, authorizer ${statSync(files.authorizer).size} B`);

  type Timed = keyof typeof entries;
  const samples: Record<Timed, { wall: number[]; inside: number[]; cpu: number[] }> = {
    list: { wall: [], inside: [], cpu: [] },
    authorizer: { wall: [], inside: [], cpu: [] },
    hello: { wall: [], inside: [], cpu: [] },
  };
  const paths: Record<Timed, string> = files;
  const order: Timed[] = ['list', 'authorizer', 'hello'];
  const code =
    'const t = performance.now(); await import(process.env.BENCH_IMPORT_URL); const c = process.cpuUsage(); ' +
    'process.stdout.write(JSON.stringify([performance.now() - t, (c.user + c.system) / 1000]));';
  for (let i = 0; i < options.runs + 1; i++) {
    // Rotate the order so that no bundle always runs first; the first round only warms the disk cache.
    for (let j = 0; j < order.length; j++) {
      const name = order[(i + j) % order.length]!;
      const started = performance.now();
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
        env: { ...options.env, BENCH_IMPORT_URL: pathToFileURL(paths[name]).href },
        encoding: 'utf8',
      });
      const wall = performance.now() - started;
      if (r.status !== 0) throw new Error(`importing the ${name} bundle failed: ${(r.stderr || '').trim().slice(0, 500)}`);
      if (i === 0) continue;
      const [inside, cpu] = JSON.parse(r.stdout) as [number, number];
      samples[name].wall.push(wall);
      samples[name].inside.push(inside);
      samples[name].cpu.push(cpu);
    }
  }
  const figures = (name: keyof typeof entries): BundleFigures => ({
    name,
    bytes: statSync(files[name]).size,
    importMs: median(samples[name].wall),
    inProcessImportMs: median(samples[name].inside),
    importCpuMs: median(samples[name].cpu),
    samples: samples[name].wall.map((n) => Number(n.toFixed(2))),
  });
  const text = readFileSync(files.list, 'utf8');
  const stalled = await runAgainstPeer(files.list, options.env, 'stall');
  const refused = await runAgainstPeer(files.list, options.env, 'refuse');
  options.log(
    `list bundle against a stalled database: ${stalled.status} ${stalled.code} after ${Math.round(stalled.ms)} ms; refusing: ${refused.status} ${refused.code} after ${Math.round(refused.ms)} ms`,
  );
  const nearby = measureNearby(files.list, options.env, options.runs);
  options.log(`list bundle, nearby search: first request ${nearby.firstMs.toFixed(1)} ms CPU (reads the airport reference), next ${nearby.nextMs.toFixed(1)} ms`);
  const { requestTimeoutMs, maxAttempts } = FUNCTION_DYNAMODB_BUDGET;
  const deadline = DATABASE_DEADLINE_MS.listEmptyLegs + 1_000;
  return {
    list: figures('list'),
    authorizer: figures('authorizer'),
    hello: figures('hello'),
    checks: {
      sdkBundled: !external.list.some((p) => p.startsWith('@aws-sdk/') || p.startsWith('@smithy/')),
      minified: text.split('\n').length < 200 && !/\n\s{4}\w/.test(text.slice(0, 100_000)),
      keepAlive: /keepAlive:!0/.test(text),
      requestTimeout:
        stalled.status === 503 &&
        stalled.code === 'SERVICE_UNAVAILABLE' &&
        stalled.ms >= requestTimeoutMs - 50 &&
        stalled.ms < deadline &&
        // Each attempt's request timeout fired and the retry came on a new connection: without a
        // working request timeout only the invocation deadline would end the one attempt.
        stalled.connections >= maxAttempts &&
        stalled.closedByClient >= 1,
      refusedConnection: refused.status === 503 && refused.code === 'SERVICE_UNAVAILABLE' && refused.ms < deadline,
      airportReference: nearby.status === 400 && nearby.code === 'INVALID_PARAMETER',
    },
    faults: { stalled, refused },
    nearby,
  };
}

/** Two nearby requests in a fresh process of the bundle: their CPU times and the first answer. */
const NEARBY_SOURCE = `
const { handler } = await import(process.env.BENCH_IMPORT_URL);
const event = () => ({
  version: '2.0', routeKey: 'GET /open/v1/empty-legs', rawPath: '/open/v1/empty-legs', rawQueryString: 'depNear=ZZZZ',
  headers: {}, queryStringParameters: { depNear: 'ZZZZ' }, isBase64Encoded: false,
  requestContext: { http: { method: 'GET', path: '/open/v1/empty-legs' }, requestId: 'bench',
    authorizer: { lambda: { verdict: 'ok', keyId: 'key_bench', scopes: 'empty_leg:read', environment: 'test', deprecated: false } } },
});
const context = { awsRequestId: '00000000-0000-4000-8000-000000000000', getRemainingTimeInMillis: () => 10000 };
const cpu = async () => { const c = process.cpuUsage(); const r = await handler(event(), context); const d = process.cpuUsage(c); return [(d.user + d.system) / 1000, r]; };
const [firstMs, first] = await cpu();
const [nextMs] = await cpu();
process.stdout.write(JSON.stringify({ firstMs, nextMs, status: first.statusCode, code: JSON.parse(first.body).code }));
process.exit(0);
`;

function measureNearby(bundle: string, env: NodeJS.ProcessEnv, runs: number): BundleReport['nearby'] {
  const first: number[] = [];
  const next: number[] = [];
  let answer = { status: 0, code: '' };
  for (let i = 0; i < Math.max(1, runs); i++) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', NEARBY_SOURCE], {
      env: { ...env, BENCH_IMPORT_URL: pathToFileURL(bundle).href, DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`the list bundle's nearby search failed: ${(r.stderr || '').trim().slice(0, 500)}`);
    const out = JSON.parse(r.stdout) as { firstMs: number; nextMs: number; status: number; code: string };
    first.push(out.firstMs);
    next.push(out.nextMs);
    answer = { status: out.status, code: out.code };
  }
  return { firstMs: median(first), nextMs: median(next), ...answer };
}

/** Invokes the bundled list handler once, in a fresh process, with a verified key in its context. */
const INVOKE_SOURCE = `
const { handler } = await import(process.env.BENCH_IMPORT_URL);
const event = {
  version: '2.0', routeKey: 'GET /open/v1/empty-legs', rawPath: '/open/v1/empty-legs', rawQueryString: 'size=1',
  headers: {}, queryStringParameters: { size: '1' }, isBase64Encoded: false,
  requestContext: { http: { method: 'GET', path: '/open/v1/empty-legs' }, requestId: 'bench',
    authorizer: { lambda: { verdict: 'ok', keyId: 'key_bench', scopes: 'empty_leg:read', environment: 'test', deprecated: false } } },
};
const deadline = Date.now() + 10000;
const context = { awsRequestId: '00000000-0000-4000-8000-000000000000', getRemainingTimeInMillis: () => deadline - Date.now() };
const started = performance.now();
const result = await handler(event, context);
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ status: result.statusCode, code: JSON.parse(result.body).code, ms }));
process.exit(0);
`;

async function runAgainstPeer(bundle: string, env: NodeJS.ProcessEnv, mode: 'stall' | 'refuse'): Promise<FaultRun> {
  const sockets = new Set<Socket>();
  let connections = 0;
  let closedByClient = 0;
  let closing = false;
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => (sockets.delete(socket), closing ? undefined : closedByClient++));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const stop = () =>
    new Promise<void>((resolve) => {
      closing = true;
      for (const s of sockets) s.destroy();
      if (server.listening) server.close(() => resolve());
      else resolve();
    });
  if (mode === 'refuse') await stop();
  try {
    const child = spawn(process.execPath, ['--input-type=module', '-e', INVOKE_SOURCE], {
      env: {
        ...env,
        BENCH_IMPORT_URL: pathToFileURL(bundle).href,
        DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}`,
        LISTING_CACHE_TTL_SECONDS: '0',
        AWS_ACCESS_KEY_ID: 'bench',
        AWS_SECRET_ACCESS_KEY: 'bench',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`the list bundle against a ${mode === 'stall' ? 'stalled' : 'refusing'} database failed: ${err.trim().slice(0, 500)}`);
    const r = JSON.parse(out) as { status: number; code: string; ms: number };
    return { ...r, connections, closedByClient };
  } finally {
    await stop();
  }
}
