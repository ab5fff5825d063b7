import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { formatReport, parseJsonReport } from '../bench/report.js';
import { applyAtFlag } from '../cli/clock-flag.js';
import { CommandError, parseCommandLine } from '../cli/command.js';

/**
 * `npm test [-- --at INSTANT]`: every check in one command; with `--at`, everything (the tests, the
 * local server and every command they start) runs on a clock that reads INSTANT at the start.
 * Type-check, lint, the OpenAPI lints (redocly, and Spectral with the OWASP API Security ruleset of
 * .spectral.yaml), every jest project
 * (unit, handler, integration, infra, e2e), the CDK synth of both stages and a small benchmark run. Each non-jest
 * step counts as one test; the last line is `N passed, M failed` over all of them.
 *
 * The checks run in four phases, the steps of a phase side by side (the machine has two cores, and
 * tsc and eslint each type-check the whole tree on one): the static checks and the filter
 * walkthrough's check (CONTRIBUTING.md; not beside the benchmarks, whose targets measure CPU); jest
 * (two workers: the integration and end-to-end files mostly wait on DynamoDB Local and child processes); the synth and
 * the benchmark smoke run (its errors are judged, a count; its figures are for the full benchmark; it runs
 * with --json, and fails unless its stdout is the JSON report alone) beside the change log benchmark;
 * last, alone, the watch matching benchmark. A step's output is printed
 * whole when it ends, so the log stays readable. Every gate is a count or a ratio of two figures of
 * the same run (CPU against the reference workload's, bench/calibration.ts); absolute times are
 * printed beside them, not judged, and the closing figures list the gates each benchmark judged.
 */
interface Step {
  name: string;
  command: string;
  args: string[];
  /** Only when this npm script exists. */
  needsScript?: string;
  /**
   * Takes the step's stdout (kept apart from its stderr) and returns what to print for it; throws,
   * and the step fails, when stdout is not what it should be.
   */
  stdout?: (text: string) => string;
  /** What the step judges, when it is not the `target` lines it prints (a benchmark's `--check`). */
  judges?: string;
}

/**
 * Beside the run's own clock, the date-sensitive files (`@dateSensitive`, jest.config.js) run again
 * at each of these: the hours around UTC's midnight, a European and an American daylight-saving
 * night, a year's last half hour, a leap day, and an hour when Kiritimati (UTC+14) is two calendar
 * days ahead of Pago Pago (UTC-11).
 */
const FIXED_INSTANTS = [
  '2026-11-25T23:30:00Z',
  '2026-11-26T00:30:00Z',
  '2027-03-28T00:30:00Z',
  '2026-11-01T05:30:00Z',
  '2026-12-31T23:30:00Z',
  '2028-02-29T12:00:00Z',
  '2026-11-25T10:30:00Z',
];

const runEnv: NodeJS.ProcessEnv = { ...process.env };
try {
  const { values: flags } = parseCommandLine(process.argv.slice(2), { at: { type: 'string' } }, false);
  applyAtFlag(flags.at, runEnv);
  if (flags.at !== undefined) console.log(`The clock reads ${runEnv.CLOCK_AT} now, for every test and every process they start.`);
} catch (err) {
  const failure = CommandError.from(err);
  console.error(failure.message);
  process.exit(failure.status);
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts?: Record<string, string> };
const env = {
  ...runEnv,
  TEST_INSTANTS: FIXED_INSTANTS.join(','),
  NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules', '--no-warnings=ExperimentalWarning']
    .filter(Boolean)
    .join(' '),
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // DynamoDB Local's JVMs here live seconds to minutes: one GC thread and no C2 compiler cost less CPU.
  DYNAMODB_LOCAL_JAVA_OPTIONS: process.env.DYNAMODB_LOCAL_JAVA_OPTIONS ?? '-XX:+UseSerialGC -XX:TieredStopAtLevel=1',
  CDK_DISABLE_CLI_TELEMETRY: 'true',
  // redocly: no usage data sent, no update check.
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
};

const steps: Step[] = [
  { name: 'type-check (tsc --noEmit)', command: 'npx', args: ['tsc', '--noEmit'] },
  { name: 'lint (eslint)', command: 'npx', args: ['eslint', '.', '--max-warnings', '0'] },
  {
    name: 'OpenAPI lint (redocly lint docs/openapi.yaml)',
    command: 'npx',
    args: ['redocly', 'lint', 'docs/openapi.yaml', '--format=stylish'],
  },
  {
    name: 'OpenAPI security lint (spectral lint docs/openapi.yaml: OWASP API Security 2023, .spectral.yaml; warnings fail)',
    command: 'npm',
    args: ['run', '--silent', 'lint:spectral'],
    needsScript: 'lint:spectral',
  },
  {
    name: "CONTRIBUTING's filter walkthrough followed on a fresh clone of HEAD (npm run walkthrough:check)",
    command: 'npm',
    args: ['run', '--silent', 'walkthrough:check'],
    needsScript: 'walkthrough:check',
  },
  { name: 'cdk synth, both stages', command: 'npm', args: ['run', '--silent', 'synth'], needsScript: 'synth' },
  {
    name: 'benchmark smoke run (1,000 legs, 20 runs, 20 simulated seconds of traffic; --json: stdout is the report alone)',
    command: 'npm',
    args: ['run', '--silent', 'bench', '--', '--json', '--legs', '1000', '--runs', '20', '--traffic-seconds', '20'],
    needsScript: 'bench',
    stdout: (text) => formatReport(parseJsonReport(text)),
    judges: 'its errors, a count: every response right at the instant it was served, every bucket holding matching legs read, the bundle checks; its targets are reported, not judged (npm run bench -- --check judges them at 20,000 legs)',
  },
  {
    name: "watch matching benchmark (10,000 watches, 20,000 legs; --check: its ratios must hold, CPU per change against the reference workload's and against testing every watch, and its counts, the flight watches' reads per batch of changes)",
    command: 'npm',
    args: ['run', '--silent', 'bench:watches', '--', '--changes', '4000', '--check'],
    needsScript: 'bench:watches',
  },
  {
    name: "change log benchmark (2,000 legs, 20 writes a second for 5 s; --check: its unit counts and its CPU per change against the reference workload's must hold; times reported)",
    command: 'npm',
    args: ['run', '--silent', 'bench:changes', '--', '--legs', '2000', '--catch-up', '2000', '--rate', '20', '--seconds', '5', '--check'],
    needsScript: 'bench:changes',
  },
];

