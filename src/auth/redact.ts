import { CHECKSUM_LENGTH, checksumOf, KEY_PREFIXES, RANDOM_LENGTH } from './key-shape.js';

/**
 * Redaction of anything shaped like an API key from text bound for a log, wherever a caller put it;
 * what is redacted and what is left alone: docs/api-keys.md, "Storage".
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
