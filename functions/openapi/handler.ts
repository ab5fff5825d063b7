import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { OPENAPI_DOCUMENT_JSON } from '../../src/contract/openapi-document.js';
import { BASE_HEADERS } from '../../src/http/envelope.js';
import { httpEnvelope } from '../../src/http/middleware.js';

/**
 * GET /open/v1/openapi.json, without a key: the OpenAPI document (docs/openapi.yaml), bundled into
 * the function at build time as a JSON string (src/contract/openapi-document.ts), so no file is
 * read at run time. It changes only with a deployment, so clients may cache it for five minutes.
 */
export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(httpEnvelope())
  .handler(() => ({
    statusCode: 200,
    headers: { ...BASE_HEADERS, 'cache-control': 'public, max-age=300' },
    body: OPENAPI_DOCUMENT_JSON,
  }));
