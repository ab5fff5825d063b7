import { readFileSync, writeFileSync } from 'node:fs';
import { CommandError, parseCommandLine, runCommand } from '../cli/command.js';
import { parseIntegerSetting } from '../src/config.js';
import { renderChart } from './chart.js';
import { renderMarkdown } from './markdown.js';
import { renderTrafficChart } from './traffic-chart.js';
import { formatReport } from './report.js';
import type { BenchResult } from './run.js';
import { DEFAULT_TRAFFIC, trafficOptions, type TrafficOptions } from './traffic.js';
import { STATED_LEGS, TRAFFIC_STATED_SECONDS } from './targets.js';

/**
 * `npm run bench -- [--legs N] [--runs R] [--cold-rounds C] [--import-runs I] [--seed S] [--ttl T]
 *                   [--json] [--out FILE] [--check]`
 * `npm run bench -- --chart OUT.svg RESULT.json...`
 * `npm run bench -- --markdown RESULT.json...`  (the result tables of docs/performance.md)
 *
 * Runs the benchmark of docs/performance.md. With --json, stdout carries one JSON object and the
 * progress goes to stderr. Exit status: 1 on an error (or, with --check, a target that does not
 * hold), 2 on a bad flag.
 *
 * Nothing here may import the functions' modules statically: they read their settings at import,
 * and the benchmark sets them first (bench/run.ts).
 */
/** Queries in the mix (bench/mix.ts). */
const MIX_SIZE = 9;
/**
 * Empty-cache rounds of the mix by default: each request reads DynamoDB Local for real, up to a
 * second at 20,000 legs on two cores.
 */
const DEFAULT_COLD_ROUNDS = 6;

const USAGE =
  'usage: npm run bench -- [--legs N] [--runs R] [--cold-rounds C] [--import-runs I] [--seed S] [--ttl T] [--traffic] [--traffic-seconds S] [--json] [--out FILE] [--check]\n' +
  '       npm run bench -- --chart OUT.svg RESULT.json...\n' +
  '       npm run bench -- --markdown RESULT.json...\n' +
  '       npm run bench -- --traffic-chart OUT.svg RESULT.json';

function trafficOptionsOf(seconds: number): TrafficOptions | undefined {
  return seconds === 0 ? undefined : trafficOptions(seconds);
}

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(process.argv.slice(2), {
    legs: { type: 'string' },
    runs: { type: 'string' },
    'cold-rounds': { type: 'string' },
    'import-runs': { type: 'string' },
    seed: { type: 'string' },
    ttl: { type: 'string' },
    json: { type: 'boolean' },
    out: { type: 'string' },
    check: { type: 'boolean' },
    traffic: { type: 'boolean' },
    'traffic-seconds': { type: 'string' },
    chart: { type: 'string' },
    'traffic-chart': { type: 'string' },
    markdown: { type: 'boolean' },
    help: { type: 'boolean' },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (values.chart !== undefined) {
    if (positionals.length === 0) throw CommandError.usage('--chart', 'needs one or more RESULT.json files');
    const results = positionals.map((file) => JSON.parse(readFileSync(file, 'utf8')) as BenchResult);
    writeFileSync(values.chart, renderChart(results));
    process.stderr.write(`wrote ${values.chart}\n`);
    return;
  }
  if (values['traffic-chart'] !== undefined) {
    const file = positionals[0];
    if (file === undefined) throw CommandError.usage('--traffic-chart', 'needs a RESULT.json file with a traffic simulation');
    const result = JSON.parse(readFileSync(file, 'utf8')) as BenchResult;
    if (!result.traffic) throw CommandError.usage('--traffic-chart', `${file} has no traffic simulation`);
    writeFileSync(values['traffic-chart'], renderTrafficChart(result.traffic));
    process.stderr.write(`wrote ${values['traffic-chart']}\n`);
    return;
  }
  if (values.markdown) {
    if (positionals.length === 0) throw CommandError.usage('--markdown', 'needs one or more RESULT.json files');
    process.stdout.write(renderMarkdown(positionals.map((file) => JSON.parse(readFileSync(file, 'utf8')) as BenchResult)));
    return;
  }
  if (positionals.length > 0) throw CommandError.usage(positionals[0]!, `unexpected argument\n${USAGE}`);

  const runs = parseIntegerSetting('--runs', values.runs, 200, 1, 100_000);
  const legs = parseIntegerSetting('--legs', values.legs, 20_000, 1, 1_000_000);
  const options = {
    legs,
    runs,
    // Empty-cache requests read DynamoDB Local for real (up to a second each at 20,000 legs on two
    // cores): by default DEFAULT_COLD_ROUNDS rounds of the 9-query mix (fewer when `runs` is small).
    coldRounds: parseIntegerSetting('--cold-rounds', values['cold-rounds'], Math.min(DEFAULT_COLD_ROUNDS, Math.ceil(runs / MIX_SIZE)), 1, 100_000),
    importRuns: parseIntegerSetting('--import-runs', values['import-runs'], 7, 1, 1_000),
    seed: parseIntegerSetting('--seed', values.seed, 20_260_301, 0, 2 ** 32 - 1),
    // LISTING_CACHE_TTL_SECONDS: the ceiling of the change-aware cache, as deployed (lib/stage-config.ts).
    cacheTtlSeconds: parseIntegerSetting('--ttl', values.ttl, 900, 0, 3600),
    // The traffic simulation runs by default (--traffic says so explicitly); --traffic-seconds 0 skips it.
    // Past 20,000 legs 30 simulated seconds by default, the least its read-unit targets are stated for:
    // the oracle recomputes the mix over every leg after each write (docs/performance.md, "Running the benchmark").
    traffic: trafficOptionsOf(parseIntegerSetting('--traffic-seconds', values['traffic-seconds'], legs > STATED_LEGS ? TRAFFIC_STATED_SECONDS : DEFAULT_TRAFFIC.seconds, 0, 780)),
  };
  const json = values.json === true;
  // With --json, stdout carries the report alone (`| jq`): the progress goes to stderr, and so does
  // anything else written to stdout meanwhile (the benchmark drops the functions' logs, bench/run.ts).
  // Both writers are taken before the benchmark mutes stdout in its phases.
  const report = process.stdout.write.bind(process.stdout);
  const progress = json ? process.stderr.write.bind(process.stderr) : report;
  if (json) process.stdout.write = progress;
  const began = performance.now();
  const log = (line: string) => progress(`[${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

  const { runBenchmark } = await import('./run.js');
  const result = await runBenchmark({ ...options, log });
  if (values.out !== undefined) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
  report(json ? `${JSON.stringify(result)}\n` : `\n${formatReport(result)}\n`);

  const failing = result.targets.filter((t) => !t.holds);
  if (result.errors.length > 0) {
    process.stderr.write(`${result.errors.length} error(s): ${result.errors.join('; ')}\n`);
    process.exitCode = 1;
  } else if (values.check === true && failing.length > 0) {
    process.stderr.write(`targets not holding: ${failing.map((t) => t.name).join('; ')}\n`);
    process.exitCode = 1;
  }
}

runCommand(main);
