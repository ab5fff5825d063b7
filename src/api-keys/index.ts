/** What other capabilities may use of api-keys/: its public surface (eslint.boundaries.js). */
export { KNOWN_SCOPES } from './scopes.js';
