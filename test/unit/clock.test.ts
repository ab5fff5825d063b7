// @dateIndependent: the clock's own tests, on fixed instants and a controlled real clock.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { atClockInstant, clockFromSettings, fixedClock, parseClockInstant, shiftedClock } from '../../src/clock.js';
import { readConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

/** The one clock (src/clock.ts) and its setting, CLOCK_AT, with a real clock the test controls. */
const MIN = Date.UTC(1970, 0, 1);
const MAX = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

describe('shiftedClock', () => {
  it('reads `at` when the real clock reads `anchor`, then runs at real speed', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN, max: MAX }), fc.integer({ min: MIN, max: MAX }), fc.nat(10 ** 9), (at, anchor, elapsed) => {
        let real = anchor;
        const clock = shiftedClock(at, anchor, () => real);
        expect(clock()).toBe(at);
        real += elapsed;
        expect(clock()).toBe(at + elapsed);
      }),
    );
  });

  it('fixedClock never moves', () => {
    const clock = fixedClock('2028-02-29T12:00:00Z');
    expect(clock()).toBe(Date.UTC(2028, 1, 29, 12));
    expect(clock()).toBe(clock());
  });
});

describe('atClockInstant', () => {
  it("the standardwebhooks verifier judges a delivery's timestamp at the clock, and Date.now reads the system time again after", () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const at = Date.UTC(2027, 2, 28, 1, 30);
    const body = '{"type":"empty_leg.listed"}';
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(at / 1000), 'webhook-signature': new Webhook(secret).sign('msg_1', new Date(at), body) };
    const verify = () => new Webhook(secret).verify(body, headers);
    expect(verify).toThrow(/timestamp too/);
    expect(atClockInstant(fixedClock(at + 299_000), verify)).toEqual({ type: 'empty_leg.listed' });
    expect(() => atClockInstant(fixedClock(at + 301_000), verify)).toThrow(/timestamp too old/);
    expect(Math.abs(Date.now() - at)).toBeGreaterThan(301_000);
  });
});

describe('parseClockInstant', () => {
  it('takes ISO 8601 instants with an offset, to the millisecond', () => {
    expect(parseClockInstant('2026-12-31T23:30:00Z')).toBe(Date.UTC(2026, 11, 31, 23, 30));
    expect(parseClockInstant(' 2027-03-28T01:30:00+01:00 ')).toBe(Date.UTC(2027, 2, 28, 0, 30));
    expect(parseClockInstant('2028-02-29T10:00:00.250-11:00')).toBe(Date.UTC(2028, 1, 29, 21, 0, 0, 250));
    expect(parseClockInstant('2026-11-25T10:00+14:00')).toBe(Date.UTC(2026, 10, 24, 20));
  });

  it('round-trips every instant of the range as toISOString writes it', () => {
    fc.assert(fc.property(fc.integer({ min: MIN, max: MAX }), (ms) => expect(parseClockInstant(new Date(ms).toISOString())).toBe(ms)));
  });

  it.each([
    ['no offset', '2026-12-31T23:30:00'],
    ['a date alone', '2026-12-31'],
    ['a day that does not exist', '2026-02-29T00:00:00Z'],
    ['30 February', '2028-02-30T00:00:00Z'],
    ['hour 24', '2026-12-31T24:00:00Z'],
    ['an offset past 14 h', '2026-12-31T10:00:00+15:00'],
    ['words', 'tomorrow'],
  ])('refuses %s', (_, text) => {
    expect(parseClockInstant(text)).toBeUndefined();
  });
});

describe('CLOCK_AT', () => {
  it('without it, the clock is the real one', () => {
    const real = () => 42;
    expect(clockFromSettings({}, real)).toBe(real);
  });

  it('with an anchor, every process started with the same settings reads the same instant', () => {
    const settings = { CLOCK_AT: '2026-12-31T23:30:00Z', CLOCK_AT_ANCHOR: '1000' };
    const a = clockFromSettings(settings, () => 1000 + 5_000);
    const b = clockFromSettings(settings, () => 1000 + 5_000);
    expect(a()).toBe(Date.UTC(2026, 11, 31, 23, 30, 5));
    expect(b()).toBe(a());
  });

  it('a bad value fails naming the setting', () => {
    expect(() => clockFromSettings({ CLOCK_AT: 'next tuesday' })).toThrow(ConfigError);
    expect(() => clockFromSettings({ CLOCK_AT: 'next tuesday' })).toThrow(/CLOCK_AT/);
    expect(() => clockFromSettings({ CLOCK_AT: '2026-12-31T23:30:00Z', CLOCK_AT_ANCHOR: 'soon' })).toThrow(/CLOCK_AT_ANCHOR/);
  });

  it('a function in Lambda against real DynamoDB refuses it; local runs and tests take it', () => {
    const inLambda = { AWS_LAMBDA_FUNCTION_NAME: 'EmptyLegs-prod-List', CLOCK_AT: '2026-12-31T23:30:00Z' };
    expect(() => readConfig(inLambda)).toThrow(/Invalid setting CLOCK_AT: is for local runs and tests only/);
    expect(readConfig({ ...inLambda, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', CLOCK_AT_ANCHOR: '0' }).clock()).toBeGreaterThan(
      Date.UTC(2026, 11, 31, 23, 29),
    );
    expect(() => readConfig({ CLOCK_AT: '2026-12-31T23:30:00Z' })).not.toThrow();
  });
});
