import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { commandStatus } from '../../cli/command.js';
import { clockEnv } from './clock.js';

/** Runs one of the project's npm scripts (`keys`, `legs:load`, `load`) as a user would, and collects its output. */
export const ROOT = resolve(import.meta.dirname, '../..');

export interface CommandRun {
  /** Exit status; -1 when a signal ended it. */
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `env` is the command's whole environment besides PATH and HOME, unless `inherit` adds this
 * process's; an `undefined` value removes a variable.
 */
/** The entry file that `npm run NAME` runs (its script in package.json ends with it). */
function entryOf(npmScript: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const entry = pkg.scripts[npmScript]?.split(' ').find((word) => word.endsWith('.ts'));
  if (!entry) throw new Error(`package.json has no script ${npmScript} that runs a .ts file`);
  return entry;
}

export function runScript(
  script: string,
  args: string[],
  env: Record<string, string | undefined> = {},
  options: { inherit?: boolean; timeoutMs?: number } = {},
): Promise<CommandRun> {
  // The commands follow the tests' clock (`npm test -- --at`) like everything else.
  const base = options.inherit ? { ...process.env, NODE_OPTIONS: undefined } : { PATH: process.env.PATH, HOME: process.env.HOME, ...clockEnv() };
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...base, ...env })) if (v !== undefined) childEnv[k] = v;
  return new Promise((done, fail) => {
    // `node --import tsx` as `npm start` runs: one process, where the tsx binary starts a second.
    const child = spawn(process.execPath, ['--import', 'tsx', entryOf(script), ...args], { cwd: ROOT, env: childEnv, timeout: options.timeoutMs ?? 30_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * Runs a command's main function in this process, as `runScript` runs its entry file: the same
 * environment (as `runScript` builds it) in place of this process's for the run, its stdout and
 * stderr collected, the exit status of `runCommand`. Runs started together run one after another.
 */
export async function runInProcess(
  main: (argv: string[]) => Promise<void>,
  args: string[],
  env: Record<string, string | undefined> = {},
  options: { inherit?: boolean } = {},
): Promise<CommandRun> {
  const turn = inProcessQueue.then(() => runAlone(main, args, env, options));
  inProcessQueue = turn.then(
    () => undefined,
    () => undefined,
  );
  return turn;
}

let inProcessQueue: Promise<void> = Promise.resolve();

async function runAlone(
  main: (argv: string[]) => Promise<void>,
  args: string[],
  env: Record<string, string | undefined>,
  options: { inherit?: boolean },
): Promise<CommandRun> {
  const saved = process.env;
  const out = { stdout: '', stderr: '' };
  const write = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  const childEnv: NodeJS.ProcessEnv = {};
  const base = options.inherit ? { ...process.env, NODE_OPTIONS: undefined } : { PATH: process.env.PATH, HOME: process.env.HOME, ...clockEnv() };
  for (const [k, v] of Object.entries({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...base, ...env })) {
    if (v !== undefined) childEnv[k] = v;
  }
  const collect = (stream: 'stdout' | 'stderr') => ((chunk: string | Uint8Array) => {
    out[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  }) as typeof process.stdout.write;
  process.env = childEnv;
  process.stdout.write = collect('stdout');
  process.stderr.write = collect('stderr');
  try {
    const code = await commandStatus(() => main(args));
    return { code, ...out };
  } finally {
    process.env = saved;
    process.stdout.write = write;
    process.stderr.write = writeErr;
  }
}
