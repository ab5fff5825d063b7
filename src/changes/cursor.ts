import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError, invalidParameter } from '../errors.js';
import { RETENTION_DAYS, RETENTION_MS } from './log.js';

/**
 * The feed's cursor, opaque to callers: base64url of a small JSON followed by its signature (an
 * HMAC-SHA-256 under the cursor key, CHANGE_CURSOR_KEY), so no field of it can be forged or altered
 * (docs/storage.md, "The change feed's cursor"): a position in the log, or in the initial listing
 * (then `afterKey`, the listing position of the last leg given: its `ls`, `startDate#id`); `safeAt`, no later than the commit of any entry after `seq`, dates it.
 */
export type Cursor =
  | { kind: 'log'; seq: number; safeAt: number }
  | { kind: 'listing'; seq: number; afterKey: string | undefined; safeAt: number };

export const CURSOR_RULE = 'must be a cursor from an earlier answer (data.cursor)';

/** The secret cursors are signed with (src/config.ts reads it once, at start). */
export type CursorKey = string;

/** The signature's length in the cursor: 16 bytes of the HMAC, base64url. */
const MAC_CHARS = 22;
const VERSION = 2;

const macOf = (body: string, key: CursorKey) => createHmac('sha256', key).update(body).digest().subarray(0, 16).toString('base64url');

export function encodeCursor(cursor: Cursor, key: CursorKey): string {
  const fields =
    cursor.kind === 'log'
      ? { v: VERSION, s: cursor.seq, t: cursor.safeAt }
      : { v: VERSION, s: cursor.seq, t: cursor.safeAt, l: 1, ...(cursor.afterKey === undefined ? {} : { k: cursor.afterKey }) };
  const body = Buffer.from(JSON.stringify(fields)).toString('base64url');
  return body + macOf(body, key);
}

/** A listing position: the `ls` of a leg, its start date and id. */
const LISTING_KEY = /^\d{4}-\d{2}-\d{2}#[A-Za-z0-9_-]{1,64}$/;

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

function parseBody(body: string, version: number): Cursor | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const b = parsed as Record<string, unknown>;
  const keys = Object.keys(b);
  if (b.v !== version || !isCount(b.s) || !isCount(b.t)) return undefined;
  if (b.l === undefined) return keys.length === 3 ? { kind: 'log', seq: b.s, safeAt: b.t } : undefined;
  const idOk = b.k === undefined || (typeof b.k === 'string' && LISTING_KEY.test(b.k));
  if (b.l !== 1 || !idOk || keys.length !== (b.k === undefined ? 4 : 5)) return undefined;
  return { kind: 'listing', seq: b.s, afterKey: b.k as string | undefined, safeAt: b.t };
}

/**
 * The cursor of `after`: INVALID_PARAMETER when this service did not make it under `key` (forged,
 * altered, or signed with another key); CURSOR_EXPIRED for an unsigned cursor of the first version,
 * made before cursors were signed (docs/api.md, "Change feed").
 */
export function decodeCursor(raw: string, key: CursorKey): Cursor {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(raw)) throw invalidParameter('after', CURSOR_RULE);
  if (parseBody(raw, 1) !== undefined) throw new AppError('CURSOR_EXPIRED', UNSIGNED_CURSOR_MESSAGE);
  const body = raw.slice(0, -MAC_CHARS);
  const mac = Buffer.from(raw.slice(-MAC_CHARS));
  const expected = Buffer.from(macOf(body, key));
  if (raw.length <= MAC_CHARS || mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw invalidParameter('after', CURSOR_RULE);
  const cursor = parseBody(body, VERSION);
  if (cursor === undefined) throw invalidParameter('after', CURSOR_RULE);
  return cursor;
}

export const CURSOR_EXPIRED_MESSAGE = `This cursor is older than the ${RETENTION_DAYS} days the changes are kept: start again without 'after'`;

export const UNSIGNED_CURSOR_MESSAGE = "This cursor was made before cursors were signed and is no longer read: start again without 'after'";

/** CURSOR_EXPIRED when the cursor is older than the retention at `now`. */
export function assertFresh(cursor: Cursor, now: number): void {
  if (now - cursor.safeAt > RETENTION_MS) throw cursorExpired();
}

export function cursorExpired(): AppError {
  return new AppError('CURSOR_EXPIRED', CURSOR_EXPIRED_MESSAGE);
}
