import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { fromEpochDay, toEpochDay } from '../../../src/kernel/dates.js';
import {
  deletionTime,
  dueDay,
  EXPIRY_SHARD_KEYS,
  expiryShard,
  RETENTION_DAYS,
  retirementDay,
  retirementInstant,
} from '../../../src/kernel/retirement.js';
import { expiryInstant, toStorageItem } from '../../../src/kernel/leg-item.js';
import { fcParams } from '../../support/fast-check.js';
import { storedLeg } from '../../support/legs.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Every zone this runtime knows, the extremes of the offsets included (Etc/GMT+12 is UTC-12, Pacific/Kiritimati UTC+14). */
const ZONES = [...Intl.supportedValuesOf('timeZone'), 'Etc/GMT+12', 'Etc/GMT-14', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'UTC'];
const zone = fc.constantFrom(...ZONES);
// 1990 to 2100: dates the zone database has real rules for, and a few decades beyond.
const epochDay = fc.integer({ min: toEpochDay('1990-01-01'), max: toEpochDay('2100-12-31') });
const date = epochDay.map(fromEpochDay);
const legId = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);

describe('the retirement of a leg (src/kernel/retirement.ts)', () => {
  it('comes when the leg is expired in its own zone, whatever the zone', () => {
    fc.assert(
      fc.property(date, zone, (endDate, timeZone) => {
        expect(expiryInstant(endDate, timeZone)).toBeLessThanOrEqual(retirementInstant(endDate));
      }),
      fcParams(500),
    );
  });

  it('comes no later than the expiry in UTC-12, the last zone where the end date ends', () => {
    fc.assert(
      fc.property(date, (endDate) => {
        expect(retirementInstant(endDate)).toBe(expiryInstant(endDate, 'Etc/GMT+12'));
        // Computed independently: the day after endDate, 12:00 UTC.
        expect(retirementInstant(endDate)).toBe(Date.parse(`${endDate}T12:00:00Z`) + DAY_MS);
      }),
      fcParams(200),
    );
  });

  it('is due exactly from its retirement instant on', () => {
    fc.assert(
      fc.property(date, fc.integer({ min: -3 * DAY_MS, max: 3 * DAY_MS }), (endDate, offset) => {
        const now = retirementInstant(endDate) + offset;
        // Due when the run's due day is the retirement day or later (the index query is `xd <= due`).
        expect(retirementDay(endDate) <= dueDay(now)).toBe(offset >= 0);
      }),
      fcParams(500),
    );
  });

  it('due day: yesterday before 12:00 UTC, today from 12:00 UTC', () => {
    fc.assert(
      fc.property(epochDay, fc.integer({ min: 0, max: DAY_MS - 1 }), (day, ms) => {
        const expected = ms < 12 * HOUR_MS ? fromEpochDay(day - 1) : fromEpochDay(day);
        expect(dueDay(day * DAY_MS + ms)).toBe(expected);
      }),
      fcParams(300),
    );
  });

  it('the item is deleted RETENTION_DAYS after its retirement, in epoch seconds', () => {
    fc.assert(
      fc.property(date, (endDate) => {
        const ttl = deletionTime(retirementDay(endDate));
        expect(Number.isInteger(ttl)).toBe(true);
        expect(ttl * 1000 - retirementInstant(endDate)).toBe(RETENTION_DAYS * DAY_MS);
      }),
      fcParams(200),
    );
  });

  it('the shard of an id is one of the index partitions, the same on every call', () => {
    fc.assert(
      fc.property(legId, (id) => {
        expect(EXPIRY_SHARD_KEYS).toContain(expiryShard(id));
        expect(expiryShard(id)).toBe(expiryShard(`${id}`));
      }),
      fcParams(300),
    );
    // Spread: 2,000 ids land in every shard.
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++) counts.set(expiryShard(`leg-${i}`), (counts.get(expiryShard(`leg-${i}`)) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([...EXPIRY_SHARD_KEYS].sort());
    for (const n of counts.values()) expect(n).toBeGreaterThan(2_000 / EXPIRY_SHARD_KEYS.length / 2);
  });

  it('every stored leg, listed or not, carries its shard and retirement day', () => {
    fc.assert(
      fc.property(legId, date, fc.integer({ min: 0, max: 60 }), fc.boolean(), fc.boolean(), zone, (id, startDate, span, listed, blocked, depTimezone) => {
        const endDate = fromEpochDay(toEpochDay(startDate) + span);
        const item = toStorageItem(storedLeg({ id, startDate, endDate, listed, blocked, depTimezone }));
        expect(item.xp).toBe(expiryShard(id));
        expect(item.xd).toBe(fromEpochDay(toEpochDay(endDate) + 1));
        expect(item.ttl).toBeUndefined();
      }),
      fcParams(200),
    );
  });
});
