import { processClock, type Clock } from '../src/clock.js';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  APIGatewayRequestAuthorizerEventV2,
  Context,
} from 'aws-lambda';
import { AppError } from '../src/errors.js';
import { redactSecrets } from '../src/auth/redact.js';
import { awaitingContinue, gatewayHeaders, INVALID_TARGET_MESSAGE, requestTarget, writeEnvelope } from './edges.js';
import { lambdaContext } from './lambda-context.js';

/**
 * Local emulation of API Gateway HTTP API (payload 2.0): turns an HTTP request into the v2 event,
 * runs the route's Lambda authorizer (simple responses, no identity source, no cache) and then
 * the route's function, and writes back the function's status, headers and body. Unknown routes
 * go to the `$default` function, as in the deployed API.
 *
 * It fails the way HTTP APIs do: each function runs under its Lambda timeout (the stack's values,
 * src/time-budget.ts), and an authorizer or a function that throws or runs out of time gets API
 * Gateway's own bare answer, 500 `{"message":"Internal Server Error"}` (a Lambda timeout is a
 * function error; the functions' timeouts are all below the HTTP API's 30 s integration timeout).
 * Locally the late invocation is left to finish in the background; on Lambda it is stopped.
 */
export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
export type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEventV2,
  context: Context,
) => Promise<{ isAuthorized: boolean; context?: Record<string, unknown> }>;

export interface Route {
  method: string;
  /** Path template as API Gateway writes it: `{name}` matches one whole, non-empty segment. */
  path: string;
  /** The function's name in its Lambda context (default `function`). */
  functionName?: string;
  handler: HttpHandler;
  authorizer?: AuthorizerHandler;
  /** The authorizer's name in its Lambda context (default `authorizer`). */
  authorizerFunctionName?: string;
  /** Lambda timeouts, ms (default DEFAULT_TIMEOUT_MS). */
  timeoutMs?: number;
  authorizerTimeoutMs?: number;
}

export interface GatewayOptions {
  routes: Route[];
  defaultRoute: HttpHandler;
  /** The `$default` function's name in its Lambda context (default `not-found`). */
  defaultRouteFunctionName?: string;
  defaultRouteTimeoutMs?: number;
  /** Called with one line per request (method, path, status, ms; keys redacted); never with headers. */
  onRequest?: (line: string) => void;
  /** The clock of `requestContext.time` (default: the system clock). */
  clock?: Clock;
  /** The largest request body accepted (default MAX_PAYLOAD_BYTES). */
  maxBodyBytes?: number;
}

/** API Gateway HTTP API's payload limit: a larger body is answered 413 before it is read whole. */
export const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/** Lambda's default function timeout. */
export const DEFAULT_TIMEOUT_MS = 3_000;
/** After a 413, how long the rest of the body is read and dropped while the client reads the answer. */
export const LINGER_MS = 5_000;

class FunctionTimeout extends Error {
  override name = 'FunctionTimeout';
}

/**
 * Runs a handler the way Lambda does: with a context whose deadline is `timeoutMs` away, and an
 * error once it has passed without an answer.
 */
