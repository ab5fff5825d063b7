import { describe, expect, it } from '@jest/globals';
import { isExpired } from '../../../src/kernel/listed.js';
import { expiryInstant } from '../../../src/kernel/leg-item.js';

describe('isExpired', () => {
  it('compares endDate with today in the leg zone', () => {
    const now = new Date('2026-11-21T23:30:00Z').getTime();
    expect(isExpired({ expiresAt: expiryInstant('2026-11-21', 'UTC') }, now)).toBe(false);
    expect(isExpired({ expiresAt: expiryInstant('2026-11-21', 'Asia/Dubai') }, now)).toBe(true);
  });
});
