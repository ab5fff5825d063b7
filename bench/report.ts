import { trafficTable } from './markdown.js';
import type { BenchResult } from './run.js';

/** The human-readable report of a benchmark result. Pure. */

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * What `npm run bench -- --json` printed on stdout, which must be the report alone, so that
 * `npm run bench -- --json | jq` works: the result, or an error saying what stdout begins with.
 */
export function parseJsonReport(stdout: string): BenchResult {
  const begins = () => JSON.stringify(stdout.slice(0, 160));
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch (err) {
    throw new Error(`stdout is not one JSON object (${err instanceof Error ? err.message : String(err)}); it begins ${begins()}`);
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { version?: unknown }).version !== 1) {
    throw new Error(`stdout is JSON but not a benchmark report (version 1); it begins ${begins()}`);
  }
  return parsed as BenchResult;
}

export function formatReport(r: BenchResult): string {
  const out: string[] = [];
  out.push(
    `empty-legs benchmark: ${r.data.legs} legs (${r.data.indexEntries} in the index), today ${r.data.today}, ` +
      `${r.machine.cpus} CPUs, Node ${r.machine.node}, ${fmt(r.durationSeconds)} s`,
  );
  out.push(
    `mean item ${fmt(r.data.meanItemBytes, 0)} B, mean index entry ${fmt(r.data.meanIndexEntryBytes, 1)} B; ` +
      `empty cache: ${r.options.coldRounds} rounds of the mix; warm cache: ${r.options.runs} runs of each query; cache ceiling ${r.options.cacheTtlSeconds} s`,
  );
  out.push('');
  out.push('Read units per request (DynamoDB ConsumedCapacity, eventually consistent)');
  out.push(
    table(
      ['query', 'total', 'empty cache RU', 'whole-item RU', '(computed)', 'floor RU', 'fraction', 'warm RU', 'calls', 'items', 'item kB', 'resp kB'],
      [
        ...r.queries.map((q) => [
          q.name,
          String(q.total),
          fmt(q.cold.readUnits),
          fmt(q.reference.wholeItemReadUnits),
          fmt(q.reference.wholeItemReadUnitsComputed),
          fmt(q.reference.floorReadUnits),
          fmt(q.reference.fraction, 3),
          fmt(q.warm.readUnits),
          fmt(q.cold.calls),
          fmt(q.cold.items, 0),
          fmt(q.cold.itemBytes / 1000),
          fmt(q.cold.responseBytes / 1000),
        ]),
        [
          'overall (mean per request)',
          '',
          fmt(r.overall.cold.readUnits),
          fmt(r.queries.reduce((a, q) => a + q.reference.wholeItemReadUnits, 0) / (r.queries.length || 1)),
          fmt(r.queries.reduce((a, q) => a + q.reference.wholeItemReadUnitsComputed, 0) / (r.queries.length || 1)),
          fmt(r.queries.reduce((a, q) => a + q.reference.floorReadUnits, 0) / (r.queries.length || 1)),
          '',
          fmt(r.overall.warm.readUnits),
          fmt(r.overall.cold.calls),
          fmt(r.overall.cold.items, 0),
          fmt(r.overall.cold.itemBytes / 1000),
          fmt(r.overall.cold.responseBytes / 1000),
        ],
      ],
    ),
  );
  out.push('');
  out.push('List handler latency, ms (p50 / p95 / p99)');
  const lat = (m: { p50: number; p95: number; p99: number }) => `${fmt(m.p50, 2)} / ${fmt(m.p95, 2)} / ${fmt(m.p99, 2)}`;
  out.push(
    table(
      ['query', 'empty cache', 'n', 'warm cache', 'n', 'warm calls'],
      [
        ...r.queries.map((q) => [q.name, lat(q.cold.latencyMs), String(q.cold.runs), lat(q.warm.latencyMs), String(q.warm.runs), fmt(q.warm.calls, 3)]),
        ['overall', lat(r.overall.cold.latencyMs), String(r.overall.cold.runs), lat(r.overall.warm.latencyMs), String(r.overall.warm.runs), fmt(r.overall.warm.calls, 3)],
      ],
    ),
  );
  out.push(`authorizer handler: ${lat(r.overall.authorizerLatencyMs)} ms`);
  out.push('');
  out.push('Buckets read with an empty cache (allowed by the window / read / holding matches)');
  for (const q of r.queries) {
    const flag = q.buckets.excess.length > 0 ? `  EXCESS ${q.buckets.excess.join(',')}` : '';
    const miss = q.buckets.missing.length > 0 ? `  MISSING ${q.buckets.missing.join(',')}` : '';
    out.push(`  ${q.name}: ${q.buckets.allowed.length} / ${q.buckets.queried.length} / ${q.buckets.required.length}${flag}${miss}`);
  }
  out.push(
    `busiest bucket ${r.hotBucket.bucket}: ${r.hotBucket.entries} entries, ${fmt(r.hotBucket.readUnitsPerRead)} RU per read, ` +
      `${fmt(r.hotBucket.fullReadsPerSecondAt3000, 0)} reads/s at 3,000 RU/s`,
  );
  if (r.data.snapshot) {
    const sn = r.data.snapshot;
    out.push(`listing snapshot: ${sn.entries} entries in ${sn.parts} parts, ${fmt(sn.bytes / 1000)} kB gzip'd, built again (nothing changed) in ${fmt(sn.rebuildSeconds)} s`);
  }
  if (r.coldCpu) {
    const c = r.coldCpu;
    out.push(
      `cold-cache handler CPU, no-filter query (${c.rounds} rounds): ${fmt(c.afterMs.p50)} ms median (p95 ${fmt(c.afterMs.p95)})` +
        (c.growth ? `; ${fmt(c.growth.baseMs.p50)} ms at ${c.growth.baseLegs} legs in the same run: ${fmt(c.growth.ratio, 2)} times` : ''),
    );
    if (c.heap) out.push(`heap after a full GC: ${fmt(c.heap.emptyBytes / 1e6)} MB empty, ${fmt(c.heap.filledBytes / 1e6)} MB holding the cold read`);
  }
  if (r.importCpu) {
    const c = r.importCpu;
    out.push(
      `loading ${c.legs} legs (parse, validate, storage items): ${fmt(c.withChecksMs)} ms CPU with the airport checks ` +
        `(reading the reference ${fmt(c.referenceLoadMs)} ms of it; ${c.filled} records filled), ${fmt(c.withoutChecksMs)} ms without: ${fmt(c.ratio, 3)}`,
    );
  }
  out.push('');
  const b = r.bundles;
  out.push(
    `bundles: list ${kb(b.list.bytes)} (import ${fmt(b.list.importMs)} ms, ${fmt(b.list.importCpuMs)} ms CPU, in-process ${fmt(b.list.inProcessImportMs)} ms), ` +
      `authorizer ${kb(b.authorizer.bytes)} (import ${fmt(b.authorizer.importMs)} ms), ` +
      `hello-world ${kb(b.hello.bytes)} (import ${fmt(b.hello.importMs)} ms, ${fmt(b.hello.importCpuMs)} ms CPU, in-process ${fmt(b.hello.inProcessImportMs)} ms)`,
  );
  out.push(`list bundle: ${Object.entries(b.checks).map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`).join(', ')}`);
  if (b.nearby) {
    out.push(`list bundle, nearby search: first request ${fmt(b.nearby.firstMs)} ms CPU (reads the airport reference), next ${fmt(b.nearby.nextMs)} ms`);
  }
  out.push('');
  if (r.traffic) {
    out.push(trafficTable(r.traffic));
    out.push('');
  }
  out.push('Targets');
  for (const t of r.targets) {
    const verdict = t.notJudged !== undefined ? 'n/a  ' : t.holds ? 'holds' : 'FAILS';
    out.push(`  [${verdict}] ${t.name}: ${t.value} ${t.unit} (limit ${t.limit}${t.notJudged !== undefined ? `; not judged: ${t.notJudged}` : ''})`);
  }
  if (r.errors.length > 0) {
    out.push('');
    out.push('Errors');
    for (const e of r.errors) out.push(`  ${e}`);
  }
  return out.join('\n');
}
