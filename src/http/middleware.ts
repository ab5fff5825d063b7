import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { AppError } from '../errors.js';
import { readVerdict, type VerifiedKey } from '../auth/verdict.js';
import { logger } from '../logger.js';
import { gzipResponse } from './compression.js';
import { conditionalGet } from './conditional.js';
import { errorResponse, mapError } from './envelope.js';

/**
 * `httpFunction()` chains, outermost first: injectLambdaContext (context in every log line),
 * httpEnvelope() (trace id, logs, the one error mapping, key headers), conditionalGet() (304), requireApiKey(scope).
 */
type Event = APIGatewayProxyEventV2 & { requestContext: { authorizer?: { lambda?: unknown } } };

/** An HTTP function's handler, as Lambda calls it. */
export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
type Result = APIGatewayProxyStructuredResultV2;
type Request = middy.Request<Event, Result>;

const DEPRECATED = Symbol('apiKeyDeprecated');
const RATE_LIMIT = Symbol('rateLimitHeaders');
type Internal = Record<string | symbol, unknown>;

function internal(request: Request): Internal {
  return request.internal;
}

/** The request's trace id: the Lambda request id (a UUID), shared by the envelope, header and logs. */
export function traceIdOf(request: { context: { awsRequestId: string } }): string {
  return request.context.awsRequestId;
}

/**
 * The headers of every response to a key in its grace period (docs/api.md, "Response headers"):
 * `X-API-Key-Deprecated: true`, `Deprecation` (`@<epoch seconds>` of the rotation) and `Sunset`
 * (the HTTP-date at which the grace period ends).
 */
export function deprecationHeaders(key: Pick<VerifiedKey, 'deprecatedAt' | 'sunsetAt'>): Record<string, string> {
  const headers: Record<string, string> = { 'x-api-key-deprecated': 'true' };
  const since = key.deprecatedAt === undefined ? NaN : Date.parse(key.deprecatedAt);
  const sunset = key.sunsetAt === undefined ? NaN : Date.parse(key.sunsetAt);
  if (Number.isFinite(since)) headers.deprecation = `@${Math.floor(since / 1000)}`;
  if (Number.isFinite(sunset)) headers.sunset = new Date(sunset).toUTCString();
  return headers;
}

function finish(request: Request): void {
  const response = request.response;
  if (!response) return;
  response.headers = { ...response.headers, 'x-trace-id': traceIdOf(request) };
  const deprecated = internal(request)[DEPRECATED] as VerifiedKey | undefined;
  if (deprecated) Object.assign(response.headers, deprecationHeaders(deprecated));
  const rateLimit = internal(request)[RATE_LIMIT] as Record<string, string> | undefined;
  if (rateLimit) Object.assign(response.headers, rateLimit);
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
      if (request.error instanceof AppError && request.error.headers) request.response.headers = { ...request.response.headers, ...request.error.headers };
      finish(request);
    },
  };
}

export function requireApiKey(scope: string | null): middy.MiddlewareObj<Event, Result> {
  return {
    before: (request) => {
      const verdict = readVerdict(request.event.requestContext?.authorizer?.lambda);
      // RateLimit-Policy and RateLimit on every answer to a key, Retry-After with RATE_LIMITED.
      internal(request)[RATE_LIMIT] = verdict.headers;
      if (!verdict.ok) throw new AppError(verdict.errorCode, verdict.message);
      if (verdict.key.deprecated) internal(request)[DEPRECATED] = verdict.key;
      logger.appendKeys({ keyId: verdict.key.keyId });
      if (scope !== null && !verdict.key.scopes.includes(scope)) {
        throw new AppError('PERMISSION_DENIED', `This API key lacks the scope '${scope}' that this endpoint requires`);
      }
    },
  };
}

/** The verified key of a request `requireApiKey` let through (read again from its verdict; an error verdict throws its AppError). */
export function verifiedKeyOf(event: APIGatewayProxyEventV2): VerifiedKey {
  const verdict = readVerdict((event as Event).requestContext?.authorizer?.lambda);
  if (!verdict.ok) throw new AppError(verdict.errorCode, verdict.message);
  return verdict.key;
}

/**
 * The start of every HTTP function's middy chain: the Lambda context in the logs, with `gzip` the
 * finished response's compression, then the envelope, then with `conditional` the 304 for a matching
 * If-None-Match. Add `requireApiKey(scope)` for a keyed route, then `.handler(...)`.
 */
export function httpFunction(options: { gzip?: boolean; conditional?: boolean } = {}): middy.MiddyfiedHandler<Event, Result> {
  const chain = middy<Event, Result>().use(injectLambdaContext(logger, { resetKeys: true }));
  if (options.gzip) chain.use(gzipResponse());
  chain.use(httpEnvelope());
  if (options.conditional) chain.use(conditionalGet());
  return chain;
}
