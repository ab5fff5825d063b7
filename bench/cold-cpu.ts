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
  /** The query's total, from the data set: every response is checked against it. */
  expectedTotal: number;
}

export interface ColdCpuSamples {
  /** CPU time of each request (process.cpuUsage of its process, user + system), ms. */
  cpuMs: number[];
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
export async function measureColdCpu(job: ColdCpuJob): Promise<ColdCpuSamples> {
  const fn = startFunction(job);
  const cpuMs: number[] = [];
  const errors = new Set<string>();
  const heap = { emptyBytes: 0, filledBytes: 0 };
  try {
    heap.emptyBytes = await fn.heap();
    // A new process compiles as it goes: its first full reads can outlast the functions' 1.5 s per
    // DynamoDB attempt and answer 503. Four requests first, neither measured nor checked.
    for (let round = 0; round < WARM_UP_REQUESTS; round++) await fn.request(false);
    for (let round = 0; round < job.rounds; round++) {
      const outcome = await fn.request(true);
      cpuMs.push(outcome.cpuMs);
      if (outcome.error) errors.add(`cold CPU: ${outcome.error}`);
    }
    heap.filledBytes = await fn.heap();
  } finally {
    fn.stop();
  }
  return { cpuMs, heap, errors: [...errors] };
}

function serveFunction(job: ColdCpuJob): (check: boolean) => Promise<Outcome> {
  const config = readConfig(job.settings);
  const cache = createListRepository(createFunctionClient(config), config);
  const list = createListHandler({ repository: cache, config });
  // The functions log to stdout; this process's stdout goes nowhere, and writing is skipped as in
  // the benchmark's own phases.
  process.stdout.write = () => true;
  return async (check) => {
    cache.clear();
    const event = listEvent(job.params, job.authorizer);
    const c0 = process.cpuUsage();
    const res: APIGatewayProxyStructuredResultV2 = await list(event, lambdaContext('list-empty-legs'));
    const cpu = process.cpuUsage(c0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const body = typeof res.body === 'string' ? res.body : '';
    if (!check) return { cpuMs };
    if (res.statusCode !== 200) return { cpuMs, error: `HTTP ${res.statusCode} ${body.slice(0, 200)}` };
    const total = (JSON.parse(body) as { data: { total: number } }).data.total;
    return total === job.expectedTotal ? { cpuMs } : { cpuMs, error: `total ${total}, expected ${job.expectedTotal}` };
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
