import { describe, expect, it } from '@jest/globals';
import { AirportIndex } from '../../../src/airports/reference.js';
import { changeOf } from '../../../src/watch-admin/update-watch.js';
import { resultOf } from '../../../src/watch-admin/attempt.js';
import { parseWatchBody } from '../../../src/watches/resource.js';
import type { WatchRecord } from '../../../src/watches/store.js';
import { INCLUDE_RULE } from '../../../src/kernel/leg/blocks.js';

/**
 * A PATCH body's change (src/watch-admin/update-watch.ts): the fields given only, validated as a
 * new watch is (the creation parser is the oracle), `enabled` turning a disabled watch on again
 * with its failing period forgotten; and how an attempt's outcome is named (src/watch-admin/attempt.ts).
 */
const deps = { airports: () => new AirportIndex([]), targets: 'local' as const };
const NOW = Date.parse('2026-11-21T12:00:00Z');
const current: WatchRecord = {
  clientId: 'cli_AAAAAAAAAAAAAAAAAAAA',
  watchId: 'wat_AAAAAAAAAAAAAAAAAAAA',
  url: 'http://127.0.0.1:9/old',
  filters: { depAirportCode: 'LFPB', minSeats: '4' },
  description: 'Paris',
  status: 'active',
  createdAt: '2026-11-01T00:00:00.000Z',
  secret: 'whsec_x',
  failingSince: null,
  disabledAt: null,
};
const disabled: WatchRecord = { ...current, status: 'disabled', failingSince: '2026-11-10T00:00:00.000Z', disabledAt: '2026-11-15T00:00:00.000Z' };
const message = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
};

describe('changeOf', () => {
  it('changes only the fields given', () => {
    expect(changeOf({ url: 'http://127.0.0.1:9/new' }, current, deps, NOW)).toEqual({ url: 'http://127.0.0.1:9/new' });
    expect(changeOf({ description: '' }, current, deps, NOW)).toEqual({ description: null });
    expect(changeOf({ filters: { arrAirportCode: 'LFMN', minSeats: 6 } }, current, deps, NOW)).toEqual({ filters: { arrAirportCode: 'LFMN', minSeats: '6' } });
  });

  it('include: given, it replaces the blocks (on a flight watch too); empty or null takes them off; refused as creation refuses it', () => {
    expect(changeOf({ include: 'departure' }, current, deps, NOW)).toEqual({ include: 'departure' });
    expect(changeOf({ include: null }, { ...current, include: 'departure' }, deps, NOW)).toEqual({ include: '' });
    expect(changeOf({ include: '' }, { ...current, include: 'departure' }, deps, NOW)).toEqual({ include: '' });
    expect(changeOf({ description: 'x' }, { ...current, include: 'departure' }, deps, NOW)).toEqual({ description: 'x' });
    expect(message(() => changeOf({ include: 'trip' }, current, deps, NOW))).toBe(`Invalid parameter 'include': ${INCLUDE_RULE}`);
    expect(changeOf({ include: 'provenance' }, { ...current, group: 'flight' }, deps, NOW)).toEqual({ include: 'provenance' });
  });

  it('enabled: true turns a disabled watch on, its failing period forgotten; on an active one it changes nothing', () => {
    expect(changeOf({ enabled: true }, disabled, deps, NOW)).toEqual({ status: 'active', disabledAt: null, failingSince: null });
    expect(changeOf({ enabled: true }, current, deps, NOW)).toEqual({});
  });

  it('enabled: false disables an active watch at the instant given', () => {
    expect(changeOf({ enabled: false }, current, deps, NOW)).toEqual({ status: 'disabled', disabledAt: '2026-11-21T12:00:00.000Z' });
    expect(changeOf({ enabled: false }, disabled, deps, NOW)).toEqual({});
  });

  it("refuses what creation refuses, with creation's message", () => {
    const cases: Record<string, unknown>[] = [
      { url: 'http://10.0.0.1/x' },
      { url: 'http://127.0.0.2:9/x' },
      { url: 42 },
      { filters: { size: 5 } },
      { filters: { minSeats: 0 } },
      { description: 'x'.repeat(501) },
    ];
    for (const body of cases) {
      const creation = message(() => parseWatchBody({ url: current.url, filters: current.filters, description: current.description, ...body }, deps));
      expect(creation).toBeDefined();
      expect(message(() => changeOf(body, current, deps, NOW))).toBe(creation);
    }
  });

  it('refuses a body that is not an object, an empty one, an unknown field, and an enabled that is not a boolean', () => {
    expect(message(() => changeOf([], current, deps, NOW))).toBe("Invalid parameter 'body': must be a JSON object");
    expect(message(() => changeOf({}, current, deps, NOW))).toMatch(/^Invalid parameter 'body': must give at least one of url, filters, description, include, enabled$/);
    expect(message(() => changeOf({ secret: 'x' }, current, deps, NOW))).toMatch(/unknown field 'secret'/);
    expect(message(() => changeOf({ enabled: 'yes' }, disabled, deps, NOW))).toBe("Invalid parameter 'enabled': must be true or false");
  });
});

describe('resultOf', () => {
  it.each([
    [{ status: 204 }, 'delivered'],
    [{ status: 299 }, 'delivered'],
    [{ status: 301 }, 'rejected'],
    [{ status: 503 }, 'rejected'],
    [{ error: 'ECONNREFUSED' }, 'refused'],
    [{ error: 'no answer within 10000 ms' }, 'timeout'],
    [{ error: 'ETIMEDOUT' }, 'timeout'],
    [{ error: 'ENOTFOUND' }, 'network_error'],
    [{ error: 'ECONNRESET' }, 'network_error'],
    [{ refused: true, error: 'unsafe target: x' }, 'unsafe_target'],
  ])('%j is %s', (outcome, result) => {
    expect(resultOf(outcome)).toBe(result);
  });
});
