import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Starts the benchmark module at `moduleUrl` in a Node process of its own, with this process's flags
 * (the `bench` script's --single-threaded and --expose-gc) and an IPC channel; its stdout goes
 * nowhere. TypeScript is loaded with tsx, added when this process was started without it (a test).
 */
export function forkModule(moduleUrl: string): ChildProcess {
  const execArgv = process.execArgv.some((arg) => arg.includes('tsx')) ? process.execArgv : [...process.execArgv, '--import', 'tsx'];
  return fork(fileURLToPath(moduleUrl), [], { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
}

/** True in the process `forkModule` started for `moduleUrl`. */
export function isForkedModule(moduleUrl: string): boolean {
  return process.argv[1] === fileURLToPath(moduleUrl) && process.send !== undefined;
}
