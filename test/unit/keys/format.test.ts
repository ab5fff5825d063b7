import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import {
  environmentForStage,
  generateKey,
  generateKeyId,
  hashKey,
  isKeyId,
  parseKey,
  stageForEnvironment,
} from '../../../src/keys/format.js';

// Reference implementations written here, independent of the code under test.
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function referenceCrc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function decodeBase62(text: string): number {
  let n = 0;
  for (const ch of text) n = n * 62 + ALPHABET.indexOf(ch);
  return n;
}

function encodeBase62(n: number, width: number): string {
  let out = '';
  let rest = n;
  while (rest > 0) {
    out = ALPHABET[rest % 62]! + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, '0');
}

/** A key built by hand from a chosen body, with a checksum computed by the reference CRC32. */
function handMadeKey(prefix: string, random: string): string {
  const head = prefix + random;
  return head + encodeBase62(referenceCrc32(head), 6);
}

const SAMPLE_RANDOM = 'AbCdEfGhIjKlMnOpQrStUvWxYz012345';

describe('reference CRC32', () => {
  it('matches the standard check value', () => {
    expect(referenceCrc32('123456789')).toBe(0xcbf43926);
  });
});

describe('generateKey', () => {
  it.each(['test', 'live'] as const)('makes elk_%s_ + 32 base62 + a 6-character CRC32 checksum', (env) => {
    const key = generateKey(env);
    expect(key).toMatch(new RegExp(`^elk_${env}_[0-9A-Za-z]{38}$`));
    expect(key).toHaveLength(47);
    const head = key.slice(0, 41);
    expect(decodeBase62(key.slice(41))).toBe(referenceCrc32(head));
  });

  it('is unique over many keys and uses the whole alphabet roughly evenly', () => {
    const keys = new Set<string>();
    const counts = new Map<string, number>();
    const n = 5000;
    for (let i = 0; i < n; i++) {
      const key = generateKey('test');
      keys.add(key);
      for (const ch of key.slice(9, 41)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(keys.size).toBe(n);
    expect([...counts.keys()].sort().join('')).toBe([...ALPHABET].sort().join(''));
    const expected = (n * 32) / 62; // about 2580 per character
    for (const c of counts.values()) {
      expect(c).toBeGreaterThan(expected * 0.85);
      expect(c).toBeLessThan(expected * 1.15);
    }
  });

  it('parses every key it makes as valid, in its environment', () => {
    for (let i = 0; i < 200; i++) {
      expect(parseKey(generateKey('live'))).toMatchObject({ kind: 'valid', environment: 'live' });
      expect(parseKey(generateKey('test'))).toMatchObject({ kind: 'valid', environment: 'test' });
    }
  });
});

describe('parseKey', () => {
  const testKey = handMadeKey('elk_test_', SAMPLE_RANDOM);
  const liveKey = handMadeKey('elk_live_', SAMPLE_RANDOM);

  it('accepts hand-made keys with a correct checksum and tells the environment', () => {
    expect(parseKey(testKey)).toEqual({ kind: 'valid', key: testKey, environment: 'test' });
    expect(parseKey(liveKey)).toEqual({ kind: 'valid', key: liveKey, environment: 'live' });
  });

  it('ignores surrounding white space, as HTTP does', () => {
    expect(parseKey(`  ${testKey}\t`)).toEqual({ kind: 'valid', key: testKey, environment: 'test' });
  });

  it.each([undefined, null, '', ' ', '\t \t'])('treats %j as missing', (raw) => {
    expect(parseKey(raw)).toEqual({ kind: 'missing' });
  });

  it.each([
    ['garbage', 'hello world'],
    ['no prefix', SAMPLE_RANDOM + 'abcdef'],
    ['unknown environment', handMadeKey('elk_prod_', SAMPLE_RANDOM)],
    ['upper-case prefix', handMadeKey('ELK_TEST_', SAMPLE_RANDOM)],
    ['other vendor', handMadeKey('sk_test_', SAMPLE_RANDOM + 'X')],
  ])('refuses a wrong prefix (%s) as malformed', (_name, raw) => {
    expect(parseKey(raw)).toEqual({ kind: 'malformed', reason: 'prefix' });
  });

  it.each([
    ['one short', testKey.slice(0, -1)],
    ['one long', testKey + 'a'],
    ['much longer', testKey + testKey],
    ['checksum missing', testKey.slice(0, 41)],
    ['prefix only', 'elk_test_'],
  ])('refuses a wrong length (%s) as malformed', (_name, raw) => {
    expect(parseKey(raw)).toEqual({ kind: 'malformed', reason: 'length' });
  });

  it.each([
    ['a dash', 'elk_test_' + SAMPLE_RANDOM.slice(0, 31) + '-' + 'abcdef'],
    ['an inner space', 'elk_test_' + SAMPLE_RANDOM.slice(0, 31) + ' ' + 'abcdef'],
    ['a non-ASCII letter', 'elk_test_' + SAMPLE_RANDOM.slice(0, 31) + 'é' + 'abcdef'],
    ['an underscore', 'elk_live_' + SAMPLE_RANDOM.slice(0, 31) + '_' + 'abcdef'],
  ])('refuses a character outside base62 (%s) as malformed', (_name, raw) => {
    expect(raw).toHaveLength(47);
    expect(parseKey(raw)).toEqual({ kind: 'malformed', reason: 'alphabet' });
  });

  it('refuses a made-up body with a wrong checksum', () => {
    expect(parseKey('elk_test_' + SAMPLE_RANDOM + '000000')).toEqual({ kind: 'bad_checksum', environment: 'test' });
    expect(parseKey('elk_live_' + SAMPLE_RANDOM + 'zzzzzz')).toEqual({ kind: 'bad_checksum', environment: 'live' });
  });

  it('refuses a test checksum on a live prefix (the checksum covers the prefix)', () => {
    expect(parseKey('elk_live_' + testKey.slice(9))).toEqual({ kind: 'bad_checksum', environment: 'live' });
  });

  it('detects a typo in every position of a valid key, with every other base62 character', () => {
    for (const key of [testKey, liveKey, generateKey('test'), generateKey('live')]) {
      let tried = 0;
      for (let i = 0; i < key.length; i++) {
        for (const ch of ALPHABET) {
          if (ch === key[i]) continue;
          const typo = key.slice(0, i) + ch + key.slice(i + 1);
          const parsed = parseKey(typo);
          tried++;
          if (i < 9) expect(parsed).toEqual({ kind: 'malformed', reason: 'prefix' });
          else expect(parsed.kind).toBe('bad_checksum');
        }
      }
      // 47 positions; 61 replacements each, except the '_' positions of the prefix (62).
      expect(tried).toBe(47 * 61 + 2);
    }
  });

  it('detects two neighbouring characters swapped', () => {
    const key = testKey;
    for (let i = 9; i < key.length - 1; i++) {
      if (key[i] === key[i + 1]) continue;
      const swapped = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
      expect(parseKey(swapped).kind).toBe('bad_checksum');
    }
  });
});

describe('key ids, hashing and environments', () => {
  it('makes public ids key_ + 20 base62, unique, that are not keys', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => generateKeyId()));
    expect(ids.size).toBe(2000);
    for (const id of ids) {
      expect(id).toMatch(/^key_[0-9A-Za-z]{20}$/);
      expect(isKeyId(id)).toBe(true);
      expect(parseKey(id).kind).toBe('malformed');
    }
    expect(isKeyId('key_short')).toBe(false);
    expect(isKeyId(generateKey('test'))).toBe(false);
  });

  it('hashes the whole key with SHA-256 hex', () => {
    const key = handMadeKey('elk_test_', SAMPLE_RANDOM);
    expect(hashKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(handMadeKey('elk_live_', SAMPLE_RANDOM))).not.toBe(hashKey(key));
  });

  it('maps stages to environments: sandbox takes test keys, prod takes live keys', () => {
    expect(environmentForStage('sandbox')).toBe('test');
    expect(environmentForStage('prod')).toBe('live');
    expect(stageForEnvironment('test')).toBe('sandbox');
    expect(stageForEnvironment('live')).toBe('prod');
  });
});
