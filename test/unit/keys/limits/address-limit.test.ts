import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { addressKey, createAddressLimiter, DEFAULT_FAILED_AUTH_LIMIT } from '../../../../src/keys/limits/address-limit.js';
import { readConfig } from '../../../../src/config.js';
import { ConfigError } from '../../../../src/errors.js';

describe('addressKey: what the limit counts', () => {
  it('an IPv4 address whole, an IPv4-mapped IPv6 address as its IPv4', () => {
    expect(addressKey('198.51.100.7')).toBe('198.51.100.7');
    expect(addressKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
  });

  it('an IPv6 address by its /64, however it is written', () => {
    const a = addressKey('2001:db8:0:1::1');
    expect(a).toBe('2001:db8:0:1::/64');
    expect(addressKey('2001:0DB8:0000:0001:ffff:eeee:dddd:cccc')).toBe(a);
    expect(addressKey('2001:db8:0:2::1')).not.toBe(a);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });

  it('is total: any string gives a key, never an exception (property)', () => {
    fc.assert(fc.property(fc.string(), (s) => typeof addressKey(s) === 'string'));
    // Every IPv6 address in hexadecimal groups is counted by its /64 (one with an embedded IPv4 part
    // is counted as written, or as its IPv4 when it is IPv4-mapped).
    fc.assert(fc.property(fc.ipV6(), (ip) => ip.includes('.') || /^([0-9a-f]{1,4}:){4}:\/64$/.test(addressKey(ip))));
  });
});

describe('createAddressLimiter', () => {
  const { rate, burst } = DEFAULT_FAILED_AUTH_LIMIT;

  it('lets an address fail `burst` times, then blocks it until one failure is refilled', () => {
    let now = 0;
    const limiter = createAddressLimiter({ now: () => now });
    for (let i = 0; i < burst; i++) {
      expect(limiter.blockedFor('a')).toBeUndefined();
      limiter.fail('a');
    }
    const wait = limiter.blockedFor('a');
    expect(wait).toBe(Math.ceil(1 / rate));
    expect(limiter.blockedFor('b')).toBeUndefined();
    now += wait! * 1000;
    expect(limiter.blockedFor('a')).toBeUndefined();
  });

  it('Retry-After is never more than the policy window, and waiting it always unblocks (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 200 }), (gaps) => {
        let now = 0;
        const limiter = createAddressLimiter({ now: () => now });
        for (const gap of gaps) {
          now += gap;
          limiter.blockedFor('a');
          limiter.fail('a');
        }
        const wait = limiter.blockedFor('a');
        if (wait === undefined) return;
        expect(wait).toBeGreaterThanOrEqual(1);
        expect(wait).toBeLessThanOrEqual(Math.ceil(burst / rate));
        now += wait * 1000;
        expect(limiter.blockedFor('a')).toBeUndefined();
      }),
    );
  });

  it('forgets the least recently seen addresses beyond its bound', () => {
    const limiter = createAddressLimiter({ now: () => 0, maxAddresses: 3 });
    for (const a of ['a', 'b', 'c', 'd']) limiter.fail(a);
    expect(limiter.size).toBe(3);
  });
});

describe('settings', () => {
  it('FAILED_AUTH_PER_MINUTE and FAILED_AUTH_BURST default to 60 and 20, and a bad value names its setting', () => {
    expect(readConfig({}).failedAuthLimit).toEqual({ rate: 1, burst: 20 });
    expect(readConfig({ FAILED_AUTH_PER_MINUTE: '120', FAILED_AUTH_BURST: '5' }).failedAuthLimit).toEqual({ rate: 2, burst: 5 });
    expect(() => readConfig({ FAILED_AUTH_BURST: '0' })).toThrow(ConfigError);
    expect(() => readConfig({ FAILED_AUTH_PER_MINUTE: 'x' })).toThrow(/FAILED_AUTH_PER_MINUTE/);
  });

  it('ORIGIN_SECRET is unset by default, and refused when too short', () => {
    expect(readConfig({}).originSecret).toBeUndefined();
    expect(readConfig({ ORIGIN_SECRET: 'a'.repeat(48) }).originSecret).toBe('a'.repeat(48));
    expect(() => readConfig({ ORIGIN_SECRET: 'short' })).toThrow(/ORIGIN_SECRET/);
  });
});
