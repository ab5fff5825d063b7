import * as v from 'valibot';
import type { KeyEnvironment } from '../auth/verdict.js';
import { DAY_MS } from '../kernel/leg-item.js';
import { clientIdOf } from './format.js';
import type { RateLimit } from './limits/rate-limit.js';

/**
 * A key as the keys table holds it (one item per key, keyed by the SHA-256 hex of the whole key; the
 * clear key is never stored): attributes and retention, docs/api-keys.md, "Storage".
 */
export const RETENTION_AFTER_END_MS = 30 * DAY_MS;

export type StoredStatus = 'active' | 'rotated' | 'revoked';
/** What a caller sees: `rotated` while in grace, `expired` after it. */
export type KeyState = 'active' | 'rotated' | 'expired' | 'revoked';

export interface KeyRecord {
  keyHash: string;
  keyId: string;
  clientId?: string;
  name?: string;
  environment: KeyEnvironment;
  scopes: string[];
  status: StoredStatus;
  createdAt: string;
  rotatedAt?: string;
  revokedAt?: string;
  graceUntil?: string;
  successorKeyId?: string;
  predecessorKeyId?: string;
  rateLimit?: RateLimit;
  ttl?: number;
}

/** A key as `list` shows it: no secret, no hash. */
export type PublicKeyRecord = Omit<KeyRecord, 'keyHash' | 'ttl' | 'status' | 'clientId'> & { status: KeyState; clientId: string };

const Iso = v.pipe(v.string(), v.isoTimestamp());
const RecordSchema = v.object({
  keyHash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  keyId: v.string(),
  clientId: v.optional(v.string()),
  name: v.optional(v.string()),
  environment: v.picklist(['live', 'test']),
  scopes: v.pipe(
    v.union([v.array(v.string()), v.set(v.string())]),
    v.transform((s) => [...s]),
  ),
  status: v.picklist(['active', 'rotated', 'revoked']),
  createdAt: Iso,
  rotatedAt: v.optional(Iso),
  revokedAt: v.optional(Iso),
  graceUntil: v.optional(Iso),
  successorKeyId: v.optional(v.string()),
  predecessorKeyId: v.optional(v.string()),
  rateLimit: v.optional(v.object({ rate: v.number(), burst: v.number() })),
  ttl: v.optional(v.number()),
});

/** Validates an item read from the table; a damaged item is an error, never a verified key. */
export function toKeyRecord(item: Record<string, unknown>): KeyRecord {
  const parsed = v.safeParse(RecordSchema, item);
  if (!parsed.success) {
    const path = v.getDotPath(parsed.issues[0]) ?? 'item';
    throw new Error(`Malformed key item (keyId ${String(item.keyId)}): ${path}: ${parsed.issues[0].message}`);
  }
  return parsed.output;
}

/** The state of a key at `now` (epoch ms). */
export function keyState(record: Pick<KeyRecord, 'status' | 'graceUntil'>, now: number): KeyState {
  if (record.status === 'rotated') {
    const deadline = record.graceUntil === undefined ? Number.NaN : Date.parse(record.graceUntil);
    return Number.isNaN(deadline) || now >= deadline ? 'expired' : 'rotated';
  }
  return record.status;
}

export function toPublicRecord(record: KeyRecord, now: number): PublicKeyRecord {
  const { keyHash: _hash, ttl: _ttl, status: _status, ...rest } = record;
  return { ...rest, clientId: clientIdOf(record), status: keyState(record, now) };
}

/** An instant as the table stores it. */
export const iso = (ms: number): string => new Date(ms).toISOString();
/** DynamoDB TTL's epoch seconds of an instant. */
export const epochSeconds = (ms: number): number => Math.ceil(ms / 1000);
