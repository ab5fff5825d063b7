import { isCalendarDate, isTimeZone } from '../../kernel/dates.js';

const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an ISO 8601 instant that carries its offset (`Z` or `±hh:mm`), e.g.
 * `2026-03-01T23:30:00-05:00`. Returns epoch milliseconds, or undefined when the text is not one
 * (a real calendar date, hours 00-23, minutes and seconds 00-59, offset at most ±18:00).
 */
export function parseInstant(text: string): number | undefined {
  const m = INSTANT.exec(text);
  if (!m) return undefined;
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  if (!isCalendarDate(date)) return undefined;
  const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? '0')];
  if (h > 23 || mi > 59 || s > 59) return undefined;
  const ms = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  let offsetMinutes = 0;
  if (!m[8]) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (om > 59 || oh * 60 + om > 18 * 60) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), h, mi, s, ms) - offsetMinutes * 60_000;
}

/** An IANA zone name the runtime knows (`Europe/Paris`, `UTC`); plain offsets are refused. */
export function isIanaTimeZone(value: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(value) && isTimeZone(value);
}
