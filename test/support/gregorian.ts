/**
 * An independent reference for the date properties: a plain Gregorian day count, written the
 * long way (leap years counted, months summed), sharing nothing with src/kernel/dates.ts. Years from
 * 1 up; day 0 is 1970-01-01.
 */
export function isLeap(y: number): boolean {
  return y % 400 === 0 || (y % 4 === 0 && y % 100 !== 0);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function monthLength(y: number, m: number): number {
  return m === 2 && isLeap(y) ? 29 : MONTH_DAYS[m - 1]!;
}

/** Days from 0001-01-01 to 1970-01-01. */
const EPOCH_FROM_YEAR_ONE = 719_162;

/** Days from 1970-01-01 to y-m-d (y >= 1). */
export function refDay(y: number, m: number, d: number): number {
  const before = y - 1;
  let days = before * 365 + Math.floor(before / 4) - Math.floor(before / 100) + Math.floor(before / 400);
  for (let month = 1; month < m; month++) days += monthLength(y, month);
  return days + d - 1 - EPOCH_FROM_YEAR_ONE;
}

/** The date y-m-d of a day count (inverse of refDay, by search; years from 1). */
export function refCivil(day: number): [number, number, number] {
  let y = Math.floor((day + EPOCH_FROM_YEAR_ONE) / 365.2425) + 1;
  while (refDay(y, 1, 1) > day) y--;
  while (refDay(y + 1, 1, 1) <= day) y++;
  let m = 1;
  while (m < 12 && refDay(y, m + 1, 1) <= day) m++;
  return [y, m, day - refDay(y, m, 1) + 1];
}

/** `yyyy-MM-dd` of a day count, four-digit years only (1-9999). */
export function refDate(day: number): string {
  const [y, m, d] = refCivil(day);
  if (y < 1 || y > 9999) throw new RangeError(`year ${y} has no four-digit form`);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Day count of a four-digit `yyyy-MM-dd`. */
export function refParse(date: string): number {
  return refDay(Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10)));
}

/** True when y-m-d is a date of years 1-9999. */
export function refIsDate(y: number, m: number, d: number): boolean {
  return y >= 1 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= monthLength(y, m);
}

/** Month number (y * 12 + m - 1) of a day count. */
export function refMonth(day: number): number {
  const [y, m] = refCivil(day);
  return y * 12 + m - 1;
}

export const REF_MIN_DAY = refDay(1, 1, 1);
export const REF_MAX_DAY = refDay(9999, 12, 31);
