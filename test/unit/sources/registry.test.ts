import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  applyChange,
  EMPTY_REGISTRY,
  formatMinutes,
  isStale,
  MAX_STALE_MINUTES,
  parseStaleAfter,
  sourceViews,
  UNREGISTERED,
  type Registry,
  type SourceSettings,
} from '../../../src/sources/registry.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-28T12:00:00Z');

function registry(sources: Record<string, Partial<SourceSettings>>, loaded: Record<string, number> = {}): Registry {
  return {
    sources: new Map(Object.entries(sources).map(([id, s]) => [id, { settings: { ...UNREGISTERED, ...s }, history: [] }])),
    lastLoadedAt: new Map(Object.entries(loaded)),
    revision: 1,
  };
}

describe('parseStaleAfter', () => {
  it('takes minutes, hours and days from 1 minute to 30 days', () => {
    expect(parseStaleAfter('90m')).toBe(90);
    expect(parseStaleAfter('36h')).toBe(36 * 60);
    expect(parseStaleAfter('7d')).toBe(7 * 24 * 60);
    expect(parseStaleAfter('1m')).toBe(1);
    expect(parseStaleAfter('30d')).toBe(MAX_STALE_MINUTES);
    expect(parseStaleAfter('720h')).toBe(MAX_STALE_MINUTES);
    expect(parseStaleAfter('43200m')).toBe(MAX_STALE_MINUTES);
  });
  it.each(['0m', '0d', '31d', '721h', '43201m', '1', 'h', '1.5h', '-1h', '1H', ' 1h', '1w', '01h', ''])('refuses %p', (text) => {
    expect(parseStaleAfter(text)).toBeUndefined();
  });
  it('reads back what formatMinutes writes', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: MAX_STALE_MINUTES }), (m) => expect(parseStaleAfter(formatMinutes(m))).toBe(m)));
  });
});

describe('isStale', () => {
  const r = registry({ a: { staleAfterMinutes: 60, staleAfterSetAt: T0 - 5 * HOUR }, b: { staleAfterMinutes: 60, staleAfterSetAt: T0 }, n: {} }, { a: T0 });
  it('is older than the bound since the last load, strictly', () => {
    expect(isStale(r, 'a', T0 + HOUR)).toBe(false);
    expect(isStale(r, 'a', T0 + HOUR + 1)).toBe(true);
  });
  it('counts from the setting of the bound for a source not loaded since', () => {
    expect(isStale(r, 'b', T0 + HOUR)).toBe(false);
    expect(isStale(r, 'b', T0 + 2 * HOUR)).toBe(true);
  });
  it('is never true without a bound, nor for a source the registry does not know', () => {
    expect(isStale(r, 'n', T0 + 1000 * HOUR)).toBe(false);
    expect(isStale(r, 'unknown-one', T0 + 1000 * HOUR)).toBe(false);
    expect(isStale(EMPTY_REGISTRY, 'a', T0)).toBe(false);
  });
});

describe('sourceViews', () => {
  it('lists the registered sources and those with legs, in id order, an unknown one as unknown, unverified, never stale', () => {
    const r = registry({ zeta: { name: 'Zeta Air', kind: 'operator', verified: true, verifiedAt: T0 }, beta: { kind: 'broker' } }, { alpha: T0 - HOUR });
    const views = sourceViews(r, new Map([['alpha', 3], ['zeta', 2], ['gone', 0]]), T0);
    expect(views.map((v) => v.id)).toEqual(['alpha', 'beta', 'zeta']);
    expect(views[0]).toEqual({
      id: 'alpha',
      name: 'alpha',
      kind: 'unknown',
      verified: false,
      verifiedAt: null,
      legsListed: 3,
      lastLoadedAt: new Date(T0 - HOUR).toISOString(),
      staleAfterMinutes: null,
      stale: false,
    });
    expect(views[1]).toMatchObject({ id: 'beta', kind: 'broker', legsListed: 0, lastLoadedAt: null });
    expect(views[2]).toMatchObject({ id: 'zeta', name: 'Zeta Air', verified: true, verifiedAt: new Date(T0).toISOString(), legsListed: 2 });
  });
});

describe('applyChange', () => {
  it('stamps verifiedAt when the source becomes verified, keeps it while it stays so, clears it when unverified', () => {
    const verified = applyChange(UNREGISTERED, { verified: true, kind: 'operator' }, T0);
    expect(verified).toMatchObject({ verified: true, verifiedAt: T0, kind: 'operator' });
    expect(applyChange(verified, { verified: true }, T0 + HOUR).verifiedAt).toBe(T0);
    expect(applyChange(verified, { name: 'X' }, T0 + HOUR)).toMatchObject({ verified: true, verifiedAt: T0, name: 'X', kind: 'operator' });
    expect(applyChange(verified, { verified: false }, T0 + HOUR)).toMatchObject({ verified: false, verifiedAt: null });
  });
  it('stamps the setting of a staleness bound, and clears it with never-stale', () => {
    const bound = applyChange(UNREGISTERED, { staleAfterMinutes: 90 }, T0);
    expect(bound).toMatchObject({ staleAfterMinutes: 90, staleAfterSetAt: T0 });
    expect(applyChange(bound, { staleAfterMinutes: null }, T0)).toMatchObject({ staleAfterMinutes: null, staleAfterSetAt: null });
  });
});
