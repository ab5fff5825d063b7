import type { BenchResult } from './run.js';
import { READ_KINDS, type DesignFigures } from './traffic.js';

/**
 * The result tables of docs/performance.md, rendered from benchmark results (`npm run bench --
 * --markdown RESULT.json...`), so the document shows what a run measured, not hand-copied figures.
 */
const n = (v: number, digits = 1) => v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const int = (v: number) => Math.round(v).toLocaleString('en-US');
const lat = (l: { p50: number; p95: number; p99: number }, digits: number) => `${n(l.p50, digits)} / ${n(l.p95, digits)} / ${n(l.p99, digits)}`;
const coldDigits = (p50: number) => (p50 >= 100 ? 0 : 1);

export function resultSection(r: BenchResult): string {
  const hot = r.hotBucket;
  const out: string[] = [];
  out.push(
    `#### ${int(r.data.legs)} legs (${int(r.data.indexEntries)} in the index, busiest bucket ${hot.bucket} with ${int(hot.entries)}; benchmark ${int(r.durationSeconds)} s)`,
    '',
    '| query | total | RU | whole items | fraction | floor | calls | entries read | warm RU | empty cache ms | warm cache ms |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  );
  for (const q of r.queries) {
    out.push(
      `| ${q.name} | ${q.total} | ${n(q.cold.readUnits)} | ${n(q.reference.wholeItemReadUnits)} | ${n(q.cold.readUnits / q.reference.wholeItemReadUnits, 3)} | ${n(q.reference.floorReadUnits)} | ${int(q.cold.calls)} | ${int(q.cold.items)} | ${n(q.warm.readUnits)} | ${lat(q.cold.latencyMs, coldDigits(q.cold.latencyMs.p50))} | ${lat(q.warm.latencyMs, 2)} |`,
    );
  }
  const mean = (f: (q: BenchResult['queries'][number]) => number) => r.queries.reduce((a, q) => a + f(q), 0) / (r.queries.length || 1);
  const whole = mean((q) => q.reference.wholeItemReadUnits);
  const c = r.overall.cold;
  out.push(
    `| **all** (mean per request) | | ${n(c.readUnits)} | ${n(whole)} | ${n(c.readUnits / whole, 3)} | ${n(mean((q) => q.reference.floorReadUnits))} | ${n(c.calls)} | ${int(c.items)} | ${n(r.overall.warm.readUnits)} | ${lat(c.latencyMs, coldDigits(c.latencyMs.p50))} | ${lat(r.overall.warm.latencyMs, 2)} |`,
    '',
  );
  const b = r.bundles;
  out.push(
    `Bundles: list ${n(b.list.bytes / 1000)} kB, import ${n(b.list.importMs)} ms (${n(b.list.inProcessImportMs)} ms inside \`import()\`); ` +
      `authorizer ${n(b.authorizer.bytes / 1000)} kB, ${n(b.authorizer.importMs)} ms; hello-world ${n(b.hello.importMs)} ms (${n(b.hello.inProcessImportMs)} ms). ` +
      `Authorizer handler p50 / p95 ${n(r.overall.authorizerLatencyMs.p50, 2)} / ${n(r.overall.authorizerLatencyMs.p95, 2)} ms. ` +
      `Mean index entry ${n(r.data.meanIndexEntryBytes)} B, mean item ${int(r.data.meanItemBytes)} B.` +
      (r.data.snapshot
        ? ` Listing snapshot: ${int(r.data.snapshot.entries)} entries in ${int(r.data.snapshot.parts)} parts, ${n(r.data.snapshot.bytes / 1000)} kB gzip'd, built again in ${n(r.data.snapshot.rebuildSeconds)} s.`
        : '') +
      (r.coldCpu
        ? ` Cold-cache handler CPU of the no-filter query, median of ${r.coldCpu.rounds}: ${n(r.coldCpu.afterMs.p50)} ms` +
          (r.coldCpu.growth
            ? `, against ${n(r.coldCpu.growth.baseMs.p50)} ms at ${int(r.coldCpu.growth.baseLegs)} legs in the same run (${n(r.coldCpu.growth.ratio, 2)} times).`
            : '.') +
          (r.coldCpu.heap
            ? ` Heap after a full collection (in its process): ${n(r.coldCpu.heap.emptyBytes / 1e6)} MB before its first read, ${n(r.coldCpu.heap.filledBytes / 1e6)} MB holding the cold read.`
            : '')
        : ''),
  );
  if (r.traffic) out.push('', trafficTable(r.traffic));
  return out.join('\n');
}

/** The traffic simulation's table: one column per design (before: TTL cache; after: change-aware). */
export function trafficTable(t: NonNullable<BenchResult['traffic']>): string {
  const o = t.options;
  const [before, after] = t.designs;
  if (!before || !after) return '';
  const ms = (l: { p50: number; p95: number; p99: number }) => `${n(l.p50, 2)} / ${n(l.p95, 2)} / ${n(l.p99, 2)}`;
  const rows: [string, (d: DesignFigures) => string][] = [
    ['requests', (d) => int(d.requests)],
    ['read units per request', (d) => n(d.readUnitsPerRequest, 3)],
    // Results before 27 November 2026 have no breakdown.
    ['of which: log head / log pages / snapshot / index / records', (d) => {
      const byKind = d.readUnitsByKind;
      return byKind ? READ_KINDS.map((k) => n(byKind[k], 3)).join(' / ') : '-';
    }],
    ['DynamoDB calls per request', (d) => n(d.callsPerRequest, 3)],
    ['busiest bucket partition, requests/s', (d) => `${n(d.busiestBucket.requestsPerSecond, 2)} (${d.busiestBucket.bucket || '-'})`],
    ['change log head reads/s (one item)', (d) => n(d.headReadsPerSecond, 1)],
    ['latency ms, p50 / p95 / p99', (d) => ms(d.latencyMs)],
    ['latency ms of cache misses, p50 / p95 / p99 (n)', (d) => (d.missLatencyMs.n > 0 ? `${ms(d.missLatencyMs)} (${d.missLatencyMs.n})` : '-')],
    ['CPU ms per request, p50 / p95 / p99', (d) => ms(d.cpuMs)],
    ['staleness p50 / p99 / max, s', (d) => `${n(d.staleness.p50Ms / 1000, 2)} / ${n(d.staleness.p99Ms / 1000, 2)} / ${n(d.staleness.maxMs / 1000, 2)}`],
    ['responses equal to no state of the table', (d) => int(d.inconsistent)],
  ];
  return [
    `Traffic simulation: ${o.containers} containers per design, ${o.requestsPerSecond} requests/s over ${o.seconds} simulated s, ` +
      `${o.writesPerSecond} leg changed per second and one batch of ${o.batchLegs} (${t.writes} writes, ${int(t.legsWritten)} legs); ` +
      `TTL ${o.ttlSeconds} s, ceiling ${o.ceilingSeconds} s. Keys: a revocation seen by all ${o.containers} authorizers after ` +
      `${n(t.keys.revokedSeenMs / 1000, 1)} s, a rotation after ${n(t.keys.rotatedSeenMs / 1000, 1)} s (simulated).`,
    '',
    '| | before: TTL cache | after: change-aware cache |',
    '|---|--:|--:|',
    ...rows.map(([name, f]) => `| ${name} | ${f(before)} | ${f(after)} |`),
  ].join('\n');
}

/** One row per target, one column per result (in the order given). */
export function targetsTable(results: readonly BenchResult[]): string {
  const head = ['target', ...results.map((r) => `${int(r.data.legs)} legs`)];
  const out = [`| ${head.join(' | ')} |`, `|---|${results.map(() => '--:').join('|')}|`];
  // One row per target name, in the order the runs first name them: runs of different versions of
  // the benchmark have different targets, and a cell is left empty where a run had none.
  const nameOf = (t: { name: string }) => t.name.replace(/ at \d+ legs/, '').replace(/loading \d+ legs/, 'loading legs');
  const names = [...new Set(results.flatMap((r) => r.targets.map(nameOf)))];
  for (const name of names) {
    const cells = results.map((r) => {
      const t = r.targets.find((x) => nameOf(x) === name);
      return t ? `${t.value} ${t.unit === 'ratio' || t.unit === 'queries' ? '' : `${t.unit} `}(limit ${t.limit}) ${t.notJudged !== undefined ? 'not judged' : t.holds ? 'holds' : '**fails**'}` : '';
    });
    out.push(`| ${name.replace(/\|/g, '\\|')} | ${cells.join(' | ')} |`);
  }
  return out.join('\n');
}

export function renderMarkdown(results: readonly BenchResult[]): string {
  const sorted = [...results].sort((a, b) => a.data.legs - b.data.legs);
  const first = sorted[0];
  const intro = first
    ? `${first.machine.cpus} cores, Node ${first.machine.node}, DynamoDB Local, seed ${first.options.seed}, today ${first.data.today}, ` +
      `${first.options.runs} warm-cache runs and ${first.options.coldRounds} empty-cache rounds of each query.`
    : '';
  return [intro, '', ...sorted.map((r) => resultSection(r) + '\n'), '##### Targets', '', targetsTable(sorted), ''].join('\n');
}
