import { createHash } from 'node:crypto';
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/**
 * Conditional GETs (docs/api.md, "Conditional requests"): a weak ETag digest of the envelope's `data`
 * on every 200, and `If-None-Match` compared weakly (RFC 9110 §13.1.2) into a 304 with no body.
 */

/** Bytes of digest kept in a tag: 128 bits (22 base64url characters). */
const TAG_BYTES = 16;

/** A digest of `parts`, in order, as the opaque part of a tag (22 characters of base64url). */
export function digestOf(parts: Iterable<string | Uint8Array>): Buffer {
  const hash = createHash('sha256');
  for (const part of parts) {
    hash.update(String(typeof part === 'string' ? Buffer.byteLength(part) : part.byteLength));
    hash.update(':');
    hash.update(part);
  }
  return hash.digest().subarray(0, TAG_BYTES);
}

/** The weak entity tag of a digest: `W/"<base64url>"`. */
export function weakTag(digest: Uint8Array): string {
  return `W/"${Buffer.from(digest).toString('base64url')}"`;
}

/** One entity-tag of a list: optional `W/`, then an opaque tag in double quotes (RFC 9110 §8.8.3). */
const ENTITY_TAG = /^(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/;

/**
 * The opaque tags of an `If-None-Match` value, `'*'` for the wildcard, or undefined when the value
 * is not valid (then the condition is ignored and the full answer is sent). Empty list elements are
 * allowed (`a, , b`), as RFC 9110 §5.6.1 asks a recipient to accept.
 */
export function parseIfNoneMatch(value: string): string[] | '*' | undefined {
  const trimmed = value.trim();
  if (trimmed === '*') return '*';
  const tags: string[] = [];
  let rest = trimmed;
  while (rest.length > 0) {
    if (rest.startsWith(',')) {
      rest = rest.slice(1).trimStart();
      continue;
    }
    const m = ENTITY_TAG.exec(rest);
    if (!m) return undefined;
    tags.push(m[1]!);
    rest = rest.slice(m[0].length).trimStart();
    if (rest.length > 0 && !rest.startsWith(',')) return undefined;
  }
  return tags.length > 0 ? tags : undefined;
}

/** The opaque part of an entity tag (`W/"x"` and `"x"` both give `x`), undefined when not a tag. */
function opaqueOf(etag: string): string | undefined {
  const m = ENTITY_TAG.exec(etag);
  return m && m[0].length === etag.length ? m[1] : undefined;
}

/**
 * True when a GET with this `If-None-Match` should be answered 304 for a representation tagged
 * `etag`: `*` (a current representation exists), or one of the listed tags matches by the weak
 * comparison (the opaque tags are equal, whatever their `W/`).
 */
export function noneMatchFails(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const tags = parseIfNoneMatch(ifNoneMatch);
  if (tags === undefined) return false;
  if (tags === '*') return true;
  const opaque = opaqueOf(etag);
  return opaque !== undefined && tags.includes(opaque);
}

type Result = APIGatewayProxyStructuredResultV2;

/** Headers of a 200 that a 304 leaves out: those that describe the content it does not carry. */
const CONTENT_HEADERS = new Set(['content-type', 'content-length', 'content-encoding']);

/**
 * The 304 for a 200 `response`: no body, the 200's headers but those of the content (RFC 9110
 * §15.4.5: ETag, Cache-Control and Vary are kept; the envelope adds X-Trace-Id and the deprecation
 * headers after).
 */
export function notModified(response: Result): Result {
  const headers: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(response.headers ?? {})) if (!CONTENT_HEADERS.has(name.toLowerCase())) headers[name] = value;
  return { statusCode: 304, headers, body: '' };
}

function headerOf(headers: APIGatewayProxyEventV2['headers'] | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/**
 * Middleware: turns a 200 that carries an `etag` header into a 304 when the request's
 * `If-None-Match` matches it. Use it after `httpEnvelope()` so that it runs before it on the way out
 * (the envelope then adds its headers to the 304 too); errors are never turned into a 304.
 */
export function conditionalGet(): middy.MiddlewareObj<APIGatewayProxyEventV2, Result> {
  return {
    after: (request) => {
      const response = request.response;
      const etag = response?.headers?.etag;
      if (!response || response.statusCode !== 200 || typeof etag !== 'string') return;
      if (noneMatchFails(headerOf(request.event.headers, 'if-none-match'), etag)) request.response = notModified(response);
    },
  };
}
