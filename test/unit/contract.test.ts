import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parse } from 'yaml';
import { OPENAPI_DOCUMENT_JSON } from '../../src/contract/openapi-document.js';
import { openApiModuleSource } from '../../scripts/openapi-source.js';
import { ERROR_STATUS } from '../../src/errors.js';
import { deprecationHeaders } from '../../src/http/middleware.js';
import { ROUTES } from '../../src/routes.js';
import { fold } from '../../src/kernel/leg-item.js';
import { AIRCRAFT_CATEGORIES } from '../../src/kernel/aircraft-category.js';
import { MAX_SEATS } from '../../src/kernel/model.js';
import { contractViolations, HTTP_METHODS, loadOpenApi } from '../support/contract.js';

/** The contract document, the checks the e2e tests run with it, and the pure parts of point 6. */
const doc = loadOpenApi();
const UUID = 'e73b0588-483d-4053-a463-51bdccf14f77';
const LIST = new URL('http://localhost/open/v1/empty-legs');
const ONE = new URL('http://localhost/open/v1/empty-legs/EL-1');
const TAG = 'W/"x3Sk0q1bS8y6VZpDq2rN0A"';

function response(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'x-trace-id': UUID,
      ...headers,
    },
  });
}

const leg = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  ...(Object.fromEntries((doc.components.schemas.EmptyLeg!.required ?? []).map((f) => [f, null])) as Record<string, unknown>),
  id: 'EL-1',
  startDate: '2026-11-23',
  endDate: '2026-11-25',
  depCityName: 'Paris',
  arrCityName: 'Nice',
  amenities: [],
  ...over,
});
const page = (records: unknown[]) => ({ code: 'OK', message: 'success', data: { records, total: records.length, page: 1, size: 20 }, traceId: UUID });

describe('docs/openapi.yaml and the code', () => {
  it('src/contract/openapi-document.ts is the YAML document, regenerated (npm run openapi)', () => {
    const yamlText = readFileSync('docs/openapi.yaml', 'utf8');
    expect(readFileSync('src/contract/openapi-document.ts', 'utf8')).toBe(openApiModuleSource(yamlText));
    expect(JSON.parse(OPENAPI_DOCUMENT_JSON)).toEqual(parse(yamlText));
  });

  it('documents exactly the routes of src/routes.ts, with their methods and scopes', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      HTTP_METHODS.filter((m) => item[m]).map((m) => {
        const security = item[m]!.security ?? doc.security ?? [];
        const scopes = security.flatMap((s) => Object.values(s).flat());
        return { method: m.toUpperCase(), path, scope: security.length === 0 ? null : (scopes[0] ?? null) };
      }),
    );
    const served = Object.values(ROUTES).map((r) => ({ method: r.method, path: r.path, scope: r.scope }));
    const byKey = (a: { method: string; path: string }, b: { method: string; path: string }) =>
      `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`);
    expect(documented.sort(byKey)).toEqual(served.sort(byKey));
  });

  it('documents the aircraft categories of src/kernel/aircraft-category.ts and the seat range of the model', () => {
    const leg = doc.components.schemas.EmptyLeg!.properties as Record<string, { enum?: unknown[]; maximum?: number }>;
    expect(leg.aircraftType!.enum).toEqual([...AIRCRAFT_CATEGORIES, null]);
    expect(leg.seatNum!.maximum).toBe(MAX_SEATS);
    const minSeats = doc.components.parameters.minSeats as { schema: { minimum: number; maximum: number } };
    expect([minSeats.schema.minimum, minSeats.schema.maximum]).toEqual([1, MAX_SEATS]);
    const aircraftType = doc.components.parameters.aircraftType as { description: string };
    for (const c of AIRCRAFT_CATEGORIES) expect(aircraftType.description).toContain(`\`${c}\``);
  });

  it('documents every error code with its HTTP status', () => {
    const errorCode = doc.components.schemas.ErrorCode!;
    expect([...(errorCode.enum ?? [])].sort()).toEqual(Object.keys(ERROR_STATUS).sort());
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(errorCode.description).toContain(`| \`${code}\` | ${status} |`);
    }
  });
});

