import type { KeyEnvironment } from '../auth/verdict.js';
import { generateClientId, generateKey, generateKeyId, hashKey, iso, keyState, type KeyRecord, type RateLimit } from '../keys/index.js';

/** Key management's pure rules: a new key's record, and why a key cannot change. */
export interface CreatedKey {
  /** The clear key: shown once, stored nowhere. */
  key: string;
  record: KeyRecord;
}

export type KeyStoreRefusal = 'not_found' | 'already_rotated' | 'revoked' | 'concurrent' | 'limit' | 'not_approved';

/** A refused management operation (unknown key id, rotating a key twice, a revoked key). */
export class KeyStoreError extends Error {
  readonly reason: KeyStoreRefusal;

  constructor(reason: KeyStoreRefusal, message: string) {
    super(message);
    this.name = 'KeyStoreError';
    this.reason = reason;
  }
}

export interface NewKeyInput {
  environment: KeyEnvironment;
  scopes: readonly string[];
  name?: string | undefined;
  /** The client the key belongs to (an existing one); undefined: a new client. */
  clientId?: string | undefined;
  /** The key's own rate limit; undefined: the default. */
  rateLimit?: RateLimit | undefined;
  /** Epoch ms; defaults to the system clock. */
  now?: number;
}

export function newRecord(input: NewKeyInput, now: number, predecessorKeyId?: string): CreatedKey {
  const key = generateKey(input.environment);
  const record: KeyRecord = {
    keyHash: hashKey(key),
    keyId: generateKeyId(),
    clientId: input.clientId ?? generateClientId(),
    ...(input.name !== undefined && input.name !== '' ? { name: input.name } : {}),
    environment: input.environment,
    scopes: [...input.scopes],
    status: 'active',
    createdAt: iso(now),
    ...(predecessorKeyId !== undefined ? { predecessorKeyId } : {}),
    ...(input.rateLimit !== undefined ? { rateLimit: { rate: input.rateLimit.rate, burst: input.rateLimit.burst } } : {}),
  };
  return { key, record };
}

/** Why a key cannot be rotated: it is revoked, or was rotated already. */
export function refusalToRotate(record: KeyRecord, now: number): KeyStoreError {
  if (keyState(record, now) === 'revoked') {
    return new KeyStoreError('revoked', `Key ${record.keyId} is revoked and cannot be rotated`);
  }
  const grace =
    keyState(record, now) === 'expired' ? 'its grace period has ended' : `it is in grace until ${record.graceUntil ?? '?'}`;
  const successor = record.successorKeyId ? `; rotate its successor ${record.successorKeyId} instead` : '';
  return new KeyStoreError('already_rotated', `Key ${record.keyId} was already rotated (${grace})${successor}`);
}

/** What a key's name may not hold: control characters (C0, DEL, C1) and bidi controls (overrides, isolates, marks). */
export const NAME_REFUSED = /[\p{Cc}\p{Bidi_Control}]/u;
export const NAME_RULE = 'printable characters only: no control characters (C0, C1) or bidi overrides, isolates or marks';

export const CLIENT_ID_PREFIX_LENGTH = 'cli_'.length;

/** The scopes a client is approved for: the operator's list, or without one, those its keys (not revoked) hold. */
export function approvedScopes(stored: readonly string[] | undefined, keys: readonly Pick<KeyRecord, 'scopes' | 'status'>[]): string[] {
  if (stored !== undefined) return [...stored].sort();
  return [...new Set(keys.filter((k) => k.status !== 'revoked').flatMap((k) => k.scopes))].sort();
}

/** Requested scopes the client is not approved for, in the order asked. */
export function unapprovedScopes(requested: readonly string[], approved: readonly string[]): string[] {
  return requested.filter((s) => !approved.includes(s));
}

/** Keys active at `now` that hold `scope`, other than `exceptKeyId`. */
export function activeHolders(keys: readonly KeyRecord[], scope: string, now: number, exceptKeyId?: string): KeyRecord[] {
  return keys.filter((k) => k.keyId !== exceptKeyId && keyState(k, now) === 'active' && k.scopes.includes(scope));
}
