import { AppError, invalidParameter } from '../errors.js';
import { RETENTION_DAYS, RETENTION_MS } from './log.js';

/**
 * The feed's cursor, opaque to callers (base64url of a small JSON): a position in the log, or in the
 * initial listing (then `afterId`, the last leg given); `safeAt`, no later than the commit of any
 * entry after `seq`, dates it (docs/storage.md, "The change feed's cursor").
 */
export type Cursor =
  | { kind: 'log'; seq: number; safeAt: number }
  | { kind: 'listing'; seq: number; afterId: string | undefined; safeAt: number };

export const CURSOR_RULE = 'must be a cursor from an earlier answer (data.cursor)';

export function encodeCursor(cursor: Cursor): string {
  const body =
    cursor.kind === 'log'
      ? { v: 1, s: cursor.seq, t: cursor.safeAt }
      : { v: 1, s: cursor.seq, t: cursor.safeAt, l: 1, ...(cursor.afterId === undefined ? {} : { k: cursor.afterId }) };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/** The cursor of `after`; INVALID_PARAMETER when it is not one this service made. */
export function decodeCursor(raw: string): Cursor {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(raw)) throw invalidParameter('after', CURSOR_RULE);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalidParameter('after', CURSOR_RULE);
  }
  if (typeof body !== 'object' || body === null) throw invalidParameter('after', CURSOR_RULE);
  const b = body as Record<string, unknown>;
  const keys = Object.keys(b);
  if (b.v !== 1 || !isCount(b.s) || !isCount(b.t)) throw invalidParameter('after', CURSOR_RULE);
  if (b.l === undefined) {
    if (keys.length !== 3) throw invalidParameter('after', CURSOR_RULE);
    return { kind: 'log', seq: b.s, safeAt: b.t };
  }
  const idOk = b.k === undefined || (typeof b.k === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(b.k));
  if (b.l !== 1 || !idOk || keys.length !== (b.k === undefined ? 4 : 5)) throw invalidParameter('after', CURSOR_RULE);
  return { kind: 'listing', seq: b.s, afterId: b.k as string | undefined, safeAt: b.t };
}

export const CURSOR_EXPIRED_MESSAGE = `This cursor is older than the ${RETENTION_DAYS} days the changes are kept: start again without 'after'`;

/** CURSOR_EXPIRED when the cursor is older than the retention at `now`. */
export function assertFresh(cursor: Cursor, now: number): void {
  if (now - cursor.safeAt > RETENTION_MS) throw cursorExpired();
}

export function cursorExpired(): AppError {
  return new AppError('CURSOR_EXPIRED', CURSOR_EXPIRED_MESSAGE);
}
