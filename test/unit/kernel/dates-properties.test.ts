import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  addDays,
  dateInZone,
  daysBetween,
  fromEpochDay,
  isCalendarDate,
  MAX_DATE,
  MAX_EPOCH_DAY,
  MIN_DATE,
  MIN_EPOCH_DAY,
  monthOf,
  monthsBetween,
  toEpochDay,
  utcDate,
} from '../../../src/kernel/dates.js';
import { fcParams } from '../../support/fast-check.js';
import { REF_MAX_DAY, REF_MIN_DAY, refDate, refDay, refIsDate, refMonth, refParse } from '../../support/gregorian.js';

/**
 * Every date function is total and agrees with an independent Gregorian day count
 * (test/support/gregorian.ts) over 0001-01-01..9999-12-31, and with the JavaScript engine's own
 * Date beyond both ends (as far as a Date goes: +-100,000,000 days around 1970).
 */
const DAY_MS = 86_400_000;
// A Date holds +-8.64e15 ms: days -100,000,000 to 100,000,000 at midnight; stay a day inside for the noon instant.
const DATE_LIMIT = 99_999_999;
const params = fcParams(1000);
const pad = (n: number, w: number) => String(n).padStart(w, '0');
/** What Date#toISOString writes for the day, without the time. */
const engineDate = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, -14);

const inRange = fc.integer({ min: REF_MIN_DAY, max: REF_MAX_DAY });
const nearEnds = fc.oneof(
  fc.integer({ min: REF_MIN_DAY, max: REF_MIN_DAY + 800 }),
  fc.integer({ min: REF_MAX_DAY - 800, max: REF_MAX_DAY }),
);
const anyDay = fc.oneof(inRange, nearEnds, fc.integer({ min: -DATE_LIMIT, max: DATE_LIMIT }));

describe('dates against a reference day count', () => {
  it('has the calendar ends the API documents', () => {
    expect([MIN_DATE, MAX_DATE]).toEqual(['0001-01-01', '9999-12-31']);
    expect([MIN_EPOCH_DAY, MAX_EPOCH_DAY]).toEqual([refDay(1, 1, 1), refDay(9999, 12, 31)]);
    expect(['0001-01-01', '0099-12-31', '0100-02-29', '0400-02-29', '9999-12-31'].map(isCalendarDate)).toEqual([true, true, false, true, true]);
    expect(['0000-01-01', '10000-01-01', '+010000-01-01'].map(isCalendarDate)).toEqual([false, false, false]);
  });

  it('writes and reads every day of years 1-9999 as the reference does', () => {
    fc.assert(
      fc.property(fc.oneof(inRange, nearEnds), (day) => {
        const date = fromEpochDay(day);
        expect(date).toBe(refDate(day));
        expect(toEpochDay(date)).toBe(day);
        expect(isCalendarDate(date)).toBe(true);
        expect(monthOf(date)).toBe(date.slice(0, 7));
      }),
      params,
    );
  });

  it('accepts exactly the real dates of years 1-9999 written yyyy-MM-dd', () => {
    const parts = fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }));
    fc.assert(
      fc.property(parts, ([y, m, d]) => {
        const text = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
        expect(isCalendarDate(text)).toBe(y <= 9999 && refIsDate(y, m, d));
        if (isCalendarDate(text)) expect(toEpochDay(text)).toBe(refDay(y, m, d));
      }),
      params,
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 14 }), (text) => {
        const shaped = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text);
        const real = shaped && refIsDate(Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10)));
        expect(isCalendarDate(text)).toBe(real);
      }),
      params,
    );
  });

  it('is total beyond both ends: every day a Date can hold is written as Date#toISOString does and read back', () => {
    fc.assert(
      fc.property(anyDay, (day) => {
        const date = fromEpochDay(day);
        expect(date).toBe(engineDate(day));
        expect(toEpochDay(date)).toBe(day);
        expect(utcDate(new Date(day * DAY_MS + 12 * 3_600_000))).toBe(date);
      }),
      params,
    );
  });

  it('adds and subtracts days across the ends, and orders four-digit dates as their day counts', () => {
    fc.assert(
      fc.property(fc.oneof(inRange, nearEnds), fc.integer({ min: -1_000_000, max: 1_000_000 }), (day, k) => {
        const date = refDate(day);
        const later = addDays(date, k);
        expect(later).toBe(engineDate(day + k));
        expect(daysBetween(date, later)).toBe(k);
        if (day + k >= REF_MIN_DAY && day + k <= REF_MAX_DAY) {
          expect(later).toBe(refDate(day + k));
          expect(later < date).toBe(k < 0);
          expect(refParse(later) - refParse(date)).toBe(k);
        }
      }),
      params,
    );
  });

  it('lists the months between two dates, also past 9999-12, where 10000-01 is no longer lost', () => {
    expect(monthsBetween('9999-12-20', addDays('9999-12-20', 15))).toEqual(['9999-12', '+010000-01']);
    fc.assert(
      fc.property(fc.oneof(inRange, nearEnds), fc.integer({ min: -60, max: 2_000 }), (day, span) => {
        const from = refDate(day);
        const to = addDays(from, span);
        const months = monthsBetween(from, to);
        const end = new Date((day + span) * DAY_MS);
        const last = day + span <= REF_MAX_DAY ? refMonth(day + span) : end.getUTCFullYear() * 12 + end.getUTCMonth();
        expect(months).toHaveLength(Math.max(0, last - refMonth(day) + 1));
        if (span >= 0) expect(months[0]).toBe(from.slice(0, 7));
        if (months.length > 0) expect(months.at(-1)).toBe(monthOf(to));
        // Consecutive and distinct: each month is the one after the one before.
        for (let i = 1; i < months.length; i++) expect(monthOf(addDays(`${months[i]!}-01`, -1))).toBe(months[i - 1]);
      }),
      params,
    );
  });

  it('gives the local date of an instant in fixed-offset zones over the whole range', () => {
    const zones: [string, number][] = [
      ['UTC', 0],
      ['Etc/GMT-14', 14 * 60],
      ['Etc/GMT+12', -12 * 60],
      ['Etc/GMT-5', 5 * 60],
    ];
    const instant = fc.integer({ min: REF_MIN_DAY * DAY_MS + DAY_MS, max: REF_MAX_DAY * DAY_MS - DAY_MS });
    fc.assert(
      fc.property(instant, fc.constantFrom(...zones), (ms, [zone, offsetMinutes]) => {
        expect(dateInZone(new Date(ms), zone)).toBe(refDate(Math.floor((ms + offsetMinutes * 60_000) / DAY_MS)));
      }),
      params,
    );
  });

  it('refuses what is not a date rather than return NaN', () => {
    for (const bad of ['', '2026-02-30', '2026-13-01', 'x', '-000000-01-01', '20260101']) expect(() => toEpochDay(bad)).toThrow(RangeError);
    expect(() => fromEpochDay(Number.NaN)).toThrow(RangeError);
  });
});
