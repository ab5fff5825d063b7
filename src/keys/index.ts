/** What other capabilities may use of keys/: its public surface (eslint.boundaries.js). */
export {
  clientIdOf,
  generateClientId,
  generateKey,
  generateKeyId,
  hashKey,
  isClientId,
  isKeyId,
  randomBase62,
  KEY_PREFIXES,
} from './format.js';
export {
  epochSeconds,
  iso,
  keyState,
  RETENTION_AFTER_END_MS,
  toKeyRecord,
  toPublicRecord,
  type KeyRecord,
  type KeyState,
  type PublicKeyRecord,
} from './record.js';
export { getKeyByHash, getKeyById } from './store.js';
export { bumpKeysVersion, bumpKeysVersionItem, readKeysVersion } from './version.js';
export { REVOCATION_BOUND_MS } from './authorizer.js';
export { expiredMessage, MESSAGES } from './messages.js';
export { DEFAULT_RATE_LIMIT, type RateLimit } from './limits/rate-limit.js';
export { DEFAULT_CLIENT_RATE_LIMIT, readClientRateLimit } from './limits/client-limit.js';
