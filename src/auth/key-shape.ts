import { crc32 } from 'node:zlib';
import type { KeyEnvironment } from './verdict.js';

/**
 * An API key's shape: `elk_test_` or `elk_live_`, 32 random base62 characters, then the CRC32 of
 * everything before it in 6 base62 characters, 47 in all (docs/api-keys.md, "Format").
 */
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const KEY_PREFIXES: Readonly<Record<KeyEnvironment, string>> = { live: 'elk_live_', test: 'elk_test_' };
export const RANDOM_LENGTH = 32;
export const CHECKSUM_LENGTH = 6;
/** Both prefixes have the same length. */
export const PREFIX_LENGTH = 9;
export const KEY_LENGTH = PREFIX_LENGTH + RANDOM_LENGTH + CHECKSUM_LENGTH;

/** Base62 of a non-negative integer, left-padded with '0' to `width`. */
export function toBase62(value: number, width: number): string {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a non-negative integer: ${value}`);
  let out = '';
  let n = value;
  do {
    out = BASE62[n % 62]! + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(width, '0');
}

/** The 6-character checksum of the part of a key before its checksum. */
export function checksumOf(text: string): string {
  return toBase62(crc32(text), CHECKSUM_LENGTH);
}
