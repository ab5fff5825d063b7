import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../../../src/errors.js';
import { formatGrace, parseGrace } from '../../../src/api-keys/grace.js';

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('parseGrace', () => {
  it.each([
    ['7d', 7 * DAY],
    ['24h', 24 * HOUR],
    ['30m', 30 * MINUTE],
    ['1m', MINUTE],
    ['90d', 90 * DAY],
    ['0', 0],
    ['0d', 0],
    [' 12h ', 12 * HOUR],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseGrace(text)).toBe(ms);
  });

  it.each(['', '7', '-1d', '1.5d', '7days', 'd', '7D', '1w', '30s', 'abc', '7d12h', '91d', '2161h'])(
    'refuses %j with a ConfigError naming --grace',
    (text) => {
      expect(() => parseGrace(text)).toThrow(ConfigError);
      try {
        parseGrace(text);
      } catch (err) {
        expect((err as ConfigError).setting).toBe('--grace');
        expect((err as Error).message).toMatch(/^Invalid setting --grace: /);
      }
    },
  );
});

describe('formatGrace', () => {
  it.each([
    [0, '0'],
    [7 * DAY, '7d'],
    [36 * HOUR, '36h'],
    [90 * MINUTE, '90m'],
  ])('writes %d ms as %s', (ms, text) => {
    expect(formatGrace(ms)).toBe(text);
  });
});
