/** What other capabilities may use of keys/: its public surface (eslint.boundaries.js). */
export { clientIdOf, randomBase62 } from './format.js';
export { keyState } from './record.js';
export { readKeysVersion } from './version.js';
