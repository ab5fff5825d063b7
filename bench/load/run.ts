import autocannon from 'autocannon';
import { checkResponse } from './check.js';
import { planRequest, queryRules, seededRandom, type Expectation, type KeyKind, type LoadKeys } from './mix.js';

/**
 * One load run with autocannon against a running service (loopback): every connection draws its
 * requests from the mix (bench/load/mix.ts) with a seeded generator, and every response is checked
 * against what its request must get (bench/load/check.ts). Bounded in time (`durationSeconds`, plus a
 * watchdog) and, with `amount`, in count.
 */
export interface LoadOptions {
  url: string;
  keys: LoadKeys;
  connections: number;
  durationSeconds: number;
  /** Stop after this many requests instead of after `durationSeconds`. */
  amount?: number | undefined;
  seed: number;
  todayUtc: string;
  /** Per-request timeout, seconds. */
  timeoutSeconds?: number;
}

export interface LoadReport {
  url: string;
  connections: number;
  durationSeconds: number;
  seed: number;
  /** Responses received and checked. */
  responses: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  byStatus: Record<string, number>;
  byKeyKind: Partial<Record<KeyKind, number>>;
  /** Connection errors and time-outs (autocannon's counts). */
  errors: number;
  timeouts: number;
  /** Responses that differed from what their request must get. */
  wrong: number;
  /** Up to 50 distinct problems (by text and key kind) with how often each was seen. */
  problems: { problem: string; count: number }[];
  ok: boolean;
}

interface Context {
  expect?: Expectation;
  keyKind?: KeyKind;
  query?: string;
}

const MAX_DISTINCT_PROBLEMS = 50;

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const queries = queryRules(options.todayUtc);
  const random = seededRandom(options.seed);
  const byStatus: Record<string, number> = {};
  const byKeyKind: Partial<Record<KeyKind, number>> = {};
  const problems = new Map<string, number>();
  let responses = 0;
  let wrong = 0;

  const request: autocannon.Request = {
    method: 'GET',
    setupRequest: (req, context) => {
      const planned = planRequest(options.keys, queries, random);
      const c = context as Context;
      c.expect = planned.expect;
      c.keyKind = planned.keyKind;
      c.query = planned.query.name;
      return {
        ...req,
        method: 'GET',
        path: planned.query.path,
        headers: planned.key === undefined ? {} : { 'x-api-key': planned.key },
      };
    },
    onResponse: (status, body, context, headers) => {
      responses++;
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      const c = context as Context;
      if (!c.expect || !c.keyKind) {
        wrong++;
        problems.set('response without a planned request', (problems.get('response without a planned request') ?? 0) + 1);
        return;
      }
      byKeyKind[c.keyKind] = (byKeyKind[c.keyKind] ?? 0) + 1;
      const found = checkResponse(c.expect, status, body, headers ?? {});
      if (found.length > 0) {
        wrong++;
        for (const p of found) {
          const label = `${p} (key ${c.keyKind}; e.g. ${c.query})`;
          const key = `${p} (key ${c.keyKind}`;
          const seen = [...problems.keys()].find((k) => k.startsWith(key));
          if (seen !== undefined) problems.set(seen, problems.get(seen)! + 1);
          else if (problems.size < MAX_DISTINCT_PROBLEMS) problems.set(label, 1);
        }
      }
    },
  };

  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationSeconds,
        ...(options.amount !== undefined ? { amount: options.amount } : {}),
        timeout: options.timeoutSeconds ?? 10,
        requests: [request],
      },
      (err: Error | null, res: autocannon.Result) => {
        clearTimeout(watchdog);
        if (err) reject(err);
        else resolve(res);
      },
    );
    // Bounded whatever happens: stop well after the planned end.
    const watchdog = setTimeout(() => instance.stop(), (options.durationSeconds + (options.timeoutSeconds ?? 10) + 30) * 1000);
  });

  const report: LoadReport = {
    url: options.url,
    connections: options.connections,
    durationSeconds: result.duration,
    seed: options.seed,
    responses,
    requestsPerSecond: result.requests.average,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    byStatus,
    byKeyKind,
    errors: result.errors,
    timeouts: result.timeouts,
    wrong,
    problems: [...problems].map(([problem, count]) => ({ problem, count })).sort((a, b) => b.count - a.count),
    ok: false,
  };
  report.ok = report.errors === 0 && report.timeouts === 0 && report.wrong === 0 && report.responses > 0;
  return report;
}

/** The report as the lines `npm run load` prints. */
export function formatReport(report: LoadReport): string[] {
  const lines = [
    `Load: ${report.connections} connections, ${report.durationSeconds.toFixed(1)} s, seed ${report.seed}, ${report.url}`,
    `  responses ${report.responses}, ${report.requestsPerSecond.toFixed(0)} requests/s`,
    `  latency p50 ${report.latencyMs.p50} ms, p90 ${report.latencyMs.p90} ms, p99 ${report.latencyMs.p99} ms, max ${report.latencyMs.max} ms`,
    `  by status: ${Object.entries(report.byStatus).map(([s, n]) => `${s}: ${n}`).join(', ')}`,
    `  by key: ${Object.entries(report.byKeyKind).map(([k, n]) => `${k}: ${n}`).join(', ')}`,
    `  errors ${report.errors}, timeouts ${report.timeouts}, wrong responses ${report.wrong}`,
  ];
  for (const p of report.problems) lines.push(`  WRONG x${p.count}: ${p.problem}`);
  lines.push(report.ok ? 'OK: every response was what its request must get' : 'FAILED');
  return lines;
}
