import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AppError } from '../errors.js';
import { readVerdict } from '../auth/verdict.js';
import { logger } from '../logger.js';
import { errorResponse, mapError } from './envelope.js';

/**
 * The middy middlewares every HTTP function uses:
 *   httpEnvelope()       outermost: trace id, structured logs, the one error-to-envelope mapping,
 *                        X-Trace-Id and X-API-Key-Deprecated headers on every response
 *   requireApiKey(scope) refuses to run the handler without a verified key holding `scope`
 */
type Event = APIGatewayProxyEventV2 & { requestContext: { authorizer?: { lambda?: unknown } } };
type Result = APIGatewayProxyStructuredResultV2;
type Request = middy.Request<Event, Result>;

const DEPRECATED = Symbol('apiKeyDeprecated');
type Internal = Record<string | symbol, unknown>;

function internal(request: Request): Internal {
  return request.internal;
}

/** The request's trace id: the Lambda request id (a UUID), shared by the envelope, header and logs. */
export function traceIdOf(request: { context: { awsRequestId: string } }): string {
  return request.context.awsRequestId;
}

function finish(request: Request): void {
  const response = request.response;
  if (!response) return;
  response.headers = { ...response.headers, 'x-trace-id': traceIdOf(request) };
  if (internal(request)[DEPRECATED] === true) response.headers['x-api-key-deprecated'] = 'true';
}

export function httpEnvelope(): middy.MiddlewareObj<Event, Result> {
  return {
    before: (request) => {
      logger.resetKeys();
      logger.appendKeys({ traceId: traceIdOf(request), apiRequestId: request.event.requestContext?.requestId });
      logger.info('request', {
        method: request.event.requestContext?.http?.method,
        path: request.event.rawPath,
        query: request.event.rawQueryString,
      });
    },
    after: (request) => {
      finish(request);
      logger.info('response', { status: request.response?.statusCode });
    },
    onError: (request) => {
      const mapped = mapError(request.error);
      if (mapped.internal) logger.error('request failed', { code: mapped.code, error: request.error as Error });
      else logger.info('request refused', { code: mapped.code, reason: mapped.message });
      request.response = errorResponse(request.error, traceIdOf(request));
      finish(request);
    },
  };
}

export function requireApiKey(scope: string): middy.MiddlewareObj<Event, Result> {
  return {
    before: (request) => {
      const verdict = readVerdict(request.event.requestContext?.authorizer?.lambda);
      if (!verdict.ok) throw new AppError(verdict.errorCode, verdict.message);
      if (verdict.key.deprecated) internal(request)[DEPRECATED] = true;
      logger.appendKeys({ keyId: verdict.key.keyId });
      if (!verdict.key.scopes.includes(scope)) {
        throw new AppError('PERMISSION_DENIED', `This API key lacks the scope '${scope}' that this endpoint requires`);
      }
    },
  };
}
