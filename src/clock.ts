/** Epoch milliseconds now. Every instant the runtime and the tooling use comes from a Clock. */
export type Clock = () => number;

/** The real clock: the only place that reads the system time (eslint refuses it elsewhere). */
export const systemClock: Clock = () => Date.now();

/** A clock that read `at` when `real` read `anchor`, and runs on from there at real speed. */
export function shiftedClock(at: number, anchor: number, real: Clock = systemClock): Clock {
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
  const match = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Date.parse(text.trim());
  return Number.isFinite(ms) ? ms : undefined;
}
