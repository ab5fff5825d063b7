import { ConfigError } from './errors.js';

/** Epoch milliseconds now. Every instant the runtime and the tooling use comes from a Clock. */
export type Clock = () => number;

/** The settings `npm test -- --at` and `npm start -- --at` set for every process they start. */
export const CLOCK_AT_ENV = 'CLOCK_AT';
export const CLOCK_AT_ANCHOR_ENV = 'CLOCK_AT_ANCHOR';

/** The system time itself: only for anchoring `--at` (everything else takes processClock). */
export const realClock: Clock = () => Date.now();

/**
 * Runs `fn` (synchronous) with `Date.now()` reading `clock`: for a library that reads the system
 * time itself, such as the standardwebhooks verifier's timestamp tolerance, under `--at`.
 */
export function atClockInstant<T>(clock: Clock, fn: () => T): T {
  const now = clock();
  const system = Date.now;
  Date.now = () => now;
  try {
    return fn();
  } finally {
    Date.now = system;
  }
}

/** A clock that read `at` when `real` read `anchor`, and runs on from there at real speed. */
export function shiftedClock(at: number, anchor: number, real: Clock = realClock): Clock {
  const offset = at - anchor;
  return offset === 0 ? real : () => real() + offset;
}

/** A clock that always reads `at` (tests). */
export const fixedClock = (at: number | string): Clock => {
  const ms = typeof at === 'string' ? Date.parse(at) : at;
  return () => ms;
};

/** An ISO 8601 instant with its offset (`2026-12-31T23:30:00Z`, `2027-03-28T01:30:00+01:00`), or undefined. */
export function parseClockInstant(text: string): number | undefined {
  const value = text.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,3})?)?(Z|[+-](0\d|1[0-4]):[0-5]\d)$/.exec(value);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const civil = new Date(Date.UTC(year, month - 1, day));
  if (civil.getUTCFullYear() !== year || civil.getUTCMonth() !== month - 1 || civil.getUTCDate() !== day) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The clock the settings name: real time, or, with CLOCK_AT (an ISO 8601 instant with its offset),
 * a clock that read CLOCK_AT when the real one read CLOCK_AT_ANCHOR (epoch ms; default: now).
 */
export function clockFromSettings(env: Env, real: Clock = realClock): Clock {
  const raw = env[CLOCK_AT_ENV]?.trim();
  if (!raw) return real;
  const at = parseClockInstant(raw);
  if (at === undefined) {
    throw new ConfigError(CLOCK_AT_ENV, `'${raw}' is not an ISO 8601 instant with an offset, such as 2026-12-31T23:30:00Z`);
  }
  const anchorRaw = env[CLOCK_AT_ANCHOR_ENV]?.trim();
  if (anchorRaw && !/^\d{1,16}$/.test(anchorRaw)) {
    throw new ConfigError(CLOCK_AT_ANCHOR_ENV, `'${anchorRaw}' is not epoch milliseconds`);
  }
  return shiftedClock(at, anchorRaw ? Number(anchorRaw) : real(), real);
}

/**
 * The process's one clock, the default of every component that takes a Clock: real time, or the
 * instant of `--at` (CLOCK_AT; src/config.ts refuses it on the deployed stages).
 */
let settled: Clock | undefined;
export const processClock: Clock = () => (settled ??= clockFromSettings(process.env))();
