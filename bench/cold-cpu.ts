import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { readConfig } from '../src/config.js';
import { createListHandler, createListRepository } from '../src/legs/list-handler.js';
import { createFunctionClient } from '../src/aws/function-clients.js';
import { lambdaContext } from '../local/lambda-context.js';
import { listEvent } from './events.js';
import { createLegacyClient, createLegacyListRepository } from './legacy-repository.js';
import { forkModule, isForkedModule } from './fork.js';

/**
 * The cold-cache CPU comparison (docs/performance.md, "Cold cache"): one query with an empty cache,
 * `rounds` times with the read as it was before (bench/legacy-repository.ts) and `rounds` times with
 * the functions' own, alternating which goes first, after four unmeasured requests of each.
 *
 * Each design runs in a Node process of its own, started with the benchmark's flags
 * (single-threaded, GC exposed), as each would in its own container: a process holds its code, its
 * client and its cache, not the benchmark's data set, oracle and figures (a hundred-odd MB that
 * every collection would mark), nor the other design's garbage (the read as it was leaves several
 * times more, and a collection it makes necessary would land in whichever request runs next).
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
  /**
   * The designs to measure; default both. Past 20,000 legs the read as it was cannot answer within
   * the list function's database deadline on DynamoDB Local: only the functions' own is measured.
   */
  designs?: readonly Design[];
}

export interface ColdCpuSamples {
  /** CPU time of each request (process.cpuUsage of its process, user + system), ms. */
  beforeMs: number[];
  afterMs: number[];
  /**
   * The functions' design (`after`): process.memoryUsage().heapUsed after a full collection, in its
   * process, before its first request (code loaded, nothing cached) and after its last cold read
   * (the cache holding every bucket the no-filter query reads), bytes.
   */
  heap: { emptyBytes: number; filledBytes: number };
  errors: string[];
}

export type Design = 'before' | 'after';
type Message = { op: 'setup'; job: ColdCpuJob; design: Design } | { op: 'request'; check: boolean } | { op: 'heap' };
interface Outcome {
  cpuMs: number;
  error?: string;
  /** For `heap`: heapUsed after a full collection. */
  heapBytes?: number;
}

/** One design's process: `request` runs one request with an empty cache and answers its CPU time. */
function startDesign(job: ColdCpuJob, design: Design): { request(check: boolean): Promise<Outcome>; heap(): Promise<number>; stop(): void } {
  const child = forkModule(import.meta.url);
  let waiting: { resolve: (o: Outcome) => void; reject: (e: Error) => void } | undefined;
  let ended: Error | undefined;
  child.on('message', (m: Outcome) => {
    waiting?.resolve(m);
    waiting = undefined;
  });
  child.once('exit', (code) => {
    ended = new Error(`the cold-CPU process (${design}) ended (exit code ${code})`);
    waiting?.reject(ended);
  });
  child.send({ op: 'setup', job, design } satisfies Message);
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

/** Runs the comparison: one process per design, their requests alternating. */
export async function measureColdCpu(job: ColdCpuJob): Promise<ColdCpuSamples> {
  const wanted = job.designs ?? (['before', 'after'] as const);
  const designs: Partial<Record<Design, ReturnType<typeof startDesign>>> = {};
  for (const d of wanted) designs[d] = startDesign(job, d);
  const samples: Record<Design, number[]> = { before: [], after: [] };
  const errors = new Set<string>();
  const heap = { emptyBytes: 0, filledBytes: 0 };
  try {
    if (designs.after) heap.emptyBytes = await designs.after.heap();
    // A new process compiles as it goes: its first full reads can outlast the functions' 1.5 s per
    // DynamoDB attempt and answer 503. Four requests of each first, neither measured nor checked.
    for (let round = 0; round < WARM_UP_REQUESTS; round++) for (const d of wanted) await designs[d]!.request(false);
    for (let round = 0; round < job.rounds; round++) {
      const order = round % 2 === 0 ? wanted : [...wanted].reverse();
      for (const d of order) {
        const outcome = await designs[d]!.request(true);
        samples[d].push(outcome.cpuMs);
        if (outcome.error) errors.add(`cold CPU (${d}): ${outcome.error}`);
      }
    }
    if (designs.after) heap.filledBytes = await designs.after.heap();
  } finally {
    for (const d of Object.values(designs)) d.stop();
  }
  return { beforeMs: samples.before, afterMs: samples.after, heap, errors: [...errors] };
}

function serveDesign(job: ColdCpuJob, design: Design): (check: boolean) => Promise<Outcome> {
  const config = readConfig(job.settings);
  const client = design === 'before' ? createLegacyClient(config) : createFunctionClient(config);
  const cache = design === 'before' ? createLegacyListRepository(client, config) : createListRepository(client, config);
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
    if (m.op === 'setup') serve = serveDesign(m.job, m.design);
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
