import { CLOCK_AT_ANCHOR_ENV, CLOCK_AT_ENV, parseClockInstant, realClock } from '../src/clock.js';
import { CommandError } from './command.js';

/**
 * `--at INSTANT`: this process, and every process it starts, runs on a clock that reads INSTANT
 * now and runs on from there (CLOCK_AT and CLOCK_AT_ANCHOR, read by src/config.ts).
 */
export function applyAtFlag(at: string | undefined, env: NodeJS.ProcessEnv = process.env): void {
  if (at === undefined) return;
  const instant = parseClockInstant(at);
  if (instant === undefined) {
    throw CommandError.usage('--at', `'${at}' is not an ISO 8601 instant with an offset, such as 2026-12-31T23:30:00Z`);
  }
  env[CLOCK_AT_ENV] = new Date(instant).toISOString();
  env[CLOCK_AT_ANCHOR_ENV] = String(realClock());
}

/** A command against a deployed stage (`--aws`) keeps the real clock. */
export function refuseShiftedClock(flag: string, env: NodeJS.ProcessEnv = process.env): void {
  if (env[CLOCK_AT_ENV]?.trim()) {
    throw CommandError.usage(CLOCK_AT_ENV, `cannot go with ${flag}: a deployed stage keeps the real clock`);
  }
}
