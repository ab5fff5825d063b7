import { gzipSync } from 'node:zlib';
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/**
 * Compression of response bodies: a body over GZIP_MIN_BYTES to a request that accepts gzip is sent
 * gzipped, base64 with `isBase64Encoded` and `Content-Encoding: gzip`; every response says
 * `Vary: Accept-Encoding` (docs/performance.md, "The design in a paragraph").
 */
export const GZIP_MIN_BYTES = 1_024;

/** True when an `Accept-Encoding` value accepts gzip (`gzip` or `*`, with a q-value above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  let gzip: number | undefined;
  let star: number | undefined;
  for (const part of header.split(',')) {
    const [token = '', ...params] = part.trim().split(';');
    const name = token.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (Number.isNaN(q)) q = 0;
    if (name === 'gzip' || name === 'x-gzip') gzip = Math.max(gzip ?? 0, q);
    else if (name === '*') star = q;
  }
  return (gzip ?? star ?? 0) > 0;
}

function header(headers: Readonly<Record<string, string | undefined>> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (headers[name] !== undefined) return headers[name];
  const key = Object.keys(headers).find((h) => h.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

/** The response, compressed when the request accepts gzip and the body is large enough. */
export function compressResponse(
  acceptEncoding: string | undefined,
  response: APIGatewayProxyStructuredResultV2,
): APIGatewayProxyStructuredResultV2 {
  const headers = { ...response.headers, vary: 'Accept-Encoding' };
  const body = response.body;
  if (response.isBase64Encoded || typeof body !== 'string' || !acceptsGzip(acceptEncoding)) return { ...response, headers };
  const raw = Buffer.from(body, 'utf8');
  if (raw.length <= GZIP_MIN_BYTES) return { ...response, headers };
  return {
    ...response,
    headers: { ...headers, 'content-encoding': 'gzip' },
    body: gzipSync(raw, { level: 6 }).toString('base64'),
    isBase64Encoded: true,
  };
}

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** Middleware: compresses whatever response the chain produced (use it first, so it runs last). */
export function gzipResponse(): middy.MiddlewareObj<Event, Result> {
  const compress = (request: middy.Request<Event, Result>) => {
    if (request.response) request.response = compressResponse(header(request.event.headers, 'accept-encoding'), request.response);
  };
  return { after: compress, onError: compress };
}
