import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

/**
 * `npm test`: every check in one command. Type-check, lint, the OpenAPI lint, every jest project
 * (unit, handler, integration, infra, e2e), the CDK synth of both stages and a small benchmark run. Each non-jest
 * step counts as one test; the last line is `N passed, M failed` over all of them.
 */
interface Step {
  name: string;
  command: string;
  args: string[];
  /** Only when this npm script exists. */
  needsScript?: string;
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts?: Record<string, string> };
const env = {
  ...process.env,
  NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules', '--no-warnings=ExperimentalWarning']
    .filter(Boolean)
    .join(' '),
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
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
  { name: 'cdk synth, both stages', command: 'npm', args: ['run', '--silent', 'synth'], needsScript: 'synth' },
  {
    name: 'benchmark smoke run (2,000 legs, 20 runs, 20 simulated seconds of traffic)',
    command: 'npm',
    args: ['run', '--silent', 'bench', '--', '--legs', '2000', '--runs', '20', '--traffic-seconds', '20'],
    needsScript: 'bench',
  },
];

let passed = 0;
let failed = 0;
const summary: string[] = [];

function run(name: string, command: string, args: string[]): boolean {
  const started = Date.now();
  console.log(`\n=== ${name}`);
  const r = spawnSync(command, args, { stdio: 'inherit', env });
  const ok = r.status === 0;
  summary.push(`${ok ? 'ok  ' : 'FAIL'} ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return ok;
}

for (const step of steps.slice(0, 3)) {
  if (run(step.name, step.command, step.args)) passed++;
  else failed++;
}

// Jest: every project, counted test by test.
mkdirSync('.tmp', { recursive: true });
const report = '.tmp/jest-results.json';
rmSync(report, { force: true });
const jestOk = run('jest: unit, handler, integration, infra, e2e', 'npx', ['jest', '--json', `--outputFile=${report}`]);
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

for (const step of steps.slice(3)) {
  if (step.needsScript && !pkg.scripts?.[step.needsScript]) continue;
  if (run(step.name, step.command, step.args)) passed++;
  else failed++;
}

console.log('\n=== summary');
for (const line of summary) console.log(line);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
