import { createOpenApiHandler } from '../../src/contract/openapi-handler.js';

/** GET /open/v1/openapi.json (src/routes.ts), no key; built by src/contract/openapi-handler.ts. */
export const handler = createOpenApiHandler();
