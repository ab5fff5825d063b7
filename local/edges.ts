import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AppError } from '../src/errors.js';
import { BASE_HEADERS, errorResponse } from '../src/http/envelope.js';
import { logger } from '../src/logger.js';

/**
 * The edges of the local server: what reaches it before (or instead of) a request the gateway can
 * route. Node's HTTP server answers some requests itself, with an empty body and none of our
 * headers: a request line or headers over its size limit (431), bytes that are not HTTP, such as
 * a raw non-ASCII URL or an invalid method (400), a request without `Host` (400), an `Expect`
 * other than 100-continue (417), and CONNECT (socket closed). Here each of them gets the envelope
 * instead, built by the one error-to-envelope mapper (src/http/envelope.ts).
 *
 * Status and code: every such refusal is the client's request being malformed, and the code table
 * has one code for that, `INVALID_PARAMETER` (400); its message names what is wrong and, for a
 * request that is too large, the limit. (431 or 414 would be the HTTP-specific statuses, but a
 * code's status is fixed by the table, and a client that branches on `code` sees the same pair as
 * for any other bad input.) CONNECT, a method the API has no route for, is `NOT_FOUND`, as the
 * `$default` route answers any other unknown method.
 */

/**
 * Request line plus headers, in bytes: API Gateway HTTP APIs refuse more than 10,240 bytes of
 * request line and headers, so the local server refuses the same.
 */
export const MAX_REQUEST_HEAD_BYTES = 10_240;

/** The headers of every answer the local gateway gives itself (the functions' answers carry them too). */
export function gatewayHeaders(traceId: string): Record<string, string> {
  return { ...BASE_HEADERS, 'x-trace-id': traceId };
}

/** The envelope answer for `error`, written on a response the gateway owns. */
export function writeEnvelope(res: ServerResponse, error: unknown, traceId: string): number {
  const result = errorResponse(error, traceId);
  const status = result.statusCode ?? 500;
  res.writeHead(status, { ...stringHeaders(result), ...gatewayHeaders(traceId) });
  res.end(result.body ?? '');
  return status;
}

function stringHeaders(result: APIGatewayProxyStructuredResultV2): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k.toLowerCase()] = String(v);
  return headers;
}

/** A whole HTTP/1.1 response, as bytes to write on a socket that has no ServerResponse. */
export function rawEnvelope(error: AppError, traceId: string = randomUUID()): string {
  const result = errorResponse(error, traceId);
  const status = result.statusCode ?? 500;
  const body = result.body ?? '';
  const headers = {
    ...stringHeaders(result),
    ...gatewayHeaders(traceId),
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Path and raw query of a request target, or undefined when it is not a URL. Never throws. */
export function requestTarget(raw: string | undefined): { rawPath: string; rawQueryString: string } | undefined {
  const target = raw ?? '/';
  try {
    // Origin form (`/path?query`) is read against a fixed origin, so `//x` stays a path and does
    // not become a host; anything else (absolute form, `*`) is resolved as a URL.
    const url = target.startsWith('/') ? new URL(`http://localhost${target}`) : new URL(target, 'http://localhost/');
    return { rawPath: url.pathname, rawQueryString: url.search.replace(/^\?/, '') };
  } catch {
    return undefined;
  }
}

export const INVALID_TARGET_MESSAGE = 'The request URL is not valid';

/** The refusal for an error of Node's HTTP parser (the `clientError` event). */
export function clientErrorRefusal(error: Error & { code?: string }, maxHeadBytes: number): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError(
        'INVALID_PARAMETER',
        `The request line and headers are too large: the limit is ${maxHeadBytes} bytes`,
      );
    case 'HPE_INVALID_URL':
      return new AppError(
        'INVALID_PARAMETER',
        `${INVALID_TARGET_MESSAGE}: only printable ASCII may appear in it; percent-encode anything else (as UTF-8)`,
      );
    case 'HPE_INVALID_METHOD':
      return new AppError('INVALID_PARAMETER', 'The request method is not valid');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('INVALID_PARAMETER', 'The request was not received completely in time');
    default:
      return new AppError('INVALID_PARAMETER', 'The request is not valid HTTP/1.1: a malformed request line or header');
  }
}

interface SocketWithResponse extends Duplex {
  _httpMessage?: { headersSent?: boolean } | null;
}

/**
 * Answers a parser error in the envelope, when nothing of another response has been written on
 * the socket yet (as Node's own handler does), then closes the socket. The raw bytes of the
 * request (`error.rawPacket`) are never logged: they may hold a key.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex, maxHeadBytes: number): void {
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE') {
    socket.destroy();
    return;
  }
  const inFlight = (socket as SocketWithResponse)._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const refusal = clientErrorRefusal(error, maxHeadBytes);
    const traceId = randomUUID();
    logger.info('request refused by the local gateway', { traceId, code: refusal.code, reason: error.code ?? error.name });
    socket.end(rawEnvelope(refusal, traceId));
  } else {
    socket.destroy();
  }
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Requests that expect `100 Continue` and have not had it: the listener sends it when it reads the body (local/gateway.ts). */
export const awaitingContinue = new WeakSet<IncomingMessage>();

/**
 * The local server's HTTP server: `listener` for every request Node can parse, including one
 * without `Host` and one with an unusual `Expect` (with `Expect: 100-continue`, before the `100`:
 * see `awaitingContinue`); the envelope for everything Node would answer itself (see above).
 */
export function createEdgeServer(listener: RequestListener, maxHeadBytes: number = MAX_REQUEST_HEAD_BYTES): Server {
  const server = createServer({ maxHeaderSize: maxHeadBytes, requireHostHeader: false }, listener);
  server.on('checkExpectation', listener);
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaitingContinue.add(req);
    listener(req, res);
  });
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => answerClientError(error, socket, maxHeadBytes));
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    socket.end(rawEnvelope(new AppError('NOT_FOUND', `No route for CONNECT`)));
    req.resume();
  });
  return server;
}
