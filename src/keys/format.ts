import { createHash, randomInt } from 'node:crypto';
import type { Stage } from '../config.js';
import type { KeyEnvironment } from '../auth/verdict.js';
import { BASE62, CHECKSUM_LENGTH, checksumOf, KEY_LENGTH, KEY_PREFIXES, PREFIX_LENGTH, RANDOM_LENGTH } from '../auth/key-shape.js';

/** API keys, pure: their shape is src/auth/key-shape.ts; here their ids, hashes, parsing and making. */
export { BASE62, CHECKSUM_LENGTH, checksumOf, KEY_LENGTH, KEY_PREFIXES, PREFIX_LENGTH, RANDOM_LENGTH, toBase62 } from '../auth/key-shape.js';

export const KEY_ENVIRONMENTS: readonly KeyEnvironment[] = ['live', 'test'];

export const KEY_ID_PREFIX = 'key_';
export const KEY_ID_RANDOM_LENGTH = 20;
const KEY_ID_PATTERN = new RegExp(`^${KEY_ID_PREFIX}[0-9A-Za-z]{${KEY_ID_RANDOM_LENGTH}}$`);

const BASE62_ONLY = /^[0-9A-Za-z]*$/;

/** `count` characters drawn uniformly from the base62 alphabet (crypto.randomInt: no modulo bias). */
export function randomBase62(count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}

/** A new key of `environment`: prefix, 32 random base62 characters, checksum. */
export function generateKey(environment: KeyEnvironment): string {
  const head = KEY_PREFIXES[environment] + randomBase62(RANDOM_LENGTH);
  return head + checksumOf(head);
}

/** A new public key id, `key_` + 20 random base62 characters (about 119 bits). */
export function generateKeyId(): string {
  return KEY_ID_PREFIX + randomBase62(KEY_ID_RANDOM_LENGTH);
}

export function isKeyId(value: string): boolean {
  return KEY_ID_PATTERN.test(value);
}

/** A client (docs/api-keys.md, "Clients"): the integrator its keys belong to, `cli_` + 20 base62 characters. */
export const CLIENT_ID_PREFIX = 'cli_';
const CLIENT_ID_PATTERN = new RegExp(`^${CLIENT_ID_PREFIX}[0-9A-Za-z]{${KEY_ID_RANDOM_LENGTH}}$`);

export function generateClientId(): string {
  return CLIENT_ID_PREFIX + randomBase62(KEY_ID_RANDOM_LENGTH);
}

export function isClientId(value: string): boolean {
  return CLIENT_ID_PATTERN.test(value);
}

/** The client of a key: its stored one, or for a key made before clients existed, one of its own derived from its id. */
export function clientIdOf(key: { keyId: string; clientId?: string | undefined }): string {
  return key.clientId ?? CLIENT_ID_PREFIX + key.keyId.slice(KEY_ID_PREFIX.length);
}

/** SHA-256 (lower-case hex) of the whole key: what the keys table stores and is keyed by. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** What may appear in logs about a key: the first 12 hex digits of its hash. */
export function hashPrefix(keyHash: string): string {
  return keyHash.slice(0, 12);
}

export type MalformedReason = 'prefix' | 'length' | 'alphabet';

export type ParsedKey =
  | { kind: 'missing' }
  | { kind: 'malformed'; reason: MalformedReason }
  | { kind: 'bad_checksum'; environment: KeyEnvironment }
  | { kind: 'valid'; key: string; environment: KeyEnvironment };

/**
 * Parses a presented key (an `X-API-Key` header value). Surrounding white space is ignored, as HTTP
 * does; absent or blank is `missing`; then the prefix, the length, the alphabet and the checksum are
 * checked in that order.
 */
export function parseKey(raw: string | undefined | null): ParsedKey {
  const key = raw?.trim() ?? '';
  if (key === '') return { kind: 'missing' };
  const environment = KEY_ENVIRONMENTS.find((env) => key.startsWith(KEY_PREFIXES[env]));
  if (environment === undefined) return { kind: 'malformed', reason: 'prefix' };
  if (key.length !== KEY_LENGTH) return { kind: 'malformed', reason: 'length' };
  const body = key.slice(PREFIX_LENGTH);
  if (!BASE62_ONLY.test(body)) return { kind: 'malformed', reason: 'alphabet' };
  const head = key.slice(0, KEY_LENGTH - CHECKSUM_LENGTH);
  if (checksumOf(head) !== key.slice(KEY_LENGTH - CHECKSUM_LENGTH)) return { kind: 'bad_checksum', environment };
  return { kind: 'valid', key, environment };
}

/** The key environment a stage accepts: sandbox takes only test keys, prod only live keys. */
export function environmentForStage(stage: Stage): KeyEnvironment {
  return stage === 'prod' ? 'live' : 'test';
}

/** The stage a key environment belongs to. */
export function stageForEnvironment(environment: KeyEnvironment): Stage {
  return environment === 'live' ? 'prod' : 'sandbox';
}
