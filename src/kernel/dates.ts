/**
 * Calendar-date helpers on epoch days and month indexes, total over every date a `Date` can hold;
 * pure, no time zone but the ones passed in (docs/storage.md, "Dates").
 */

const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
/** A date as `fromEpochDay` writes it: four year digits, or a sign and six (ISO 8601 expanded). */
const ANY_DATE = /^([0-9]{4}|[+-][0-9]{6})-([0-9]{2})-([0-9]{2})$/;
const DAY_MS = 86_400_000;

/** The first and last date the API accepts and stores (four-digit years). */
export const MIN_DATE = '0001-01-01';
export const MAX_DATE = '9999-12-31';

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Days in month `m` (1-12) of year `y`. */
export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeapYear(y) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Epoch day of a civil date (proleptic Gregorian; any integer year). */
export function epochDayOf(y: number, m: number, d: number): number {
  // H. Hinnant, "chrono-compatible low-level date algorithms" (days_from_civil).
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The civil date of an epoch day: [year, month 1-12, day 1-31]. */
export function civilOf(day: number): [number, number, number] {
  // H. Hinnant (civil_from_days).
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

function yearText(y: number): string {
  if (y >= 0 && y <= 9999) return String(y).padStart(4, '0');
  return `${y < 0 ? '-' : '+'}${String(Math.abs(y)).padStart(6, '0')}`;
}

const two = (n: number) => String(n).padStart(2, '0');

/** True when `value` is a real calendar date written `yyyy-MM-dd`, 0001-01-01 to 9999-12-31 (`2026-02-30` is not). */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo);
}

/**
 * Epoch day of a date written `yyyy-MM-dd` (or in the expanded form `fromEpochDay` writes past
 * the four-digit years). Throws a RangeError for anything else: never NaN.
 */
export function toEpochDay(date: string): number {
  const m = ANY_DATE.exec(date);
  const [y, mo, d] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  if (!m || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || m[1] === '-000000') {
    throw new RangeError(`not a date: ${JSON.stringify(date)}`);
  }
  return epochDayOf(y, mo, d);
}

/** The date of an epoch day: `yyyy-MM-dd` for years 0000-9999, `±yyyyyy-MM-dd` beyond (as Date#toISOString). */
export function fromEpochDay(day: number): string {
  if (!Number.isSafeInteger(day)) throw new RangeError(`not an epoch day: ${day}`);
  const [y, m, d] = civilOf(day);
  return `${yearText(y)}-${two(m)}-${two(d)}`;
}

export const MIN_EPOCH_DAY = toEpochDay(MIN_DATE);
export const MAX_EPOCH_DAY = toEpochDay(MAX_DATE);

export function addDays(date: string, days: number): string {
  return fromEpochDay(toEpochDay(date) + days);
}

/** Whole days from `a` to `b` (b - a). */
export function daysBetween(a: string, b: string): number {
  return toEpochDay(b) - toEpochDay(a);
}

/** The UTC epoch day of an instant (a Date or epoch ms). */
export function utcEpochDay(now: Date | number): number {
  return Math.floor((typeof now === 'number' ? now : now.getTime()) / DAY_MS);
}

/** The UTC date of an instant. */
export function utcDate(now: Date): string {
  return fromEpochDay(utcEpochDay(now));
}

/** Month index (year * 12 + month - 1) of an epoch day. */
export function monthIndexOf(day: number): number {
  const [y, m] = civilOf(day);
  return y * 12 + m - 1;
}

/** First epoch day of a month index. */
export function firstDayOfMonth(index: number): number {
  return epochDayOf(Math.floor(index / 12), (((index % 12) + 12) % 12) + 1, 1);
}

/** Last epoch day of a month index. */
export function lastDayOfMonth(index: number): number {
  return firstDayOfMonth(index + 1) - 1;
}

/** `yyyy-MM` of a month index (`±yyyyyy-MM` past the four-digit years). */
export function monthName(index: number): string {
  return `${yearText(Math.floor(index / 12))}-${two((((index % 12) + 12) % 12) + 1)}`;
}

/** `yyyy-MM` of a date. */
export function monthOf(date: string): string {
  return monthName(monthIndexOf(toEpochDay(date)));
}

/** Every month `yyyy-MM` from the month of `from` to the month of `to`, inclusive; empty when `to`'s month is earlier. */
export function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  const last = monthIndexOf(toEpochDay(to));
  for (let i = monthIndexOf(toEpochDay(from)); i <= last; i++) months.push(monthName(i));
  return months;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    // Numeric parts with the era, so that years before 1 and past 9999 read back right.
    f = new Intl.DateTimeFormat('en-US', { timeZone, era: 'short', year: 'numeric', month: 'numeric', day: 'numeric' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when `timeZone` is an IANA zone this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The epoch day of the calendar date of `instant` in `timeZone`. */
export function epochDayInZone(instant: Date | number, timeZone: string): number {
  const p: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(instant)) p[part.type] = part.value;
  const year = Number(p.year);
  return epochDayOf(p.era === 'BC' || p.era === 'B' ? 1 - year : year, Number(p.month), Number(p.day));
}

/** The calendar date of `instant` in `timeZone`. */
export function dateInZone(instant: Date, timeZone: string): string {
  return fromEpochDay(epochDayInZone(instant, timeZone));
}
