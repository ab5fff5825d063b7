import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { AppError, invalidParameter } from '../errors.js';
import { clientIdOf, hashKey } from '../keys/index.js';
import { respond, successResponse } from '../http/envelope.js';
import { httpFunction, requireApiKey, traceIdOf, verifiedKeyOf, type HttpHandler } from '../http/middleware.js';
import { routeKeyOf, ROUTES, type RouteName } from '../routes.js';
import {
  createOwnKey,
  listOwnKeys,
  MAX_BODY_BYTES,
  readSelf,
  revokeOwnKey,
  rotateOwnKey,
  type ApiKeysDependencies,
  type Caller,
} from './manage.js';

/**
 * The /open/v1/api-keys routes (src/routes.ts, docs/api.md "Managing keys"), one function: each
 * route a middy chain with its scope; a body is JSON of at most MAX_BODY_BYTES, else INVALID_PARAMETER.
 */
type Event = APIGatewayProxyEventV2;

/** The verified key making the request (requireApiKey ran first), with the hash of the key presented. */
function callerOf(event: Event): Caller {
  const key = verifiedKeyOf(event);
  const presented = event.headers?.['x-api-key']?.trim();
  return { keyId: key.keyId, clientId: clientIdOf(key), environment: key.environment, keyHash: presented ? hashKey(presented) : undefined };
}

/** The request's JSON body; `optional`: an absent or empty body is undefined. */
function bodyOf(event: Event, optional: boolean): unknown {
  const raw = event.body === undefined ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (raw.trim() === '') {
    if (optional) return undefined;
    throw invalidParameter('body', 'a JSON object is required');
  }
  if (Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) throw invalidParameter('body', `must be at most ${MAX_BODY_BYTES} bytes`);
  if (!/^application\/(.+\+)?json($|;)/i.test(event.headers?.['content-type'] ?? '')) {
    throw invalidParameter('body', 'must be sent as JSON (Content-Type: application/json)');
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw invalidParameter('body', 'must be JSON');
  }
}

export function createApiKeysHandler(deps: ApiKeysDependencies): HttpHandler {
  const route = (name: RouteName, run: (event: Event) => Promise<unknown>, status = 200): [string, HttpHandler] => [
    routeKeyOf(ROUTES[name]),
    httpFunction()
      .use(requireApiKey(ROUTES[name].scope))
      .handler(async (event, context) => {
        const data = await run(event);
        const traceId = traceIdOf({ context });
        return status === 200 ? successResponse(data, traceId) : respond(status, { code: 'OK', message: 'success', data, traceId });
      }),
  ];
  const byRoute: Record<string, HttpHandler> = Object.fromEntries([
    route('readOwnApiKey', (e) => readSelf(callerOf(e), deps)),
    route('listApiKeys', async (e) => ({ records: await listOwnKeys(callerOf(e), deps) })),
    route('createApiKey', (e) => createOwnKey(callerOf(e), bodyOf(e, false), deps), 201),
    route('rotateApiKey', (e) => rotateOwnKey(callerOf(e), e.pathParameters?.id, bodyOf(e, true), deps), 201),
    route('revokeApiKey', (e) => revokeOwnKey(callerOf(e), e.pathParameters?.id, deps)),
  ]);
  const unknown = httpFunction().handler((event) => {
    throw new AppError('NOT_FOUND', `No route for ${event.requestContext.http.method} ${event.rawPath}`);
  });
  return (event, context) => (byRoute[event.routeKey] ?? unknown)(event, context);
}
