import { CHECKSUM_LENGTH, checksumOf, KEY_PREFIXES, RANDOM_LENGTH } from './keys/format.js';

/**
 * Redaction of API keys from text bound for a log. A caller may put a key anywhere: the
 * `X-API-Key` header, a query parameter, `Authorization: Bearer …`, a cookie, the path, a body.
 * Whatever logs a request (src/logger.ts, the local gateway) passes its text through here, so no
 * call site has to remember which field may hold one.
 *
 * Redacted:
 * - anything that starts like a key: `elk_` followed by key characters (letters, digits, `_`), in
 *   any letter case and with any of its characters percent-encoded (`elk%5Ftest%5F…`, as a raw
 *   query string may carry it). Partial, mistyped and over-long keys are redacted too, whatever
 *   follows the prefix; the environment part (`elk_test_`, `elk_live_`) is kept, since it is not
 *   secret and helps to read a log;
 * - a bare key body (a run of exactly 38 letters and digits whose last 6 are the checksum of a
 *   live or test key): a key whose prefix was cut off.
 * Left alone: the prefixes themselves (`elk_test_`, with nothing after them) and `elk_` followed
 * by anything that is not a key character, so messages that name the key format stay readable.
 */
export const REDACTED = '[REDACTED]';

/** One character (a letter or `_`, nothing a regex treats specially), literal or percent-encoded. */
function charOrEncoded(ch: string): string {
  const hex = ch.charCodeAt(0).toString(16).padStart(2, '0');
  return `(?:${ch}|%${hex})`;
}

/** Percent-encodings of 0-9, A-Z, a-z and `_` (0x30-0x39, 0x41-0x5A, 0x61-0x7A, 0x5F). */
const ENCODED_KEY_CHAR = '%(?:3[0-9]|4[1-9a-f]|5[0-9af]|6[1-9a-f]|7[0-9a])';
const KEY_CHAR = `(?:[0-9a-z_]|${ENCODED_KEY_CHAR})`;
const ELK = [...'elk_'].map(charOrEncoded).join('');

/** `elk_` then one or more key characters (case-insensitive): a key or something like one. */
const KEY_LIKE = new RegExp(`${ELK}${KEY_CHAR}+`, 'gi');
/** A run of exactly the length of a key body, not part of a longer run. */
const BARE_BODY = new RegExp(`(?<![0-9A-Za-z])[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}(?![0-9A-Za-z])`, 'g');
const ENVIRONMENT_PART = /^(live|test)(?:_|%5f)/i;

function decodeKeyChars(text: string): string {
  return text.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function redactKeyLike(match: string): string {
  const decoded = decodeKeyChars(match);
  const tail = decoded.slice('elk_'.length);
  // The bare prefixes (and their halves) name the format; they hold no secret.
  if (/^(live|test)_?$/i.test(tail)) return match;
  const environment = ENVIRONMENT_PART.exec(tail);
  return environment ? `elk_${environment[1]!.toLowerCase()}_${REDACTED}` : `elk_${REDACTED}`;
}

function isKeyBody(body: string): boolean {
  const random = body.slice(0, RANDOM_LENGTH);
  const checksum = body.slice(RANDOM_LENGTH);
  return Object.values(KEY_PREFIXES).some((prefix) => checksumOf(prefix + random) === checksum);
}

/** `text` with every key-shaped part replaced (see above). Idempotent; text without keys is unchanged. */
export function redactSecrets(text: string): string {
  if (text.length < 'elk_'.length + 1) return text;
  let out = text.replace(KEY_LIKE, redactKeyLike);
  if (out.length >= RANDOM_LENGTH + CHECKSUM_LENGTH) {
    out = out.replace(BARE_BODY, (body) => (isKeyBody(body) ? REDACTED : body));
  }
  return out;
}

/**
 * A JSON.stringify replacer that redacts every string value and every object key: given to the
 * logger (src/logger.ts), it sees each value of each log line, nested objects, arrays and the
 * fields of formatted errors (message, stack, cause) included.
 */
export function redactingReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Error)) {
    const keys = Object.keys(value);
    if (keys.some((k) => redactSecrets(k) !== k)) {
      const copy: Record<string, unknown> = {};
      for (const k of keys) copy[redactSecrets(k)] = (value as Record<string, unknown>)[k];
      return copy;
    }
  }
  return value;
}
