import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Envelope as ApiEnvelope } from '../../src/http/envelope.js';
import { runScript } from '../support/commands.js';
import { callApi } from '../support/contract.js';
import { wireGet } from '../support/raw-http.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';
import { testNow } from '../support/clock.js';

/**
 * GET /open/v1/empty-legs/{id} and the conditional requests of both routes, as a client sees them:
 * `npm start --data FIXTURE`, plain HTTP, every response checked against docs/openapi.yaml
 * (callApi), a 304 included. Expectations come from the fixture. The last case changes a leg with
 * the project's own tool (`npm run legs:load`) and watches it leave both routes.
 */
const DAY = 86_400_000;
const today = new Date(testNow());
const day = (offset: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) + offset * DAY).toISOString().slice(0, 10);

const base = {
  depCityName: 'London',
  depAirportName: null,
  depAirportIcao: 'EGLF',
  depAirportIata: 'FAB',
  depCountryName: null,
  depCountryCode: null,
  arrCityName: 'Nice',
  arrAirportName: null,
  arrAirportIcao: 'LFMN',
  arrAirportIata: 'NCE',
  arrCountryName: null,
  arrCountryCode: null,
  airlineName: null,
  aircraftModelName: 'Challenger 350',
  aircraftType: null,
  registration: null,
  aircraftImg: null,
  makeYear: 2018,
  renovateYear: null,
  seatNum: 9,
  price: 9000,
  currency: 'EUR',
  amenities: [],
  depTimezone: 'Europe/London',
};
const legs = [
  { ...base, id: 'by-id-1', startDate: day(3), endDate: day(5) },
  { ...base, id: 'by-id-2', startDate: day(4), endDate: day(4), price: 12000 },
  { ...base, id: 'by_id_3', startDate: day(6), endDate: day(9) },
  { ...base, id: 'hidden-blocked', startDate: day(3), endDate: day(5), blocked: true },
  { ...base, id: 'hidden-unlisted', startDate: day(3), endDate: day(5), listed: false },
  { ...base, id: 'hidden-expired', startDate: day(-9), endDate: day(-3) },
];

type Envelope = ApiEnvelope<Record<string, unknown>>;
type PageEnvelope = ApiEnvelope<{ records: Record<string, unknown>[]; total: number }>;

let service: RunningService;
let dir: string;

function leg(id: string, headers: Record<string, string> = {}, key: string | null = service.apiKey) {
  return callApi<Envelope>(`${service.baseUrl}/open/v1/empty-legs/${id}`, { headers: { ...(key === null ? {} : { 'X-API-Key': key }), ...headers } });
}

function list(query: string, headers: Record<string, string> = {}) {
  return callApi<PageEnvelope>(`${service.baseUrl}/open/v1/empty-legs${query}`, { headers: { 'X-API-Key': service.apiKey, ...headers } });
}

/** A raw HTTP GET (node:http, no transparent decoding): status, headers and the bytes on the wire. */
function rawGet(path: string, headers: Record<string, string>) {
  return wireGet(`${service.baseUrl}${path}`, { 'X-API-Key': service.apiKey, ...headers });
}

