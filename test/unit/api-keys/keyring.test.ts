import { describe, expect, it } from '@jest/globals';
import { applyRingChange, authenticating, emptyRing, keyedUntilOf, KEYED_FOREVER } from '../../../src/api-keys/keyring.js';

/** The client's keyring: the keys that authenticate (the cap) and until when it has one (the readers'). */
describe('keyring', () => {
  const T = Date.parse('2026-03-01T00:00:00.000Z');
  const iso = (ms: number) => new Date(ms).toISOString();

  it('counts keys in grace until their end, and says until when the client has a working key', () => {
    let ring = applyRingChange(emptyRing(), { action: 'create', environment: 'test' }, T);
    ring = applyRingChange(ring, { action: 'rotate', environment: 'test', keyId: 'key_a', graceUntil: iso(T + 1000) }, T);
    expect(authenticating(ring, 'test', T)).toBe(2);
    expect(authenticating(ring, 'test', T + 1000)).toBe(1);
    expect(authenticating(ring, 'live', T)).toBe(0);
    expect(keyedUntilOf(ring)).toBe(KEYED_FOREVER);
    // The active key revoked: the one in grace is left, until its end; a grace of 0 adds none.
    ring = applyRingChange(ring, { action: 'revoke', environment: 'test', keyId: 'key_b', wasActive: true }, T + 1);
    expect(keyedUntilOf(ring)).toBe(T + 1000);
    expect(applyRingChange(ring, { action: 'rotate', environment: 'test', keyId: 'key_c', graceUntil: iso(T + 2) }, T + 2).test.grace).toEqual({ key_a: iso(T + 1000) });
    // A grace that ended is dropped at the next change.
    expect(applyRingChange(ring, { action: 'create', environment: 'live' }, T + 1000).test.grace).toEqual({});
    expect(keyedUntilOf(applyRingChange(ring, { action: 'revoke', environment: 'test', keyId: 'key_a', wasActive: false }, T + 2))).toBe(0);
  });
});
