/** What other capabilities may use of contract/: its public surface (eslint.boundaries.js). */
export { OPENAPI_DOCUMENT_JSON } from './openapi-document.js';