describe('the response check of the e2e tests can fail', () => {
  it('accepts a conforming page and a conforming error', () => {
    expect(contractViolations('GET', LIST, response(200, page([leg()]), { etag: TAG }), page([leg()]))).toEqual([]);
    const err = { code: 'API_KEY_MISSING', message: 'An API key is required', data: null, traceId: UUID };
    expect(contractViolations('GET', LIST, response(401, err), err)).toEqual([]);
  });

  it('accepts a conforming leg, its 404, and a 304 without a body on both routes', () => {
    const one = { code: 'OK', message: 'success', data: leg(), traceId: UUID };
    expect(contractViolations('GET', ONE, response(200, one, { etag: TAG }), one)).toEqual([]);
    const missing = { code: 'NOT_FOUND', message: 'No empty leg with this id is listed', data: null, traceId: UUID };
    expect(contractViolations('GET', ONE, response(404, missing), missing)).toEqual([]);
    const notModified = new Response(null, { status: 304, headers: { etag: TAG, 'x-trace-id': UUID } });
    expect(contractViolations('GET', ONE, notModified, undefined)).toEqual([]);
    expect(contractViolations('GET', LIST, notModified, undefined)).toEqual([]);
  });

  it.each([
    ['a 200 leg without its ETag', ONE, 200, { code: 'OK', message: 'success', data: leg(), traceId: UUID }, {}],
    ['a 200 page without its ETag', LIST, 200, page([leg()]), {}],
    ['a strong ETag', ONE, 200, { code: 'OK', message: 'success', data: leg(), traceId: UUID }, { etag: '"x3Sk0q1bS8y6VZpDq2rN0A"' }],
    ['a page as the data of one leg', ONE, 200, { ...page([leg()]) }, { etag: TAG }],
    ['a 404 of a leg with another code', ONE, 404, { code: 'INVALID_PARAMETER', message: 'x', data: null, traceId: UUID }, {}],
    ['a 304 with a body', LIST, 304, page([]), { etag: TAG }],
  ])('refuses %s', (_name, url, status, body, headers) => {
    // A Response cannot be built with status 304 and a body: the body is passed beside it, as read.
    const res = status === 304 ? new Response(null, { status, headers: { etag: TAG, 'x-trace-id': UUID } }) : response(status, body, headers);
    expect(contractViolations('GET', url, res, body).length).toBeGreaterThan(0);
  });

  it.each([
    ['a leg field left out instead of null', 200, page([(({ airlineName: _a, ...rest }) => rest)(leg())]), {}],
    ['an internal attribute', 200, page([leg({ depTimezone: 'UTC' })]), {}],
    ['a price as a string', 200, page([leg({ price: '1000' })]), {}],
    ['an aircraftType outside the vocabulary', 200, page([leg({ aircraftType: 'LIGHT JET' })]), {}],
    ['an unknown amenity type', 200, page([leg({ amenities: [{ amenityType: 'spa', amenityName: 'x', amenityDesc: 'y' }] })]), {}],
    ['a code that does not belong to the status', 401, { code: 'PERMISSION_DENIED', message: 'x', data: null, traceId: UUID }, {}],
    ['an undocumented status', 418, { code: 'OK', message: 'x', data: null, traceId: UUID }, {}],
    ['a trace id that is not a UUID', 200, { ...page([]), traceId: 'abc' }, { 'x-trace-id': 'abc' }],
    ['a header trace id unlike the body', 200, page([]), { 'x-trace-id': '00000000-0000-4000-8000-000000000000' }],
    ['no nosniff', 200, page([]), { 'x-content-type-options': '' }],
    ['X-API-Key-Deprecated without Sunset', 200, page([]), { 'x-api-key-deprecated': 'true', deprecation: '@1' }],
    ['a Sunset that is not an HTTP-date', 200, page([]), { 'x-api-key-deprecated': 'true', deprecation: '@1', sunset: '2026-11-29' }],
  ])('refuses %s', (_name, status, body, headers) => {
    const res = response(status, body, { ...(status === 200 ? { etag: TAG } : {}), ...headers });
    expect(contractViolations('GET', LIST, res, body).length).toBeGreaterThan(0);
  });

  it('refuses anything but NOT_FOUND for a path the document does not have', () => {
    const body = page([]);
    expect(contractViolations('GET', new URL('http://localhost/nowhere'), response(200, body), body).length).toBeGreaterThan(0);
  });
});

describe('Deprecation and Sunset headers', () => {
  it('give the rotation as @epoch-seconds (RFC 9745) and the grace end as an HTTP-date (RFC 8594)', () => {
    expect(deprecationHeaders({ deprecatedAt: '2026-11-21T19:27:14.969Z', sunsetAt: '2026-11-28T19:27:14.969Z' })).toEqual({
      'x-api-key-deprecated': 'true',
      deprecation: `@${Date.UTC(2026, 10, 21, 19, 27, 14) / 1000}`,
      sunset: 'Sat, 28 Nov 2026 19:27:14 GMT',
    });
    expect(deprecationHeaders({})).toEqual({ 'x-api-key-deprecated': 'true' });
  });
});

describe('fold (city filters)', () => {
  it.each([
    ['São Paulo', 'sao paulo'],
    ['Zürich', 'zurich'],
    ['MÜNCHEN', 'munchen'],
    ['Île-de-France', 'ile-de-france'],
    ['İstanbul', 'istanbul'],
    ['Bogotá', 'bogota'],
  ])('%s folds to %s', (input, expected) => {
    expect(fold(input)).toBe(expected);
  });

  it('ignores any combining mark added to any letter, and any case, whether composed or not', () => {
    const letters = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ -'.split('')) });
    const mark = fc.integer({ min: 0x300, max: 0x36f }).map((c) => String.fromCodePoint(c));
    fc.assert(
      fc.property(letters, fc.array(mark, { maxLength: 30 }), fc.boolean(), (base, marks, compose) => {
        let decorated = [...base].map((ch, i) => ch + (marks[i] ?? '')).join('');
        if (compose) decorated = decorated.normalize('NFC');
        expect(fold(decorated)).toBe(base.toLowerCase());
      }),
    );
  });
});
