import { describe, expect, it } from '@jest/globals';
import { addDays, dateInZone, isCalendarDate, isTimeZone, monthsBetween } from '../../../src/kernel/dates.js';

describe('isCalendarDate', () => {
  it.each([
    ['2026-02-28', true],
    ['2028-02-29', true],
    ['2026-02-29', false],
    ['2026-02-30', false],
    ['2026-13-01', false],
    ['2026-00-10', false],
    ['2026-1-01', false],
    ['20260101', false],
    ['2026-01-01T00:00', false],
  ])('%s -> %s', (value, expected) => {
    expect(isCalendarDate(value)).toBe(expected);
  });
});

describe('date arithmetic', () => {
  it('crosses month and year ends', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });
  it('lists months inclusively across a year end', () => {
    expect(monthsBetween('2026-11-30', '2027-02-01')).toEqual(['2026-11', '2026-12', '2027-01', '2027-02']);
    expect(monthsBetween('2026-11-30', '2026-11-01')).toEqual(['2026-11']);
  });
  it('gives the local date of an instant in a zone', () => {
    const instant = new Date('2026-11-21T02:00:00Z');
    expect(dateInZone(instant, 'UTC')).toBe('2026-11-21');
    expect(dateInZone(instant, 'America/Los_Angeles')).toBe('2026-11-20');
    expect(dateInZone(new Date('2026-11-21T12:00:00Z'), 'Pacific/Auckland')).toBe('2026-11-22');
  });
  it('knows real zones', () => {
    expect(isTimeZone('Europe/London')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
