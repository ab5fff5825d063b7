import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { listedRecord } from '../../../src/kernel/listed.js';
import { parseLegId } from '../../../src/leg-by-id/get-leg.js';
import { toApiRecord } from '../../../src/kernel/model.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { storedLeg } from '../../support/legs.js';

const NOW = new Date('2026-11-21T12:00:00Z');
const item = (over: Parameters<typeof storedLeg>[0]) => toStorageItem(storedLeg(over));

describe('parseLegId', () => {
  it('accepts exactly 1-64 of A-Z a-z 0-9 _ - (property)', () => {
    const alphabet = 'ABCXYZabcxyz0189_-'.split('');
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...alphabet), minLength: 1, maxLength: 64 }), (id) => {
        expect(parseLegId(id)).toBe(id);
      }),
    );
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80 }), (id) => {
        const valid = /^[A-Za-z0-9_-]{1,64}$/.test(id);
        if (valid) expect(parseLegId(id)).toBe(id);
        else expect(() => parseLegId(id)).toThrow("Invalid parameter 'id': must be 1-64 of A-Z a-z 0-9 _ -");
      }),
    );
  });

  it.each([undefined, '', 'a'.repeat(65), '~journal', 'a b', 'a/b', 'é'])('refuses %j', (id) => {
    expect(() => parseLegId(id)).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER' }));
  });
});

describe('listedRecord', () => {
  it('is the API record of a listed, unblocked leg that has not expired', () => {
    const stored = item({ id: 'a', startDate: '2026-11-21', endDate: '2026-11-22' });
    expect(listedRecord(stored, NOW)).toEqual(toApiRecord(stored));
  });

  it.each([
    ['unlisted', { listed: false }],
    ['blocked', { blocked: true }],
    ['expired in UTC', { startDate: '2026-11-19', endDate: '2026-11-20' }],
    ['expired at Kiritimati (already 22 November there)', { startDate: '2026-11-20', endDate: '2026-11-21', depTimezone: 'Pacific/Kiritimati' }],
  ])('is undefined for a leg %s', (_name, over) => {
    expect(listedRecord(item({ id: 'a', startDate: '2026-11-21', endDate: '2026-11-22', ...over }), NOW)).toBeUndefined();
  });

  it('still serves a leg ending today in a zone behind UTC, until its local midnight', () => {
    const stored = item({ id: 'a', startDate: '2026-11-20', endDate: '2026-11-21', depTimezone: 'Pacific/Pago_Pago' });
    // 21 November ends at Pago Pago (UTC-11) at 11:00 UTC on the 22nd.
    expect(listedRecord(stored, new Date('2026-11-22T10:59:00Z'))).toBeDefined();
    expect(listedRecord(stored, new Date('2026-11-22T11:00:00Z'))).toBeUndefined();
  });

  it('is undefined for an item without the index attributes (a journal item, a hand-made item)', () => {
    expect(listedRecord({ id: '~journal', v: 3 }, NOW)).toBeUndefined();
    const { lb: _lb, ...noBucket } = item({ id: 'a', startDate: '2026-11-21', endDate: '2026-11-22' });
    expect(listedRecord(noBucket, NOW)).toBeUndefined();
  });
});
