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
 * the functions' own, alternating which goes first, after two unmeasured pairs.
 *
 * It runs in a Node process of its own, started with the benchmark's flags (single-threaded, GC
 * exposed): a list function's container holds its own code and cache, not the benchmark's data set,
 * oracle and figures, whose hundred-odd MB would otherwise be marked by every collection the reads
 * cause and add the same cost to both designs.
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
  /** CPU time of each request (process.cpuUsage, user + system), ms. */
  beforeMs: number[];
  afterMs: number[];
  errors: string[];
}

/** Runs the comparison in a child Node process with this one's flags. */
export function measureColdCpu(job: ColdCpuJob): Promise<ColdCpuSamples> {
  const child = forkModule(import.meta.url);
  return new Promise((resolve, reject) => {
    let result: ColdCpuSamples | undefined;
    child.once('message', (message) => {
      result = message as ColdCpuSamples;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (result) resolve(result);
      else reject(new Error(`the cold-CPU process ended (exit code ${code}) without a result`));
    });
    child.send(job);
  });
}

const WARM_UP_PAIRS = 2;

async function run(job: ColdCpuJob): Promise<ColdCpuSamples> {
  const config = readConfig(job.settings);
  const legacyClient = createLegacyClient(config);
  const legacyCache = createLegacyListRepository(legacyClient, config);
  const legacyList = createListHandler({ repository: legacyCache, config });
  const client = createFunctionClient(config);
  const cache = createListRepository(client, config);
  const list = createListHandler({ repository: cache, config });
  const errors = new Set<string>();

  const once = async (design: 'before' | 'after', check = true): Promise<number> => {
    (design === 'before' ? legacyCache : cache).clear();
    const event = listEvent(job.params, job.authorizer);
    const c0 = process.cpuUsage();
    const res: APIGatewayProxyStructuredResultV2 = await (design === 'before' ? legacyList : list)(event, lambdaContext('list-empty-legs'));
    const cpu = process.cpuUsage(c0);
    const body = typeof res.body === 'string' ? res.body : '';
    if (!check) return 0;
    if (res.statusCode !== 200) errors.add(`cold CPU (${design}): HTTP ${res.statusCode} ${body.slice(0, 200)}`);
    else {
      const total = (JSON.parse(body) as { data: { total: number } }).data.total;
      if (total !== job.expectedTotal) errors.add(`cold CPU (${design}): total ${total}, expected ${job.expectedTotal}`);
    }
    return (cpu.user + cpu.system) / 1000;
  };

  // The functions log to stdout; this process's stdout goes nowhere, and writing is skipped as in
  // the benchmark's own phases.
  process.stdout.write = () => true;
  const beforeMs: number[] = [];
  const afterMs: number[] = [];
  try {
    // A new process compiles as it goes: its first full reads can outlast the functions' 1.5 s per
    // DynamoDB attempt and answer 503. Two pairs first, neither measured nor checked.
    for (let round = 0; round < WARM_UP_PAIRS; round++) {
      await once('before', false);
      await once('after', false);
    }
    for (let round = 0; round < job.rounds; round++) {
      const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const design of order) (design === 'before' ? beforeMs : afterMs).push(await once(design));
    }
  } finally {
    legacyClient.destroy();
    client.destroy();
  }
  return { beforeMs, afterMs, errors: [...errors] };
}

if (isForkedModule(import.meta.url)) {
  process.once('message', (job: ColdCpuJob) => {
    run(job).then(
      (result) => process.send!(result, () => process.exit(0)),
      (err: unknown) => {
        process.stderr.write(`cold-CPU process: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        process.exit(1);
      },
    );
  });
}
