import { CLOCK_AT_ANCHOR_ENV, CLOCK_AT_ENV, processClock, type Clock } from '../../src/clock.js';
import { utcDate } from '../../src/kernel/dates.js';

/**
 * The tests' clock: the real one, or the instant of `npm test -- --at INSTANT` (CLOCK_AT, which the
 * local server and the commands a test starts read too). Tests take "now" from here, never from Date.
 */
export const testClock: Clock = processClock;

export const testNow = (): number => testClock();

/** Today's UTC date at the tests' clock (the query's today). */
export const testToday = (): string => utcDate(new Date(testNow()));

/** The clock's settings, for a child process started with an environment of its own. */
export function clockEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [CLOCK_AT_ENV, CLOCK_AT_ANCHOR_ENV]) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  return env;
}