async function invoke<E, R>(
  handler: (event: E, context: Context) => Promise<R>,
  event: E,
  functionName: string,
  timeoutMs: number,
): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FunctionTimeout(`${functionName} timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([handler(event, lambdaContext(functionName, timeoutMs)), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}


function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

/** Query parameters the way API Gateway v2 gives them: decoded, repeated names joined by commas. */
export function queryParameters(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const params: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    params[name] = name in params ? `${params[name]},${value}` : value;
  }
  return params;
}

/**
 * Matches a raw path against a route's path template. Returns the path parameters (decoded, as API
 * Gateway gives them; `{}` for a template without any) or undefined when the path does not match.
 */
export function matchPathTemplate(template: string, rawPath: string): Record<string, string> | undefined {
  const want = template.split('/');
  const got = rawPath.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    const param = /^\{([A-Za-z0-9_]+)\}$/.exec(w);
    if (!param) {
      if (w !== g) return undefined;
      continue;
    }
    if (g === '') return undefined;
    let value: string;
    try {
      value = decodeURIComponent(g);
    } catch {
      value = g;
    }
    params[param[1]!] = value;
  }
  return params;
}

/**
 * The route whose method and path template match, with its path parameters; of several, the most
 * specific, as API Gateway chooses: fewest path parameters (`/empty-legs/changes` before
 * `/empty-legs/{id}`), then the first in the table.
 */
export function findRoute(
  routes: readonly Route[],
  method: string,
  rawPath: string,
): { route: Route; pathParameters: Record<string, string> } | undefined {
  let best: { route: Route; pathParameters: Record<string, string> } | undefined;
  for (const route of routes) {
    if (route.method !== method) continue;
    const pathParameters = matchPathTemplate(route.path, rawPath);
    if (pathParameters && (best === undefined || Object.keys(pathParameters).length < Object.keys(best.pathParameters).length)) {
      best = { route, pathParameters };
    }
  }
  return best;
}

class PayloadTooLarge extends AppError {
  constructor(maxBytes: number) {
    super('PAYLOAD_TOO_LARGE', `The request body is larger than the ${maxBytes} bytes accepted`);
  }
}

/**
 * The body, refused by its Content-Length before any byte is read (and before a `100 Continue`), or
 * as soon as more than `maxBytes` came.
 */
function readBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<string | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) return Promise.reject(new PayloadTooLarge(maxBytes));
  if (awaitingContinue.has(req)) res.writeContinue();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      // Stop reading (the socket stays open for the answer).
      req.off('data', onData);
      req.pause();
      reject(new PayloadTooLarge(maxBytes));
    };
    req.on('data', onData);
    req.once('error', reject);
    req.once('end', () => resolve(chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined));
  });
}

/**
 * Closes the connection after the answer without a reset: Node ends a `Connection: close` answer
 * with `destroySoon()`, a close with the body's bytes unread, which the kernel answers with a reset
 * that can reach the client before the answer. Instead: FIN, then the rest read and dropped until the
 * client closes, at most LINGER_MS.
 */
function lingerAfterAnswer(req: IncomingMessage): void {
  const socket = req.socket;
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', () => socket.destroy());
    req.resume();
  };
}

function writeGatewayError(res: ServerResponse, status: number, message: string, traceId: string): void {
  // What API Gateway itself answers when an authorizer denies or fails (with our edge headers).
  res.writeHead(status, gatewayHeaders(traceId));
  res.end(JSON.stringify({ message }));
}

export function createGateway(options: GatewayOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const target = requestTarget(req.url);
    if (!target) {
      const status = writeEnvelope(res, new AppError('INVALID_PARAMETER', INVALID_TARGET_MESSAGE), randomUUID());
      options.onRequest?.(`${method} (invalid URL) -> ${status} (${Math.round(performance.now() - started)} ms)`);
      return;
    }
    const { rawPath, rawQueryString } = target;
    const matched = findRoute(options.routes, method, rawPath);
    const route = matched?.route;
    const pathParameters = matched && Object.keys(matched.pathParameters).length > 0 ? matched.pathParameters : undefined;
    const routeKey = route ? `${route.method} ${route.path}` : '$default';
    const headers = headersOf(req);
    const requestId = randomUUID();
    const now = new Date((options.clock ?? processClock)());
    const requestContext: APIGatewayProxyEventV2['requestContext'] = {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        // As API Gateway gives it: the client's address, an IPv4 one in dotted form.
        sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, ''),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    };
    const cookies = headers.cookie?.split(';').map((c) => c.trim());
    const queryStringParameters = queryParameters(rawQueryString);
    let status = 500;
    try {
      let body: string | undefined;
      try {
        body = await readBody(req, res, options.maxBodyBytes ?? MAX_PAYLOAD_BYTES);
      } catch (err) {
        if (!(err instanceof PayloadTooLarge)) throw err;
        // The rest of the body is never used: the connection is closed after the answer.
        res.setHeader('connection', 'close');
        lingerAfterAnswer(req);
        status = writeEnvelope(res, err, requestId);
        return;
      }
      const event: APIGatewayProxyEventV2 = {
        version: '2.0',
        routeKey,
        rawPath,
        rawQueryString,
        ...(cookies ? { cookies } : {}),
        headers,
        ...(queryStringParameters ? { queryStringParameters } : {}),
        ...(pathParameters ? { pathParameters } : {}),
        requestContext,
        ...(body !== undefined ? { body, isBase64Encoded: false } : { isBase64Encoded: false }),
      };

      if (route?.authorizer) {
        const authorizerEvent: APIGatewayRequestAuthorizerEventV2 = {
          version: '2.0',
          type: 'REQUEST',
          routeArn: `arn:aws:execute-api:local:000000000000:local/$default/${method}${rawPath}`,
          identitySource: [],
          routeKey,
          rawPath,
          rawQueryString,
          cookies: cookies ?? [],
          headers,
          ...(queryStringParameters ? { queryStringParameters } : {}),
          ...(pathParameters ? { pathParameters } : {}),
          requestContext,
        };
        let verdict: Awaited<ReturnType<AuthorizerHandler>>;
        try {
          verdict = await invoke(route.authorizer, authorizerEvent, route.authorizerFunctionName ?? 'authorizer', route.authorizerTimeoutMs ?? DEFAULT_TIMEOUT_MS);
        } catch {
          status = 500;
          writeGatewayError(res, 500, 'Internal Server Error', requestId);
          return;
        }
        if (!verdict.isAuthorized) {
          status = 403;
          writeGatewayError(res, 403, 'Forbidden', requestId);
          return;
        }
        (event.requestContext as APIGatewayProxyEventV2['requestContext'] & { authorizer?: unknown }).authorizer = {
          lambda: verdict.context ?? {},
        };
      }

      const handler = route?.handler ?? options.defaultRoute;
      const timeoutMs = (route ? route.timeoutMs : options.defaultRouteTimeoutMs) ?? DEFAULT_TIMEOUT_MS;
      const functionName = route ? (route.functionName ?? 'function') : (options.defaultRouteFunctionName ?? 'not-found');
      const result = await invoke(handler, event, functionName, timeoutMs);
      status = result.statusCode ?? 200;
      const responseHeaders: Record<string, string> = {};
      for (const [k, v] of Object.entries(result.headers ?? {})) responseHeaders[k] = String(v);
      if (result.cookies?.length) res.setHeader('set-cookie', result.cookies);
      res.writeHead(status, responseHeaders);
      res.end(result.isBase64Encoded && result.body ? Buffer.from(result.body, 'base64') : (result.body ?? ''));
    } catch {
      status = 500;
      if (!res.headersSent) writeGatewayError(res, 500, 'Internal Server Error', requestId);
      else res.end();
    } finally {
      options.onRequest?.(redactSecrets(`${method} ${rawPath}${rawQueryString ? `?${rawQueryString}` : ''} -> ${status} (${Math.round(performance.now() - started)} ms)`));
    }
  };
}
