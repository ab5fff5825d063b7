import { describe, expect, it } from '@jest/globals';
import { checkResponse } from '../../../bench/load/check.js';
import { expectationFor, queryRules, type KeyKind } from '../../../bench/load/mix.js';

/** The load test's oracle: what each request must get, and the check of a response against it. */
const TRACE = '0b6f3c1e-2a4d-4f8b-9c7e-1d2e3f4a5b6c';
const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff', 'x-trace-id': TRACE };
const page = (records: { startDate: string }[], size = 20, pageNo = 1) =>
  JSON.stringify({ code: 'OK', message: 'success', data: { records, total: records.length, page: pageNo, size }, traceId: TRACE });
const error = (code: string) => JSON.stringify({ code, message: 'no', data: null, traceId: TRACE });

describe('expectationFor', () => {
  const queries = queryRules('2026-11-22');
  const ok = queries.find((q) => q.name === 'size=5')!;
  const invalid = queries.find((q) => q.name === 'page not an integer')!;
  const notFound = queries.find((q) => q.name === 'unknown route')!;

  it.each<[KeyKind, number, string]>([
    ['valid', 200, 'OK'],
    ['successor', 200, 'OK'],
    ['rotated', 200, 'OK'],
    ['missing', 401, 'API_KEY_MISSING'],
    ['garbage', 401, 'API_KEY_INVALID'],
    ['badChecksum', 401, 'API_KEY_INVALID'],
    ['neverIssued', 401, 'API_KEY_INVALID'],
    ['revoked', 401, 'API_KEY_INVALID'],
    ['expired', 401, 'API_KEY_EXPIRED'],
    ['wrongEnvironment', 401, 'API_KEY_WRONG_ENVIRONMENT'],
    ['noScope', 403, 'PERMISSION_DENIED'],
  ])('a %s key on a good query: %i %s; on a bad query the key decides first; an unknown route is 404', (kind, status, code) => {
    expect(expectationFor(kind, ok)).toMatchObject({ status, code, deprecated: kind === 'rotated' });
    const bad = expectationFor(kind, invalid);
    if (status === 200) expect(bad).toMatchObject({ status: 400, code: 'INVALID_PARAMETER', deprecated: kind === 'rotated' });
    else expect(bad).toMatchObject({ status, code, deprecated: false });
    expect(expectationFor(kind, notFound)).toEqual({ status: 404, code: 'NOT_FOUND', deprecated: false });
  });
});

describe('checkResponse', () => {
  const ok = { status: 200, code: 'OK', deprecated: false, size: 5 };
  it('accepts a right answer', () => {
    expect(checkResponse(ok, 200, page([{ startDate: '2026-12-01' }, { startDate: '2026-12-02' }], 5), HEADERS)).toEqual([]);
    expect(checkResponse({ status: 401, code: 'API_KEY_MISSING', deprecated: false }, 401, error('API_KEY_MISSING'), HEADERS)).toEqual([]);
  });

  it.each<[string, Parameters<typeof checkResponse>, RegExp]>([
    ['a wrong status', [ok, 500, page([], 5), HEADERS], /status 500, expected 200/],
    ['a wrong code', [{ status: 401, code: 'API_KEY_INVALID', deprecated: false }, 401, error('API_KEY_MISSING'), HEADERS], /code API_KEY_MISSING/],
    ['no nosniff', [ok, 200, page([], 5), { ...HEADERS, 'x-content-type-options': undefined }], /nosniff/],
    ['a bare content type', [ok, 200, page([], 5), { ...HEADERS, 'content-type': 'application/json' }], /content-type/],
    ['a missing deprecation header', [{ ...ok, deprecated: true }, 200, page([], 5), HEADERS], /X-API-Key-Deprecated/],
    ['an undue deprecation header', [ok, 200, page([], 5), { ...HEADERS, 'x-api-key-deprecated': 'true' }], /where none is due/],
    ['a trace id header that differs', [ok, 200, page([], 5), { ...HEADERS, 'x-trace-id': 'x' }], /X-Trace-Id differs/],
    ['a wrong size', [ok, 200, page([], 20), HEADERS], /size 20, expected 5/],
    ['records out of order', [ok, 200, page([{ startDate: '2026-12-02' }, { startDate: '2026-12-01' }], 5), HEADERS], /date order/],
    ['an empty body', [ok, 200, '', HEADERS], /not JSON/],
    ['extra envelope fields', [ok, 200, JSON.stringify({ ...JSON.parse(page([], 5)) as object, stack: 'x' }), HEADERS], /envelope fields/],
  ])('finds %s', (_name, args, problem) => {
    expect(checkResponse(...args).join('\n')).toMatch(problem);
  });
});
