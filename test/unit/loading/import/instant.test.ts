import { describe, expect, it } from '@jest/globals';
import { parseInstant } from '../../../../src/loading/import/index.js';

describe('ISO 8601 instants with an offset', () => {
  it('parses instants exactly', () => {
    expect(parseInstant('2026-03-01T23:30:00-05:00')).toBe(Date.UTC(2026, 2, 2, 4, 30));
    expect(parseInstant('2026-03-01T23:30Z')).toBe(Date.UTC(2026, 2, 1, 23, 30));
    expect(parseInstant('2026-03-01')).toBeUndefined();
    expect(parseInstant('2026-03-01T23:30:00+19:00')).toBeUndefined();
  });
});
