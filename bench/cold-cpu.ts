import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { readConfig } from '../src/config.js';
import { createListHandler, createListRepository } from '../src/listing/list-handler.js';
import { createFunctionClient } from '../src/aws/function-clients.js';
import { lambdaContext } from '../local/lambda-context.js';
import { listEvent } from './events.js';
import { forkModule, isForkedModule } from './fork.js';

/**
 * The cold-cache CPU (docs/performance.md, "Cold cache"): one query with an empty cache, `rounds`
 * times after four unmeasured requests, in a Node process of its own started with the benchmark's
 * flags (single-threaded, GC exposed), as in its own container: it holds its code, its client and
 * its cache, not the benchmark's data set, oracle and figures.
 */
export interface ColdCpuJob {
  /** The functions' settings (environment variable names), as readConfig takes them. */
  settings: Record<string, string>;
  rounds: number;
  params: Record<string, string>;
  /** The authorizer's context for the list event. */
  authorizer: unknown;
}

/** The query's total at an instant (epoch ms), from the data set: each response is checked against it at the instants its process read around it. */
export type TotalAt = (instant: number) => number;

export interface ColdCpuSamples {
  /** CPU time of each request (process.cpuUsage of its process, user + system), ms. */
  cpuMs: number[];
  /** Over the measured requests: DynamoDB attempts that failed (a time-out, a dropped socket) and were retried or failed the request. */
  failedAttempts: number;
  /** Over the measured requests: Query calls, the index read where the snapshot could not serve (0 when it served every bucket). */
  indexQueries: number;
  /**
   * process.memoryUsage().heapUsed after a full collection, in its process, before its first
   * request (code loaded, nothing cached) and after its last cold read, bytes.
   */
  heap: { emptyBytes: number; filledBytes: number };
  errors: string[];
}

type Message = { op: 'setup'; job: ColdCpuJob } | { op: 'request'; check: boolean } | { op: 'heap' };
interface Outcome {
  cpuMs: number;
  error?: string;
  /** The response's total, and its process's clock (its functions' settings) before and after it. */
  served?: { total: number; from: number; to: number };
  failedAttempts?: number;
  indexQueries?: number;
  /** For `heap`: heapUsed after a full collection. */
  heapBytes?: number;
}

/** The function's process: `request` runs one request with an empty cache and answers its CPU time. */
function startFunction(job: ColdCpuJob): { request(check: boolean): Promise<Outcome>; heap(): Promise<number>; stop(): void } {
  const child = forkModule(import.meta.url);
  let waiting: { resolve: (o: Outcome) => void; reject: (e: Error) => void } | undefined;
  let ended: Error | undefined;
  child.on('message', (m: Outcome) => {
    waiting?.resolve(m);
    waiting = undefined;
  });
  child.once('exit', (code) => {
    ended = new Error(`the cold-CPU process ended (exit code ${code})`);
    waiting?.reject(ended);
  });
  child.send({ op: 'setup', job } satisfies Message);
  const ask = (message: Message) =>
    new Promise<Outcome>((resolve, reject) => {
      if (ended) return reject(ended);
      waiting = { resolve, reject };
      child.send(message);
    });
  return {
    request: (check) => ask({ op: 'request', check }),
    heap: async () => (await ask({ op: 'heap' })).heapBytes ?? 0,
    stop: () => child.disconnect(),
  };
}

const WARM_UP_REQUESTS = 4;

/** Runs the measurement in a process of its own. */
export async function measureColdCpu(job: ColdCpuJob, totalAt: TotalAt): Promise<ColdCpuSamples> {
  return (await measureColdCpuTogether([job], [totalAt]))[0]!;
}

/**
 * Runs each job in a process of its own, their requests alternating round by round, so that every job
 * meets the same load of the machine and of DynamoDB Local (a ratio of two of them is then fair).
 */
