import { describe, expect, it } from '@jest/globals';
import { activeHolders, approvedScopes, newRecord, unapprovedScopes } from '../../../src/api-keys/rules.js';
import type { KeyRecord } from '../../../src/keys/record.js';

/** Key management's pure rules: the approved scopes (with the read-time rule for clients without a list) and the write key's holders. */
const now = Date.parse('2026-06-01T12:00:00.000Z');
const key = (scopes: string[], over: Partial<KeyRecord> = {}): KeyRecord => ({ ...newRecord({ environment: 'test', scopes }, now).record, ...over });

describe('approved scopes', () => {
  it('are the operator list when there is one, else those the client keys hold (not revoked)', () => {
    const keys = [key(['empty_leg:read']), key(['watch:write', 'empty_leg:read']), key(['api_key:write'], { status: 'revoked' })];
    expect(approvedScopes(undefined, keys)).toEqual(['empty_leg:read', 'watch:write']);
    expect(approvedScopes(['api_key:write', 'empty_leg:read'], keys)).toEqual(['api_key:write', 'empty_leg:read']);
    expect(unapprovedScopes(['watch:write', 'api_key:read', 'empty_leg:read'], approvedScopes(undefined, keys))).toEqual(['api_key:read']);
  });
});

describe('holders of a scope', () => {
  it('count active keys only: a key in grace, expired or revoked holds nothing', () => {
    const later = new Date(now + 3_600_000).toISOString();
    const keys = [
      key(['api_key:write'], { keyId: 'key_active' }),
      key(['api_key:write'], { keyId: 'key_grace', status: 'rotated', graceUntil: later }),
      key(['api_key:write'], { keyId: 'key_revoked', status: 'revoked' }),
      key(['api_key:read'], { keyId: 'key_reader' }),
    ];
    expect(activeHolders(keys, 'api_key:write', now).map((k) => k.keyId)).toEqual(['key_active']);
    expect(activeHolders(keys, 'api_key:write', now, 'key_active')).toEqual([]);
  });
});
