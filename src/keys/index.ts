/** What other capabilities may use of keys/: its public surface (eslint.boundaries.js). */
export { CHECKSUM_LENGTH, KEY_PREFIXES, RANDOM_LENGTH, checksumOf, clientIdOf, randomBase62 } from './format.js';
