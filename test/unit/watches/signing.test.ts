// @dateIndependent: signs and verifies at instants it fixes (a rotation's overlap is offsets from them)
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { generateSecret } from '../../../src/watches/resource.js';
import { secretsInEffect, webhookHeaders } from '../../../src/watches/attempt.js';

/**
 * The signing of an attempt (src/watches/attempt.ts): during a rotation's overlap both secrets sign
 * and a Standard Webhooks verifier (the standardwebhooks package, not our code) accepts either;
 * from the overlap's end on, the new one only. Instants are given (the verifier's own tolerance is
 * checked against the real clock, so the attempts are made at it).
 */
const body = JSON.stringify({ type: 'watch.test', timestamp: '2026-11-21T12:00:00.000Z', data: { watchId: 'wat_AAAAAAAAAAAAAAAAAAAA' } });
const verifies = (secret: string, headers: Record<string, string>) => {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
};

describe('secretsInEffect', () => {
  const secret = 'whsec_new';
  const previousSecret = 'whsec_old';
  const until = Date.parse('2026-11-22T12:00:00.000Z');
  const watch = { secret, previousSecret, previousSecretExpiresAt: new Date(until).toISOString() };

  it('the new secret first and the previous one until its expiry (excluded); the new one alone from it', () => {
    expect(secretsInEffect(watch, until - 1)).toEqual([secret, previousSecret]);
    expect(secretsInEffect(watch, until)).toEqual([secret]);
    expect(secretsInEffect(watch, until + 1)).toEqual([secret]);
  });

  it('a watch never rotated (fields absent or null) signs with its secret alone', () => {
    expect(secretsInEffect({ secret }, 0)).toEqual([secret]);
    expect(secretsInEffect({ secret, previousSecret: null, previousSecretExpiresAt: null }, 0)).toEqual([secret]);
    expect(secretsInEffect({ secret, previousSecret, previousSecretExpiresAt: null }, 0)).toEqual([secret]);
  });

  it('holds for any instant around any expiry', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: -1e9, max: 1e9 }), (expiry, offset) => {
        const got = secretsInEffect({ secret, previousSecret, previousSecretExpiresAt: new Date(expiry).toISOString() }, expiry + offset);
        expect(got).toEqual(offset < 0 ? [secret, previousSecret] : [secret]);
      }),
    );
  });
});

describe('webhookHeaders, verified by the standardwebhooks library', () => {
  // The verifier allows 5 minutes of skew from its own clock: attempts are made now.
  const now = Date.now();
  const oldSecret = generateSecret();
  const newSecret = generateSecret();

  it('during the overlap: two signatures; the old secret and the new one each verify', () => {
    const headers = webhookHeaders({ secret: newSecret, previousSecret: oldSecret, previousSecretExpiresAt: new Date(now + 60_000).toISOString() }, 'msg_x', now, body);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(headers['webhook-signature']!.split(' ')[0]).toBe(new Webhook(newSecret).sign('msg_x', new Date(now), body));
    expect(verifies(newSecret, headers)).toBe(true);
    expect(verifies(oldSecret, headers)).toBe(true);
    expect(verifies(generateSecret(), headers)).toBe(false);
  });

  it('after it: one signature, the new secret verifies and the old one does not', () => {
    const headers = webhookHeaders({ secret: newSecret, previousSecret: oldSecret, previousSecretExpiresAt: new Date(now - 1).toISOString() }, 'msg_x', now, body);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifies(newSecret, headers)).toBe(true);
    expect(verifies(oldSecret, headers)).toBe(false);
    expect(headers).toMatchObject({ 'webhook-id': 'msg_x', 'webhook-timestamp': String(Math.floor(now / 1000)) });
  });
});
