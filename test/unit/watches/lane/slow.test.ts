// @dateIndependent: fixed instants only
import { describe, expect, it } from '@jest/globals';
import { isSlow, SLOW_LANE_ANSWER_MS, SLOW_LANE_HOLD_MS, slowUntilAfter } from '../../../../src/watches/lane/slow.js';

/** The slow lane's rule (src/watches/lane/slow.ts), with fixed instants as the injected clock. */
const T0 = Date.parse('2026-03-29T00:30:00Z');

describe('the slow rule', () => {
  it('an answer slower than 2 s makes the watch slow for an hour from that answer; one of 2 s or less does not', () => {
    expect(SLOW_LANE_ANSWER_MS).toBe(2_000);
    expect(slowUntilAfter({}, 2_001, T0)).toBe(T0 + SLOW_LANE_HOLD_MS);
    expect(slowUntilAfter({}, 10_000, T0)).toBe(T0 + 3_600_000);
    expect(slowUntilAfter({}, 2_000, T0)).toBeUndefined();
    expect(slowUntilAfter({}, 0, T0)).toBeUndefined();
  });

  it('a fast answer never clears it: it ends an hour after the last slow answer', () => {
    const watch = { slowUntil: T0 + SLOW_LANE_HOLD_MS };
    expect(slowUntilAfter(watch, 100, T0 + 60_000)).toBeUndefined();
    expect(isSlow(watch, T0)).toBe(true);
    expect(isSlow(watch, T0 + SLOW_LANE_HOLD_MS - 1)).toBe(true);
    expect(isSlow(watch, T0 + SLOW_LANE_HOLD_MS)).toBe(false);
    expect(isSlow({}, T0)).toBe(false);
  });

  it('a later slow answer moves the end on, written at most once a minute', () => {
    const watch = { slowUntil: T0 + SLOW_LANE_HOLD_MS };
    expect(slowUntilAfter(watch, 3_000, T0 + 30_000)).toBeUndefined();
    expect(slowUntilAfter(watch, 3_000, T0 + 60_001)).toBe(T0 + 60_001 + SLOW_LANE_HOLD_MS);
    // An expired mark is renewed by the next slow answer.
    expect(slowUntilAfter(watch, 3_000, T0 + 5 * SLOW_LANE_HOLD_MS)).toBe(T0 + 6 * SLOW_LANE_HOLD_MS);
  });

  it('the bound is a parameter: a test may lower it', () => {
    expect(slowUntilAfter({}, 60, T0, 50)).toBe(T0 + SLOW_LANE_HOLD_MS);
    expect(slowUntilAfter({}, 50, T0, 50)).toBeUndefined();
  });
});
