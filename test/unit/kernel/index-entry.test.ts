import { describe, expect, it } from '@jest/globals';
import { lowerBound } from '../../../src/kernel/index-entry.js';

describe('lowerBound', () => {
  const list = ['2026-11-22', '2026-11-25', '2026-11-25', '2026-11-28', '2026-12-01'].map((startDate) => ({ startDate }));
  it('finds the first entry at or after a date', () => {
    expect(lowerBound(list, '2026-11-25')).toBe(1);
    expect(lowerBound(list, '2026-11-26')).toBe(3);
    expect(lowerBound(list, '2027-01-01')).toBe(5);
    expect(lowerBound(list, '2026-01-01')).toBe(0);
  });
});
