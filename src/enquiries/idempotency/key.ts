import { createHash } from 'node:crypto';
import { invalidParameter } from '../../errors.js';

/**
 * The `Idempotency-Key` header's rules (docs/api.md, "Idempotency"): required on the POST, 1-255
 * printable ASCII characters, scoped to the client; a request's fingerprint says whether a retry
 * carries the same request (the same leg and the same JSON body, whatever its key order or spacing).
 */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const MAX_KEY_LENGTH = 255;
export const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
export const KEY_RULE = `must be 1-${MAX_KEY_LENGTH} printable ASCII characters`;
/** How long a key holds its first answer. */
export const KEY_HOLD_MS = 24 * 3_600_000;

export function parseIdempotencyKey(headers: Readonly<Record<string, string | undefined>> | undefined): string {
  const value = headers?.[IDEMPOTENCY_HEADER.toLowerCase()];
  if (value === undefined || value === '') throw invalidParameter(IDEMPOTENCY_HEADER, 'the header is required: a key of your own, such as a UUID, the same on every retry of this request');
  if (!KEY_PATTERN.test(value)) throw invalidParameter(IDEMPOTENCY_HEADER, KEY_RULE);
  return value;
}

/** JSON with object keys sorted at every level: one text per value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The request's fingerprint: the path's leg and the body, canonical, hashed. */
export function fingerprintOf(legId: string, body: unknown): string {
  return createHash('sha256').update(`${legId}\n${canonicalJson(body)}`).digest('base64url');
}

/** The stored key's item key: the client and a hash of the key (the key itself is never stored). */
export function keyItemId(clientId: string, key: string): string {
  return `idem#${clientId}#${createHash('sha256').update(key).digest('base64url')}`;
}
