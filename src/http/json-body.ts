import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { invalidParameter } from '../errors.js';

/** Checks the body's size, and turns the parser's refusal into INVALID_PARAMETER. */
export function jsonBody(maxBytes: number): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: (request) => {
      const { body, isBase64Encoded } = request.event;
      if (body === undefined || body === '') throw invalidParameter('body', 'a JSON object is required');
      const bytes = isBase64Encoded ? Buffer.from(body, 'base64').length : Buffer.byteLength(body, 'utf8');
      if (bytes > maxBytes) throw invalidParameter('body', `must be at most ${maxBytes} bytes`);
      const type = request.event.headers?.['content-type'] ?? '';
      if (!/^application\/(.+\+)?json($|;)/i.test(type)) throw invalidParameter('body', 'must be sent as JSON (Content-Type: application/json)');
    },
    onError: (request) => {
      const error = request.error as { statusCode?: number; cause?: { package?: string } } | null;
      if (error?.statusCode === 415 && error.cause?.package === '@middy/http-json-body-parser') {
        request.error = invalidParameter('body', 'must be JSON');
      }
    },
  };
}
