import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { IndexEntryReader } from '../../../../src/kernel/index-entry.js';
import { expiryInstant, legExpiry, localInstant, offsetAt, toStorageItem } from '../../../../src/kernel/leg-item.js';
import { listedRecord } from '../../../../src/kernel/listed.js';
import { departureWindow } from '../../../../src/kernel/leg/departure.js';
import { storedLeg } from '../../../support/legs.js';

/** Departure times across clock changes (docs/import-format.md, "Departure times"). */
const utc = (iso: string) => Date.parse(iso);

describe('a local departure time as an instant', () => {
  it('Europe/London, spring forward (2027-03-28, 01:00 GMT to 02:00 BST): a skipped time falls an hour later', () => {
    expect(localInstant('2027-03-28', '00:30', 'Europe/London')).toBe(utc('2027-03-28T00:30:00Z'));
    expect(localInstant('2027-03-28', '01:30', 'Europe/London')).toBe(utc('2027-03-28T01:30:00Z')); // 02:30 BST
    expect(localInstant('2027-03-28', '02:30', 'Europe/London')).toBe(utc('2027-03-28T01:30:00Z'));
    expect(localInstant('2027-03-28', '14:00', 'Europe/London')).toBe(utc('2027-03-28T13:00:00Z'));
  });

  it('Europe/London, fall back (2027-10-31, 02:00 BST to 01:00 GMT): a repeated time is the first', () => {
    expect(localInstant('2027-10-31', '00:30', 'Europe/London')).toBe(utc('2027-10-30T23:30:00Z'));
    expect(localInstant('2027-10-31', '01:30', 'Europe/London')).toBe(utc('2027-10-31T00:30:00Z'));
    expect(localInstant('2027-10-31', '02:30', 'Europe/London')).toBe(utc('2027-10-31T02:30:00Z'));
    expect(localInstant('2027-10-31', '14:00', 'Europe/London')).toBe(utc('2027-10-31T14:00:00Z'));
  });

  it('America/New_York both ways (2027-03-14, 2027-11-07)', () => {
    expect(localInstant('2027-03-14', '01:59', 'America/New_York')).toBe(utc('2027-03-14T06:59:00Z'));
    expect(localInstant('2027-03-14', '02:30', 'America/New_York')).toBe(utc('2027-03-14T07:30:00Z')); // 03:30 EDT
    expect(localInstant('2027-03-14', '18:00', 'America/New_York')).toBe(utc('2027-03-14T22:00:00Z'));
    expect(localInstant('2027-11-07', '01:30', 'America/New_York')).toBe(utc('2027-11-07T05:30:00Z'));
    expect(localInstant('2027-11-07', '18:00', 'America/New_York')).toBe(utc('2027-11-07T23:00:00Z'));
  });

  it('reads back as the same local time wherever the clock shows it once, and always within the day', () => {
    const zones = ['Europe/London', 'America/New_York', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Apia', 'UTC'];
    fc.assert(
      fc.property(
        fc.integer({ min: 20_000, max: 22_000 }),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        (day, h, m) => {
          const date = new Date(day * 86_400_000).toISOString().slice(0, 10);
          const time = `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
          for (const zone of zones) {
            const at = localInstant(date, time, zone);
            const wall = at + offsetAt(at, zone);
            const asked = Date.parse(`${date}T${time}:00Z`);
            // Shown as asked, or later by the clock's jump when the time was skipped (at most an hour).
            expect(wall - asked).toBeGreaterThanOrEqual(0);
            expect(wall - asked).toBeLessThanOrEqual(3_600_000);
            if (wall !== asked) expect(offsetAt(at - 3_600_000, zone)).not.toBe(offsetAt(at, zone));
            expect(legExpiry({ endDate: date, depTimeTo: time }, zone)).toBeLessThanOrEqual(expiryInstant(date, zone));
          }
        },
      ),
    );
  });
});

describe('a leg with departure times', () => {
  const leg = { ...storedLeg({ id: 'D1', startDate: '2027-03-27', endDate: '2027-03-28', depTimezone: 'Europe/London' }), depTimeFrom: '18:00', depTimeTo: '14:00' };

  it('leaves the listing and the by-id route when its latest departure passes, not at the end of its endDate', () => {
    const item = toStorageItem(leg);
    expect(new IndexEntryReader().read(item)!.expiresAt).toBe(utc('2027-03-28T13:00:00Z'));
    expect(listedRecord(item, new Date(utc('2027-03-28T12:59:00Z')))?.id).toBe('D1');
    expect(listedRecord(item, new Date(utc('2027-03-28T13:00:00Z')))).toBeUndefined();
    // Without depTimeTo: the end of endDate in its zone (BST since 01:00 UTC).
    const { depTimeTo: _to, ...allDay } = leg;
    expect(listedRecord(toStorageItem(allDay), new Date(utc('2027-03-28T22:59:00Z')))?.id).toBe('D1');
    expect(listedRecord(toStorageItem(allDay), new Date(utc('2027-03-28T23:00:00Z')))).toBeUndefined();
  });

  it('gives its departure window local and UTC, null where no time was given', () => {
    expect(departureWindow(leg, 'Europe/London')).toEqual({
      earliestLocal: '2027-03-27T18:00',
      latestLocal: '2027-03-28T14:00',
      earliestUtc: '2027-03-27T18:00:00.000Z',
      latestUtc: '2027-03-28T13:00:00.000Z',
    });
    expect(departureWindow({ startDate: '2027-10-31', endDate: '2027-10-31', depTimeTo: '23:00' }, 'Europe/London')).toEqual({
      earliestLocal: null,
      latestLocal: '2027-10-31T23:00',
      earliestUtc: null,
      latestUtc: '2027-10-31T23:00:00.000Z',
    });
  });
});
