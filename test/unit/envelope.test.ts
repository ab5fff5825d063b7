import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { asciiJson, listResponse, recordResponse, successResponse } from '../../src/http/envelope.js';

const record = fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string())));
const page = fc.record({ records: fc.array(record, { maxLength: 5 }), total: fc.nat(), page: fc.nat(), size: fc.nat() }, { requiredKeys: ['records'] });

/** The response without its ETag, and the ETag. */
function split(response: APIGatewayProxyStructuredResultV2): { rest: APIGatewayProxyStructuredResultV2; etag: unknown } {
  const { etag, ...headers } = response.headers ?? {};
  return { rest: { ...response, headers }, etag };
}

/** A copy of a JSON value in new objects (a record made again from the same item). */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('listResponse', () => {
  it('is the response successResponse gives, text for text, plus a weak ETag, for any page (property)', () => {
    fc.assert(
      fc.property(page, fc.string(), (data, traceId) => {
        const want = successResponse(data, traceId);
        const first = split(listResponse(data, traceId));
        expect(first.rest).toEqual(want);
        expect(first.etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
        // Again with the same record objects: their texts and digests now come from the cache.
        const again = split(listResponse(data, traceId));
        expect(again.rest).toEqual(want);
        expect(again.etag).toBe(first.etag);
        // New record objects of the same text (the same ETag): the page's text is made again from them, the same.
        const copied = split(listResponse(copy(data), traceId));
        expect([copied.rest, copied.etag]).toEqual([want, first.etag]);
      }),
    );
  });

  it('tags equal data equally whatever the trace id, and different data differently (property)', () => {
    fc.assert(
      fc.property(page, page, fc.uuid(), fc.uuid(), (a, b, t1, t2) => {
        const tagA = listResponse(a, t1).headers?.etag;
        expect(listResponse(copy(a), t2).headers?.etag).toBe(tagA);
        const sameData = JSON.stringify(a) === JSON.stringify(b);
        expect(listResponse(b, t2).headers?.etag === tagA).toBe(sameData);
      }),
    );
  });

  it('changes the tag with the page number, the total, or one field of one record', () => {
    const records = [{ id: 'a', price: 1 }, { id: 'b', price: 2 }];
    const base = { records, total: 2, page: 1, size: 20 };
    const tag = (d: typeof base) => listResponse(d, 't').headers?.etag;
    const tags = [
      tag(base),
      tag({ ...base, page: 2 }),
      tag({ ...base, total: 3 }),
      tag({ ...base, size: 2 }),
      tag({ ...base, records: [records[0]!, { id: 'b', price: 3 }] }),
      tag({ ...base, records: [records[1]!, records[0]!] }),
      tag({ ...base, records: [records[0]!] }),
    ];
    expect(new Set(tags).size).toBe(tags.length);
  });
});

describe('recordResponse', () => {
  it('is the response successResponse gives for the record, plus an ETag of the record alone (property)', () => {
    fc.assert(
      fc.property(record, record, fc.uuid(), fc.uuid(), (r, other, t1, t2) => {
        const first = split(recordResponse(r, t1));
        expect(first.rest).toEqual(successResponse(r, t1));
        expect(first.etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
        expect(recordResponse(copy(r), t2).headers?.etag).toBe(first.etag);
        expect(recordResponse(other, t2).headers?.etag === first.etag).toBe(JSON.stringify(other) === JSON.stringify(r));
      }),
    );
  });
});

describe('response bodies', () => {
  const text = fc.string({ unit: 'grapheme' });
  const unicodeRecord = fc.dictionary(text, fc.oneof(text, fc.integer(), fc.constant(null)));

  it('are ASCII, the JSON value unchanged: characters past U+007E as their \\u escapes (property)', () => {
    fc.assert(
      fc.property(fc.array(unicodeRecord, { maxLength: 5 }), unicodeRecord, text, (records, record, traceId) => {
        const bodies = [listResponse({ records, total: records.length }, traceId), recordResponse(record, traceId), successResponse({ note: traceId }, traceId)].map((r) => r.body!);
        for (const body of bodies) expect(body).toMatch(/^[\x00-\x7e]*$/);
        expect(JSON.parse(bodies[0]!)).toEqual({ code: 'OK', message: 'success', data: { records, total: records.length }, traceId });
        expect(JSON.parse(bodies[1]!)).toEqual({ code: 'OK', message: 'success', data: record, traceId });
      }),
    );
  });

  it('escape as JSON does: a dash, a dotted capital I, an emoji as its two surrogates', () => {
    expect(asciiJson({ name: 'Madrid–Barajas', city: 'İstanbul', e: '✈️😀', plain: 'KTEB' })).toBe(
      '{"name":"Madrid\\u2013Barajas","city":"\\u0130stanbul","e":"\\u2708\\ufe0f\\ud83d\\ude00","plain":"KTEB"}',
    );
  });
});
