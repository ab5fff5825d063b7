import type { Expectation } from './mix.js';

/**
 * The check of one load-test response against what its request must get: status, code, the
 * envelope (exact fields, UUID trace id equal to `X-Trace-Id`), the edge headers, the deprecation
 * header, and for a 200 the page (size and page in effect, records within size, in date order).
 * Pure; returns the problems found, empty when the response is right.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ENVELOPE_FIELDS = ['code', 'message', 'data', 'traceId'];

interface Page {
  records: { startDate?: unknown }[];
  total: number;
  page: number;
  size: number;
}

export function checkResponse(
  expect: Expectation,
  status: number,
  body: string,
  rawHeaders: Readonly<Record<string, string | string[] | undefined>>,
): string[] {
  const problems: string[] = [];
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(rawHeaders)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;

  if (status !== expect.status) problems.push(`status ${status}, expected ${expect.status}`);
  if (headers['content-type'] !== 'application/json; charset=utf-8') problems.push(`content-type ${headers['content-type'] ?? '(none)'}`);
  if (headers['x-content-type-options'] !== 'nosniff') problems.push('no X-Content-Type-Options: nosniff');
  const deprecated = headers['x-api-key-deprecated'];
  if (expect.deprecated && deprecated !== 'true') problems.push('no X-API-Key-Deprecated: true for a rotated key');
  if (!expect.deprecated && deprecated !== undefined) problems.push(`X-API-Key-Deprecated: ${deprecated} where none is due`);

  let envelope: Record<string, unknown>;
  try {
    envelope = JSON.parse(body) as Record<string, unknown>;
  } catch {
    problems.push(`body is not JSON: ${JSON.stringify(body.slice(0, 80))}`);
    return problems;
  }
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    problems.push('body is not an object');
    return problems;
  }
  if (Object.keys(envelope).join() !== ENVELOPE_FIELDS.join()) problems.push(`envelope fields ${Object.keys(envelope).join()}`);
  if (envelope.code !== expect.code) problems.push(`code ${String(envelope.code)}, expected ${expect.code}`);
  if (typeof envelope.message !== 'string' || envelope.message === '') problems.push('no message');
  if (typeof envelope.traceId !== 'string' || !UUID.test(envelope.traceId)) problems.push('traceId is not a UUID');
  else if (headers['x-trace-id'] !== envelope.traceId) problems.push('X-Trace-Id differs from traceId');

  if (expect.status !== 200) {
    if (envelope.data !== null) problems.push('error with data');
    return problems;
  }
  const page = envelope.data as Page | null;
  if (!page || !Array.isArray(page.records) || typeof page.total !== 'number') {
    problems.push('200 without a page');
    return problems;
  }
  if (expect.page !== undefined && page.page !== expect.page) problems.push(`page ${page.page}, expected ${expect.page}`);
  if (expect.size !== undefined && page.size !== expect.size) problems.push(`size ${page.size}, expected ${expect.size}`);
  if (page.records.length > page.size) problems.push(`${page.records.length} records over size ${page.size}`);
  if (page.records.length > page.total) problems.push('more records than total');
  const dates = page.records.map((r) => String(r.startDate));
  if (dates.some((d, i) => i > 0 && d < dates[i - 1]!)) problems.push('records not in date order');
  return problems;
}