async function keyWithScopes(scopes: string): Promise<string> {
  const r = await runScript(
    'keys',
    ['create', '--env', 'test', '--scopes', scopes, '--json'],
    { AWS_REGION: 'us-east-1', DYNAMODB_ENDPOINT: service.dynamodbEndpoint, KEYS_TABLE_NAME: service.keysTableName, LEGS_TABLE_NAME: service.legsTableName },
  );
  if (r.code !== 0) throw new Error(`npm run keys exited ${r.code}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { key: string }).key;
}

jest.setTimeout(60_000);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'empty-legs-by-id-'));
  const file = join(dir, 'legs.ndjson');
  writeFileSync(file, legs.map((l) => JSON.stringify(l)).join('\n') + '\n');
  service = await startLocalServer({ dataFile: file });
}, 90_000);

afterAll(async () => service?.stop());

describe('GET /open/v1/empty-legs/{id} on the local server', () => {
  it('answers 200 with the listing record of the leg, and its ETag', async () => {
    const { body: page } = await list('?size=100');
    for (const record of page.data!.records) {
      const { res, body } = await leg(String(record.id));
      expect(res.status).toBe(200);
      expect(body.data).toEqual(record);
      expect(Object.keys(body.data!)).toEqual(Object.keys(record));
      expect(res.headers.get('etag')).toMatch(/^W\/"/);
      expect(res.headers.get('x-trace-id')).toBe(body.traceId);
    }
    expect(page.data!.records.map((r) => r.id).sort()).toEqual(['by-id-1', 'by-id-2', 'by_id_3']);
  });

  it.each(['hidden-blocked', 'hidden-unlisted', 'hidden-expired', 'never-loaded'])('answers %s with 404 NOT_FOUND and the one message', async (id) => {
    const { res, body } = await leg(id);
    expect(res.status).toBe(404);
    expect(body).toMatchObject({ code: 'NOT_FOUND', message: 'No empty leg with this id is listed', data: null });
  });

  it.each([['a'.repeat(65)], ['by-id-1.json'], ['by%20id'], ['%7Ejournal'], ['by%2Fid']])('answers the malformed id %s with 400 INVALID_PARAMETER naming id', async (raw) => {
    const { res, body } = await leg(raw);
    expect(res.status).toBe(400);
    expect(body).toMatchObject({ code: 'INVALID_PARAMETER', data: null });
    expect(body.message).toContain("'id'");
  });

  it('answers without a key 401 API_KEY_MISSING, and with a key lacking the scope 403 PERMISSION_DENIED', async () => {
    const missing = await leg('by-id-1', {}, null);
    expect(missing.res.status).toBe(401);
    expect(missing.body.code).toBe('API_KEY_MISSING');
    const other = await leg('by-id-1', {}, await keyWithScopes('booking:read'));
    expect(other.res.status).toBe(403);
    expect(other.body.code).toBe('PERMISSION_DENIED');
  });
});

describe('conditional requests on the local server', () => {
  it.each([
    ['GET /open/v1/empty-legs/{id}', '/open/v1/empty-legs/by-id-2'],
    ['GET /open/v1/empty-legs', '/open/v1/empty-legs?size=2'],
  ])('%s: If-None-Match with the current tag (weak, strong, in a list, *) is 304 with no body; another tag is 200', async (_name, path) => {
    const first = await callApi(`${service.baseUrl}${path}`, { headers: { 'X-API-Key': service.apiKey } });
    const etag = first.res.headers.get('etag')!;
    for (const ifNoneMatch of [etag, etag.slice(2), `W/"nope", ${etag}`, '*']) {
      const { res, body } = await callApi(`${service.baseUrl}${path}`, { headers: { 'X-API-Key': service.apiKey, 'If-None-Match': ifNoneMatch } });
      expect(res.status).toBe(304);
      expect(body).toBeUndefined();
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    const other = await callApi(`${service.baseUrl}${path}`, { headers: { 'X-API-Key': service.apiKey, 'If-None-Match': 'W/"nope"' } });
    expect(other.res.status).toBe(200);
    expect(other.res.headers.get('etag')).toBe(etag);
  });

  it('gives a page its own tag, the same with gzip, and a 304 on the wire has no bytes', async () => {
    const [p1, p2] = await Promise.all([list('?size=1&page=1'), list('?size=1&page=2')]);
    expect(p1.res.headers.get('etag')).not.toBe(p2.res.headers.get('etag'));
    const zipped = await rawGet('/open/v1/empty-legs?size=100', { 'Accept-Encoding': 'gzip' });
    const plain = await rawGet('/open/v1/empty-legs?size=100', {});
    expect(zipped.headers.etag).toBe(plain.headers.etag);
    const notModified = await rawGet('/open/v1/empty-legs?size=100', { 'Accept-Encoding': 'gzip', 'If-None-Match': String(plain.headers.etag) });
    expect(notModified.status).toBe(304);
    expect(notModified.bytes.length).toBe(0);
    expect(notModified.headers['content-encoding']).toBeUndefined();
  });

  it('a leg blocked with npm run legs:load is 404 by id at once and leaves the listing within 2 s; the list tag changes', async () => {
    const before = await list('?size=100');
    const etag = before.res.headers.get('etag')!;
    const file = join(dir, 'block.ndjson');
    writeFileSync(file, JSON.stringify({ ...legs[0], blocked: true }) + '\n');
    const loaded = await runScript('legs:load', [file], { DYNAMODB_ENDPOINT: service.dynamodbEndpoint, LEGS_TABLE_NAME: service.legsTableName, KEYS_TABLE_NAME: service.keysTableName }, { inherit: true, timeoutMs: 60_000 });
    expect(loaded.code).toBe(0);
    const loadedAt = Date.now();
    expect((await leg('by-id-1')).res.status).toBe(404);
    let after = await list('?size=100', { 'If-None-Match': etag });
    while (after.res.status === 304 && Date.now() - loadedAt < 2_000) {
      await new Promise((r) => setTimeout(r, 100));
      after = await list('?size=100', { 'If-None-Match': etag });
    }
    expect(after.res.status).toBe(200);
    expect(after.res.headers.get('etag')).not.toBe(etag);
    expect(after.body.data!.records.map((r) => r.id)).not.toContain('by-id-1');
  });
});
