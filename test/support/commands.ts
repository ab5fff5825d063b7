import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
