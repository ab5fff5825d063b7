import { afterEach, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { BASE62, checksumOf, KEY_PREFIXES } from '../../src/keys/format.js';
import { logger } from '../../src/logger.js';
import { REDACTED, redactSecrets } from '../../src/auth/redact.js';

/**
 * Redaction over generated strings: a key (valid, partial, mistyped, any case, percent-encoded,
 * prefix cut off) embedded anywhere in arbitrary text never survives; text without anything
 * key-shaped comes out unchanged. Keys are built here from the format's definition (prefix, 32
 * base62, CRC32 checksum), not with the code under test.
 */
const base62Char = fc.constantFrom(...BASE62.split(''));
const base62 = (min: number, max: number) => fc.string({ unit: base62Char, minLength: min, maxLength: max });
const prefix = fc.constantFrom(KEY_PREFIXES.test, KEY_PREFIXES.live);
/** A key with a valid checksum. */
const validKey = fc.tuple(prefix, base62(32, 32)).map(([p, r]) => p + r + checksumOf(p + r));
/** Prefix plus 1..60 key characters: partial, over-long or mistyped keys. */
const keyLike = fc.tuple(prefix, base62(1, 60)).map(([p, r]) => p + r);
/** Text around a key: anything at all, including letters and digits right next to it. */
const around = fc.string({ unit: 'binary', maxLength: 40 });

/** Percent-encodes each character of `text` with probability given by the flags. */
function encodeSome(text: string, flags: boolean[]): string {
  return [...text]
    .map((ch, i) => (flags[i % Math.max(flags.length, 1)] ? `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}` : ch))
    .join('');
}

/** The secret part of a key: what follows its 9-character prefix. */
const secretOf = (key: string) => key.slice(9);

describe('redactSecrets', () => {
  it('removes a valid key wherever it sits in any text', () => {
    fc.assert(
      fc.property(around, validKey, around, (before, key, after) => {
        const out = redactSecrets(before + key + after);
        expect(out).not.toContain(secretOf(key));
        expect(out).toContain(REDACTED);
      }),
      { numRuns: 2000 },
    );
  });

  it('removes partial, over-long and mistyped keys, in any letter case', () => {
    fc.assert(
      fc.property(around, keyLike, fc.boolean(), around, (before, key, upper, after) => {
        const shown = upper ? key.toUpperCase() : key;
        const out = redactSecrets(before + shown + after);
        // Nothing of what followed the prefix is left in the place of the key.
        expect(out).toContain(REDACTED);
        expect(out.toLowerCase()).not.toContain(shown.toLowerCase());
      }),
      { numRuns: 1000 },
    );
  });

  it('removes keys with any of their characters percent-encoded (as a raw query string carries them)', () => {
    fc.assert(
      fc.property(validKey, fc.array(fc.boolean(), { minLength: 1, maxLength: 47 }), around, (key, flags, after) => {
        const encoded = encodeSome(key, flags);
        const out = redactSecrets(`apiKey=${encoded}${after.replace(/[0-9A-Za-z_%]/g, '')}`);
        expect(out).toContain(REDACTED);
        expect(out).not.toContain(encoded.slice(-20));
        expect(redactSecrets(decodeURIComponent(encoded))).not.toContain(secretOf(key));
      }),
      { numRuns: 1000 },
    );
  });

  it('removes a key body whose prefix was cut off, when its checksum matches', () => {
    // Only a body standing alone is recognised: glued to more letters or digits it is not a
    // 38-character run any more (a key with its prefix is redacted wherever it sits).
    fc.assert(
      fc.property(validKey, fc.constantFrom(' ', '/', '=', '"', '-', '\n'), (key, sep) => {
        const out = redactSecrets(`token${sep}${secretOf(key)}${sep}end`);
        expect(out).not.toContain(secretOf(key));
      }),
      { numRuns: 500 },
    );
  });

  it('leaves text without anything key-shaped unchanged, and is idempotent', () => {
    const noElk = fc.string({ unit: 'binary', maxLength: 200 }).filter((s) => !/elk/i.test(decodeLoose(s)));
    fc.assert(
      fc.property(noElk, (text) => {
        expect(redactSecrets(text)).toBe(text);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(around, fc.oneof(validKey, keyLike), around, (a, key, b) => {
        const once = redactSecrets(a + key + b);
        expect(redactSecrets(once)).toBe(once);
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps the names of the key format readable', () => {
    const message = 'expected elk_live_ or elk_test_ followed by 38 letters and digits';
    expect(redactSecrets(message)).toBe(message);
    // A 38-character run that is not a key (its checksum does not match) is left alone.
    const notAKey = 'A'.repeat(38);
    expect(redactSecrets(`id ${notAKey}`)).toBe(`id ${notAKey}`);
  });
});

/** Percent-decodes what decodes; malformed escapes stay as they are. */
function decodeLoose(text: string): string {
  return text.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

describe('the logger', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  function captureLines(log: () => void): string {
    const lines: string[] = [];
    const capture = (chunk: string | Uint8Array) => {
      lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    };
    jest.spyOn(process.stdout, 'write').mockImplementation(capture);
    jest.spyOn(process.stderr, 'write').mockImplementation(capture);
    const level = logger.getLevelName();
    logger.setLogLevel('INFO');
    try {
      log();
    } finally {
      logger.setLogLevel(level);
      jest.restoreAllMocks();
    }
    return lines.join('');
  }

  it('never prints a key, wherever a call site puts it: message, fields, nested keys, errors and their causes', () => {
    fc.assert(
      fc.property(validKey, (key) => {
        const out = captureLines(() => {
          logger.appendKeys({ leaked: key });
          logger.info(`message with ${key}`, {
            query: `apiKey=${key}`,
            headers: { authorization: `Bearer ${key}`, cookie: `k=${key}` },
            list: [key, { [key]: key }],
            error: new Error(`failed for ${key}`, { cause: new Error(key) }),
          });
          logger.error(new Error(key).message, new Error(`x ${key}`));
          logger.resetKeys();
        });
        expect(out).toContain('message with');
        expect(out).toContain(REDACTED);
        expect(out).not.toContain(secretOf(key));
      }),
      { numRuns: 50 },
    );
  });
});
