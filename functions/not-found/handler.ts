import { createNotFoundHandler } from '../../src/http/not-found.js';

/** The `$default` route (src/routes.ts): NOT_FOUND in the envelope; built by src/http/not-found.ts. */
export const handler = createNotFoundHandler();