export async function measureColdCpuTogether(jobs: readonly ColdCpuJob[], totalsAt: readonly TotalAt[]): Promise<ColdCpuSamples[]> {
  const fns = jobs.map((job) => startFunction(job));
  const results = jobs.map(() => ({ cpuMs: [] as number[], errors: new Set<string>(), heap: { emptyBytes: 0, filledBytes: 0 }, failedAttempts: 0, indexQueries: 0 }));
  try {
    for (const [i, fn] of fns.entries()) results[i]!.heap.emptyBytes = await fn.heap();
    // A new process compiles as it goes: its first full reads can outlast the functions' 1.5 s per
    // DynamoDB attempt and answer 503. Four requests first, neither measured nor checked.
    for (let round = 0; round < WARM_UP_REQUESTS; round++) for (const fn of fns) await fn.request(false);
    const rounds = Math.max(...jobs.map((j) => j.rounds));
    for (let round = 0; round < rounds; round++) {
      for (const [i, fn] of fns.entries()) {
        if (round >= jobs[i]!.rounds) continue;
        const outcome = await fn.request(true);
        const r = results[i]!;
        r.cpuMs.push(outcome.cpuMs);
        r.failedAttempts += outcome.failedAttempts ?? 0;
        r.indexQueries += outcome.indexQueries ?? 0;
        if (outcome.error) r.errors.add(`cold CPU: ${outcome.error}`);
        else if (outcome.served) {
          const { total, from, to } = outcome.served;
          const want = [totalsAt[i]!(from), totalsAt[i]!(to)];
          if (!want.includes(total)) r.errors.add(`cold CPU: total ${total}, expected ${want[0]} (at ${new Date(from).toISOString()})`);
        }
      }
    }
    for (const [i, fn] of fns.entries()) results[i]!.heap.filledBytes = await fn.heap();
  } finally {
    for (const fn of fns) fn.stop();
  }
  return results.map((r) => ({ cpuMs: r.cpuMs, heap: r.heap, failedAttempts: r.failedAttempts, indexQueries: r.indexQueries, errors: [...r.errors] }));
}

function serveFunction(job: ColdCpuJob): (check: boolean) => Promise<Outcome> {
  const config = readConfig(job.settings);
  const client = createFunctionClient(config);
  // Per request: the DynamoDB attempts that failed, and the Query calls (index reads), counted below the SDK's retries.
  const counts = { failedAttempts: 0, indexQueries: 0 };
  client.middlewareStack.add(
    (next) => async (args) => {
      const target = (args.request as { headers?: Record<string, string> }).headers?.['x-amz-target'] ?? '';
      if (target.endsWith('.Query')) counts.indexQueries += 1;
      try {
        return await next(args);
      } catch (err) {
        counts.failedAttempts += 1;
        throw err;
      }
    },
    { step: 'deserialize', name: 'benchColdCpuCounts' },
  );
  const cache = createListRepository(client, config);
  const list = createListHandler({ repository: cache, config, clock: config.clock });
  // The functions log to stdout; this process's stdout goes nowhere, and writing is skipped as in
  // the benchmark's own phases.
  process.stdout.write = () => true;
  return async (check) => {
    cache.clear();
    // A new container's first read starts on a clean heap: this one does not pay for the garbage of
    // the rounds before it (a full collection, not measured; the bench script exposes gc).
    (globalThis as { gc?: () => void }).gc?.();
    counts.failedAttempts = 0;
    counts.indexQueries = 0;
    const event = listEvent(job.params, job.authorizer);
    const from = config.clock();
    const c0 = process.cpuUsage();
    const res: APIGatewayProxyStructuredResultV2 = await list(event, lambdaContext('list-empty-legs'));
    const cpu = process.cpuUsage(c0);
    const to = config.clock();
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const body = typeof res.body === 'string' ? res.body : '';
    const figures = { cpuMs, ...counts };
    if (!check) return figures;
    if (res.statusCode !== 200) return { ...figures, error: `HTTP ${res.statusCode} ${body.slice(0, 200)}` };
    return { ...figures, served: { total: (JSON.parse(body) as { data: { total: number } }).data.total, from, to } };
  };
}

if (isForkedModule(import.meta.url)) {
  let serve: ((check: boolean) => Promise<Outcome>) | undefined;
  process.on('message', (m: Message) => {
    if (m.op === 'setup') serve = serveFunction(m.job);
    else if (m.op === 'heap') {
      // Started with --expose-gc, as the benchmark is (bench/fork.ts passes its flags on).
      (globalThis as { gc?: () => void }).gc?.();
      process.send!({ cpuMs: 0, heapBytes: process.memoryUsage().heapUsed } satisfies Outcome);
    } else
      serve!(m.check).then(
        (outcome) => process.send!(outcome),
        (err: unknown) => process.send!({ cpuMs: 0, error: err instanceof Error ? err.message : String(err) } satisfies Outcome),
      );
  });
  process.once('disconnect', () => process.exit(0));
}
