import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isUnavailable } from '../aws/unavailable.js';
import { AppError, ERROR_STATUS, type ErrorCode } from '../errors.js';
import { LRUCache } from 'lru-cache';
import { digestOf, weakTag } from './conditional.js';

/** The response envelope (docs/api.md, "Envelope"), and the one mapper from any error to it. */
export interface Envelope<T> {
  code: 'OK' | ErrorCode;
  message: string;
  data: T | null;
  traceId: string;
}

export const SUCCESS_MESSAGE = 'success';

/** Headers of every response: JSON in UTF-8, never sniffed as another type, never cached. */
export const BASE_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
} as const;

const NON_ASCII = /[\u007f-\uffff]/g;

/**
 * JSON text in ASCII: JSON.stringify's, each character past U+007E written as its `\uXXXX` escape
 * (the same JSON value; docs/api.md, "Envelope"), held as a one-byte string (docs/performance.md).
 */
export function asciiJson(value: unknown): string {
  const json = JSON.stringify(value).replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return Buffer.from(json, 'latin1').toString('latin1');
}

function jsonResponse(status: number, traceId: string, body: string, etag?: string): APIGatewayProxyStructuredResultV2 {
  const headers = { ...BASE_HEADERS, 'x-trace-id': traceId, ...(etag === undefined ? {} : { etag }) };
  return { statusCode: status, headers, body };
}

export function respond<T>(status: number, envelope: Envelope<T>): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(status, envelope.traceId, asciiJson(envelope));
}

export function successResponse<T>(data: T, traceId: string): APIGatewayProxyStructuredResultV2 {
  return respond(200, { code: 'OK', message: SUCCESS_MESSAGE, data, traceId });
}

/**
 * JSON text and digest (src/http/conditional.ts) of objects serialized before. Only for objects
 * never changed after they are made: the records, which are made once per stored item and kept with
 * it (src/listing/list-legs.ts), so each is serialized and hashed once per container.
 */
class Serialized {
  private hash: Buffer | undefined;
  constructor(readonly json: string) {}
  /** Made on first use (an answer without an ETag needs none). */
  get digest(): Buffer {
    return (this.hash ??= digestOf([this.json]));
  }
}
const serialized = new WeakMap<object, Serialized>();

function serializedOf(value: object): Serialized {
  let s = serialized.get(value);
  if (s === undefined) serialized.set(value, (s = new Serialized(asciiJson(value))));
  return s;
}

function jsonOf(value: object): string {
  return serializedOf(value).json;
}

const LIST_OPENING = `{"code":"OK","message":${asciiJson(SUCCESS_MESSAGE)},"data":{"records":[`;

/**
 * A success envelope whose data starts with a list of records: the same text as
 * `successResponse`, with each record's JSON text made once (a warm container's page of 100
 * records is mostly records it has serialized before).
 */
export function listResponse<D extends { records: readonly object[] }>(data: D, traceId: string): APIGatewayProxyStructuredResultV2 {
  const { records, ...rest } = data;
  const tail = asciiJson({ data: rest, traceId });
  // `tail` is {"data":{...rest},"traceId":"..."}: the rest of data after the records, then the trace id.
  const restOfData = tail.slice('{"data":{'.length);
  const texts = records.map(serializedOf);
  const etag = listTag(texts.map((t) => t.digest), rest);
  return jsonResponse(200, traceId, `${recordsTextOf(etag, texts)}${restOfData.startsWith('}') ? '' : ','}${restOfData}`, etag);
}

/**
 * The opening and records of a list's text, made once for the same records in the same order: a
 * page asked again (the same ETag, the same record objects) reuses it rather than joining a new text
 * (a page over 128 KB is a large object for V8, costly to make each time: docs/performance.md). At
 * most 8 MB of such texts are kept, the least recently used dropped.
 */
const recordsTexts = new LRUCache<string, { texts: readonly Serialized[]; text: string }>({ max: 1_000, maxSize: 8_000_000, sizeCalculation: (v) => v.text.length });

function recordsTextOf(etag: string, texts: readonly Serialized[]): string {
  const held = recordsTexts.get(etag);
  if (held !== undefined && held.texts.length === texts.length && held.texts.every((t, i) => t === texts[i])) return held.text;
  const text = `${LIST_OPENING}${texts.map((t) => t.json).join(',')}]`;
  recordsTexts.set(etag, { texts, text });
  return text;
}

/**
 * The JSON text of `data` (as `asciiJson`'s), its records first, each record's text made once per
 * record as in `listResponse` (the MCP search's structured content: src/mcp/direct-call.ts).
 */
export function jsonWithRecords(data: { records: readonly object[] }): string {
  const { records, ...rest } = data;
  const restText = asciiJson(rest);
  return `{"records":[${records.map(jsonOf).join(',')}]${restText === '{}' ? '}' : `,${restText.slice(1)}`}`;
}

/**
 * The ETag of a list's data: a digest of its records' digests (each computed once per record, with
 * its JSON text) and of the rest of the data (total, page, size), so a request costs one hash of
 * 16 bytes a record and a few more, not a hash of the page's text.
 */
function listTag(recordDigests: readonly Buffer[], rest: object): string {
  return weakTag(digestOf(['list', ...recordDigests, asciiJson(rest)]));
}

/** The ETag of an answer whose data is one record (made once, as the listing's are). */
function recordTag(record: object): string {
  return weakTag(serializedOf(record).digest);
}

/**
 * A success envelope whose data is one record (GET /open/v1/empty-legs/{id}), with its ETag: the
 * same text as `successResponse`, the record's JSON text made once per record.
 */
export function recordResponse(record: object, traceId: string): APIGatewayProxyStructuredResultV2 {
  const body = `{"code":"OK","message":${asciiJson(SUCCESS_MESSAGE)},"data":${jsonOf(record)},"traceId":${asciiJson(traceId)}}`;
  return jsonResponse(200, traceId, body, recordTag(record));
}

export interface MappedError {
  status: number;
  code: ErrorCode;
  message: string;
  /** True when the error is ours to fix (log at error level). */
  internal: boolean;
}

/**
 * Maps any thrown value to a status, code and public message. Only an AppError's own message is
 * shown; SDK texts, stack traces and internal details never reach a response.
 */
export function mapError(error: unknown): MappedError {
  if (error instanceof AppError) {
    return { status: error.status, code: error.code, message: error.message, internal: error.code === 'INTERNAL_ERROR' };
  }
  if (isUnavailable(error)) {
    return {
      status: ERROR_STATUS.SERVICE_UNAVAILABLE,
      code: 'SERVICE_UNAVAILABLE',
      message: 'The service is temporarily unavailable; retry later',
      internal: true,
    };
  }
  return { status: ERROR_STATUS.INTERNAL_ERROR, code: 'INTERNAL_ERROR', message: 'Internal error', internal: true };
}

export function errorResponse(error: unknown, traceId: string): APIGatewayProxyStructuredResultV2 {
  const mapped = mapError(error);
  return respond(mapped.status, { code: mapped.code, message: mapped.message, data: null, traceId });
}