let passed = 0;
let failed = 0;
const summary: string[] = [];
/** The gates the benchmark steps judged, and the absolute figures they reported beside them (docs/performance.md, "Gates: ratios and counts"). */
const gates: string[] = [];

/** A benchmark's `target` (judged) and `figure` (reported, not judged) lines, as bench/targets.ts `targetLine` writes them. */
function gatesOf(step: Step, text: string): string[] {
  const lines = text.split('\n').filter((l) => /^(target|figure) /.test(l));
  const judged = lines.filter((l) => l.startsWith('target '));
  const figures = lines.filter((l) => l.startsWith('figure '));
  if (judged.length + figures.length === 0 && step.judges === undefined) return [];
  return [
    `${step.name}:`,
    ...(step.judges !== undefined ? [`  judged: ${step.judges}`] : []),
    ...judged.map((l) => `  judged: ${l.slice('target '.length)}`),
    ...figures.map((l) => `  not judged: ${l.slice('figure '.length)}`),
  ];
}

/**
 * Runs one step. `live`: its output goes straight through (a step alone in its phase); otherwise
 * it is captured and printed whole when the step ends.
 */
function run(step: Step, live = false): Promise<boolean> {
  const { name, command, args, stdout } = step;
  const started = Date.now();
  if (live) console.log(`\n=== ${name}`);
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    const ownStdout: Buffer[] = [];
    child.stdout?.on('data', (d: Buffer) => (stdout ? ownStdout : output).push(d));
    child.stderr?.on('data', (d: Buffer) => output.push(d));
    const finish = (exitedOk: boolean, failure = '') => {
      let ok = exitedOk;
      let extra = failure;
      if (stdout && !failure) {
        try {
          extra = stdout(Buffer.concat(ownStdout).toString('utf8'));
        } catch (err) {
          ok = false;
          extra = err instanceof Error ? err.message : String(err);
        }
      }
      if (!live) console.log(`\n=== ${name}`);
      process.stdout.write(Buffer.concat(output));
      if (extra) console.log(extra);
      gates.push(...gatesOf(step, `${Buffer.concat(output).toString('utf8')}\n${extra}`));
      summary.push(`${ok ? 'ok  ' : 'FAIL'} ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      resolve(ok);
    };
    child.on('error', (err) => finish(false, `could not start: ${err.message}`));
    child.on('close', (code) => finish(code === 0));
  });
}

async function phase(list: readonly Step[]): Promise<void> {
  const wanted = list.filter((step) => !step.needsScript || pkg.scripts?.[step.needsScript]);
  const results = await Promise.all(wanted.map((step) => run(step)));
  for (const ok of results) {
    if (ok) passed++;
    else failed++;
  }
}

await phase(steps.slice(0, 5));

// Jest: every project, counted test by test.
mkdirSync('.tmp', { recursive: true });
const report = '.tmp/jest-results.json';
rmSync(report, { force: true });
const jestOk = await run(
  { name: 'jest: unit, handler, integration, infra, e2e; the date-sensitive files again at 7 fixed instants', command: 'npx', args: ['jest', '--maxWorkers=2', '--json', `--outputFile=${report}`] },
  true,
);
if (existsSync(report)) {
  const results = JSON.parse(readFileSync(report, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    numRuntimeErrorTestSuites: number;
  };
  passed += results.numPassedTests;
  failed += results.numFailedTests + results.numRuntimeErrorTestSuites;
  summary.push(`     jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numRuntimeErrorTestSuites} suites failed to run`);
  if (!jestOk && results.numFailedTests + results.numRuntimeErrorTestSuites === 0) failed++;
} else {
  failed++;
}

// The watch matching benchmark's target is CPU per change: it runs alone, not beside the synth and the smoke run.
const alone = (step: Step) => step.needsScript === 'bench:watches';
await phase(steps.slice(5).filter((step) => !alone(step)));
await phase(steps.slice(5).filter(alone));

console.log('\n=== gates: ratios and counts are judged; absolute times are reported beside them, never judged');
for (const line of gates) console.log(line);
console.log('\n=== summary');
for (const line of summary) console.log(line);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
