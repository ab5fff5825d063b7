import { BASE_HEADERS } from '../http/envelope.js';
import { httpFunction, type HttpHandler } from '../http/middleware.js';
import { OPENAPI_DOCUMENT_JSON } from './openapi-document.js';

/**
 * GET /open/v1/openapi.json, without a key: the OpenAPI document (docs/openapi.yaml), bundled into
 * the function at build time as a JSON string (src/contract/openapi-document.ts), so no file is
 * read at run time. It changes only with a deployment, so clients may cache it for five minutes.
 */
export function createOpenApiHandler(document: string = OPENAPI_DOCUMENT_JSON): HttpHandler {
  return httpFunction().handler(() =>
    Promise.resolve({
      statusCode: 200,
      headers: { ...BASE_HEADERS, 'cache-control': 'public, max-age=300' },
      body: document,
    }),
  );
}
