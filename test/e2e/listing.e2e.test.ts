import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { callApi, OPENAPI_FILE } from '../support/contract.js';
import { wireGet } from '../support/raw-http.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';
import type { Envelope as ApiEnvelope } from '../../src/http/envelope.js';
import { airportReference } from '../../src/airports/reference.js';
import { testNow } from '../support/clock.js';

/**
 * The listing as a client sees it: `npm start --data FIXTURE`, then plain HTTP. The fixture's dates
 * are relative to today so the expectations below hold on any day; every expectation is computed
 * from the fixture records, not from the service. Every response is also checked against the
 * contract, docs/openapi.yaml (callApi).
 */
const DAY = 86_400_000;
const today = new Date(testNow());
const day = (offset: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) + offset * DAY).toISOString().slice(0, 10);

interface FixtureLeg {
  id: string;
  startDate: string;
  endDate: string;
  depCityName: string;
  depAirportIcao: string | null;
  depAirportIata: string | null;
  arrCityName: string;
  arrAirportIcao: string | null;
  arrAirportIata: string | null;
  depTimezone: string;
  listed?: boolean;
  blocked?: boolean;
  price: number | null;
  currency: string | null;
}

const base = {
  depAirportName: null,
  depCountryName: null,
  depCountryCode: null,
  arrAirportName: null,
  arrCountryName: null,
  arrCountryCode: null,
  airlineName: null,
  aircraftModelName: 'Challenger 350',
  aircraftType: 'Super Midsize Jet',
  registration: null,
  aircraftImg: null,
  makeYear: 2018,
  renovateYear: null,
  seatNum: 9,
  amenities: [],
};

function fixture(): FixtureLeg[] {
  const legs: FixtureLeg[] = [];
  const cities = [
    ['New York', 'KTEB', 'TEB', 'America/New_York'],
    ['London', 'EGLF', 'FAB', 'Europe/London'],
    ['Nice', 'LFMN', 'NCE', 'Europe/Paris'],
    ['Dubai', 'OMDW', 'DWC', 'Asia/Dubai'],
  ] as const;
  for (let i = 0; i < 60; i++) {
    const dep = cities[i % 4]!;
    const arr = cities[(i + 1) % 4]!;
    const start = 1 + (i % 40);
    legs.push({
      id: `leg-${String(i).padStart(3, '0')}`,
      startDate: day(start),
      endDate: day(start + (i % 3)),
      depCityName: dep[0],
      depAirportIcao: dep[1],
      depAirportIata: dep[2],
      arrCityName: arr[0],
      arrAirportIcao: arr[1],
      arrAirportIata: arr[2],
      depTimezone: dep[3],
      price: 5000 + i * 100,
      currency: 'USD',
    });
  }
  legs.push({ ...legs[0]!, id: 'hidden-blocked', blocked: true });
  legs.push({ ...legs[1]!, id: 'hidden-unlisted', listed: false });
  legs.push({ ...legs[2]!, id: 'hidden-expired', startDate: day(-10), endDate: day(-3) });
  legs.push({ ...legs[3]!, id: 'no-airport', depAirportIcao: null, depAirportIata: null, depCityName: 'New York' });
  // Accents: the city filters ignore them on either side.
  legs.push({ ...legs[4]!, id: 'accent-sao-paulo', depCityName: 'São Paulo', depAirportIcao: 'SBGR', depAirportIata: 'GRU', depTimezone: 'America/Sao_Paulo', arrCityName: 'Zurich', arrAirportIcao: 'LSZH', arrAirportIata: 'ZRH' });
  legs.push({ ...legs[5]!, id: 'accent-zurich', depCityName: 'Zürich', depAirportIcao: 'LSZH', depAirportIata: 'ZRH', depTimezone: 'Europe/Zurich' });
  return legs.map((l) => ({ ...base, ...l }));
}

const legs = fixture();
const visible = legs
  .filter((l) => l.listed !== false && l.blocked !== true && l.endDate >= day(0))
  .sort((a, b) => (a.startDate === b.startDate ? (a.id < b.id ? -1 : 1) : a.startDate < b.startDate ? -1 : 1));

/** The response envelope (src/http/envelope.ts) as these tests read it. */
type Envelope = ApiEnvelope<{ records: Record<string, unknown>[]; total: number; page: number; size: number }>;

let service: RunningService;

async function get(query: string, key: string | null = service.apiKey) {
  return callApi<Envelope>(`${service.baseUrl}/open/v1/empty-legs${query}`, {
    headers: key === null ? {} : { 'X-API-Key': key },
  });
}

/** A raw HTTP GET of the listing (node:http, no transparent decoding): status, headers and the bytes on the wire. */
function rawGet(query: string, headers: Record<string, string>) {
  return wireGet(`${service.baseUrl}/open/v1/empty-legs${query}`, { 'X-API-Key': service.apiKey, ...headers });
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'empty-legs-e2e-'));
  const file = join(dir, 'legs.ndjson');
  writeFileSync(file, legs.map((l) => JSON.stringify(l)).join('\n') + '\n');
  service = await startLocalServer({ dataFile: file });
}, 90_000);

afterAll(async () => service?.stop());

describe('compression on the local server (a real HTTP client)', () => {
  it('gzips a size=100 page for a caller that accepts gzip: at most 1/5 of the bytes, same JSON', async () => {
    const plain = await rawGet('?size=100', { 'Accept-Encoding': 'identity' });
    const zipped = await rawGet('?size=100', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(plain.status).toBe(200);
    expect(zipped.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(zipped.bytes[0]).toBe(0x1f); // the gzip magic number
    const inflated = JSON.parse(gunzipSync(zipped.bytes).toString('utf8')) as Envelope;
    const direct = JSON.parse(plain.bytes.toString('utf8')) as Envelope;
    expect(inflated.data).toEqual(direct.data);
    expect(inflated.data?.records).toHaveLength(Math.min(100, visible.length));
    expect(zipped.bytes.length).toBeLessThanOrEqual(plain.bytes.length / 5);
  });

  it('leaves a small body (an error) and a caller without gzip uncompressed', async () => {
    const small = await rawGet('?offsetDays=99', { 'Accept-Encoding': 'gzip' });
    expect(small.status).toBe(400);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect((JSON.parse(small.bytes.toString('utf8')) as Envelope).code).toBe('INVALID_PARAMETER');
    const none = await rawGet('?size=100', {});
    expect(none.headers['content-encoding']).toBeUndefined();
    expect((JSON.parse(none.bytes.toString('utf8')) as Envelope).code).toBe('OK');
  });
});

describe('GET /open/v1/empty-legs on the local server', () => {
  it('lists visible legs in order with total, page and size, and a UUID trace id in body and header', async () => {
    const { res, body } = await get('');
    expect(res.status).toBe(200);
    expect(body.code).toBe('OK');
    expect(body.message).toBe('success');
    expect(body.traceId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(res.headers.get('x-trace-id')).toBe(body.traceId);
    expect(body.data?.total).toBe(visible.length);
    expect(body.data?.page).toBe(1);
    expect(body.data?.size).toBe(20);
    expect(body.data?.records.map((r) => r.id)).toEqual(visible.slice(0, 20).map((l) => l.id));
  });

  it('returns each record as loaded: given fields kept, empty airport fields filled from its airport, other nulls kept, no internal attribute', async () => {
    const { body } = await get('?size=100');
    const first = body.data!.records[0]!;
    const source = visible[0]!;
    const { depTimezone: _tz, listed: _l, blocked: _b, ...publicFields } = source;
    // The loader fills the airport fields a record leaves empty (docs/import-format.md, "Airports and time zones").
    const reference = airportReference();
    const filled: Record<string, unknown> = { ...publicFields };
    for (const side of ['dep', 'arr'] as const) {
      const airport = reference.byCode(source[`${side}AirportIcao`]!)!;
      filled[`${side}AirportName`] = airport.name;
      filled[`${side}CountryCode`] = airport.countryCode;
      filled[`${side}CountryName`] = airport.countryName;
    }
    expect(first).toEqual(expect.objectContaining(filled));
    expect(first).not.toHaveProperty('depTimezone');
    expect(first).not.toHaveProperty('listed');
    expect([first.airlineName, first.registration, first.renovateYear]).toEqual([null, null, null]);
    expect(Object.keys(first)).toHaveLength(26);
  });

  it('pages through everything without repeating or skipping, and past the end gives an empty page', async () => {
    const ids: string[] = [];
    for (let page = 1; page <= Math.ceil(visible.length / 7); page++) {
      const { body } = await get(`?size=7&page=${page}`);
      ids.push(...body.data!.records.map((r) => r.id as string));
    }
    expect(ids).toEqual(visible.map((l) => l.id));
    const past = await get('?size=7&page=999');
    expect(past.res.status).toBe(200);
    expect(past.body.data).toEqual({ records: [], total: visible.length, page: 999, size: 7 });
  });

  it('clamps page and size', async () => {
    const { body } = await get('?page=0&size=1000');
    expect(body.data?.page).toBe(1);
    expect(body.data?.size).toBe(100);
  });

  it('filters by date window with offset', async () => {
    const { body } = await get(`?depDate=${day(10)}&offsetDays=2&size=100`);
    const expected = visible.filter((l) => l.startDate <= day(12) && l.endDate >= day(8)).map((l) => l.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(body.data?.records.map((r) => r.id)).toEqual(expected);
  });

  it('gives an empty page for a window wholly in the past, and matches a window that reaches today', async () => {
    const past = await get(`?depDate=${day(-5)}&offsetDays=2`);
    expect(past.body.data?.total).toBe(0);
    const reaching = await get(`?depDate=${day(-1)}&offsetDays=2&size=100`);
    const expected = visible.filter((l) => l.startDate <= day(1)).map((l) => l.id);
    expect(reaching.body.data?.records.map((r) => r.id)).toEqual(expected);
  });

  it('filters by city (case-insensitive contains) and airport code (ICAO or IATA)', async () => {
    const city = await get('?depCityName=new%20YOR&size=100');
    expect(city.body.data?.records.map((r) => r.id)).toEqual(visible.filter((l) => l.depCityName === 'New York').map((l) => l.id));
    const icao = await get('?depAirportCode=ktEB&size=100');
    const iata = await get('?depAirportCode=TEB&size=100');
    const expected = visible.filter((l) => l.depAirportIcao === 'KTEB').map((l) => l.id);
    expect(icao.body.data?.records.map((r) => r.id)).toEqual(expected);
    expect(iata.body.data?.records.map((r) => r.id)).toEqual(expected);
    expect(expected).not.toContain('no-airport');
    const arr = await get('?arrAirportCode=NCE&arrCityName=nic&size=100');
    expect(arr.body.data?.records.map((r) => r.id)).toEqual(visible.filter((l) => l.arrAirportIata === 'NCE').map((l) => l.id));
  });

  it('answers a filter that matches nothing with 200, no records and total 0', async () => {
    const { res, body } = await get('?depAirportCode=ZZZZ');
    expect(res.status).toBe(200);
    expect(body.data).toEqual({ records: [], total: 0, page: 1, size: 20 });
  });

  it.each([
    ['?size=abc', 'size'],
    ['?page=1.5', 'page'],
    ['?depDate=2026-02-30', 'depDate'],
    ['?offsetDays=3', 'offsetDays'],
    [`?depDate=${day(3)}&offsetDays=16`, 'offsetDays'],
    ['?depCityName=L', 'depCityName'],
    ['?arrAirportCode=ABCDE', 'arrAirportCode'],
  ])('%s is 400 INVALID_PARAMETER naming %s', async (query, parameter) => {
    const { res, body } = await get(query);
    expect(res.status).toBe(400);
    expect(body.code).toBe('INVALID_PARAMETER');
    expect(body.message).toContain(parameter);
    expect(body.data).toBeNull();
    expect(res.headers.get('x-trace-id')).toBe(body.traceId);
  });

  it('filters cities ignoring accents on either side, still case-insensitive contains', async () => {
    const plain = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
    const ids = (pick: (l: FixtureLeg) => string, needle: string) =>
      visible.filter((l) => plain(pick(l)).includes(plain(needle))).map((l) => l.id);
    for (const [param, needle, pick] of [
      ['depCityName', 'Sao Paulo', (l: FixtureLeg) => l.depCityName],
      ['depCityName', 'SÃO PAU', (l: FixtureLeg) => l.depCityName],
      ['depCityName', 'zurich', (l: FixtureLeg) => l.depCityName],
      ['arrCityName', 'Zürich', (l: FixtureLeg) => l.arrCityName],
    ] as const) {
      const expected = ids(pick, needle);
      expect(expected.length).toBeGreaterThan(0);
      const { body } = await get(`?${param}=${encodeURIComponent(needle)}&size=100`);
      expect(body.data?.records.map((r) => r.id)).toEqual(expected);
    }
    expect(ids((l) => l.depCityName, 'Sao Paulo')).toEqual(['accent-sao-paulo']);
    expect(ids((l) => l.arrCityName, 'Zürich')).toContain('accent-sao-paulo');
  });

  it('serves the contract at /open/v1/openapi.json without a key: the document of docs/openapi.yaml', async () => {
    const { res, body } = await callApi(`${service.baseUrl}/open/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(body).toEqual(parse(readFileSync(OPENAPI_FILE, 'utf8')));
  });

  it('answers a CORS preflight with 404 NOT_FOUND and no CORS header (server-to-server API)', async () => {
    const { res, body } = await callApi<Envelope>(`${service.baseUrl}/open/v1/empty-legs`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://example.com', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' },
    });
    expect(res.status).toBe(404);
    expect(body.code).toBe('NOT_FOUND');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers an unknown route with 404 NOT_FOUND in the envelope', async () => {
    const { res, body } = await callApi<Envelope>(`${service.baseUrl}/open/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(body).toMatchObject({ code: 'NOT_FOUND', data: null });
    expect(res.headers.get('x-trace-id')).toBe(body.traceId);
  });

  it('answers without a key with 401 API_KEY_MISSING in the envelope', async () => {
    const { res, body } = await get('', null);
    expect(res.status).toBe(401);
    expect(body).toMatchObject({ code: 'API_KEY_MISSING', data: null });
  });
});

describe('prices (the ECB rates of 2022-07-08 that npm start loads: USD 1.0163, GBP 0.84585 per euro)', () => {
  /** p USD in cents of the asked currency, half up, in integers: p / 1.0163 x rate (a decimal with `scale` digits). */
  const cents = (p: number, rate: bigint, scale: bigint) => {
    const num = BigInt(Math.round(p * 100)) * rate * 10_000n;
    const den = 10_163n * 10n ** scale;
    return Number((2n * num + den) / (2n * den)) / 100;
  };
  const eur = (p: number) => cents(p, 1n, 0n);

  it('converts every record with currency, keeping price and currency as given; leaves records alone without', async () => {
    const r = await get('?currency=EUR&size=100');
    expect(r.res.status).toBe(200);
    for (const rec of r.body.data!.records) {
      expect(rec.currency).toBe('USD');
      expect(rec.convertedPrice).toEqual({ amount: eur(rec.price as number), currency: 'EUR', rateDate: '2022-07-08' });
    }
    const plain = await get('?size=5');
    expect(plain.body.data!.records.every((rec) => !('convertedPrice' in rec))).toBe(true);
  });

  it('filters by maxPrice in the asked currency and sorts by -price, ties by date and id', async () => {
    const r = await get('?currency=EUR&maxPrice=5500&sort=-price&size=100');
    expect(r.res.status).toBe(200);
    const expected = visible
      .filter((l) => eur(l.price!) <= 5500)
      .sort((a, b) => eur(b.price!) - eur(a.price!) || (a.startDate === b.startDate ? (a.id < b.id ? -1 : 1) : a.startDate < b.startDate ? -1 : 1))
      .map((l) => l.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(r.body.data!.records.map((rec) => rec.id)).toEqual(expected);
    expect(r.body.data!.total).toBe(expected.length);
  });

  it('refuses an unknown currency, a bound or a price order without currency', async () => {
    for (const [query, parameter] of [['?currency=XAU', 'currency'], ['?maxPrice=100', 'maxPrice'], ['?sort=price', 'sort'], ['?currency=EUR&minPrice=2&maxPrice=1', 'minPrice']] as const) {
      const r = await get(query);
      expect(r.res.status).toBe(400);
      expect(r.body.code).toBe('INVALID_PARAMETER');
      expect(r.body.message).toContain(`'${parameter}'`);
    }
  });

  it('converts one leg by id', async () => {
    const r = await callApi<ApiEnvelope<Record<string, unknown>>>(`${service.baseUrl}/open/v1/empty-legs/leg-000?currency=GBP`, { headers: { 'X-API-Key': service.apiKey } });
    expect(r.res.status).toBe(200);
    expect(r.body.data!.convertedPrice).toEqual({ amount: cents(5000, 84_585n, 5n), currency: 'GBP', rateDate: '2022-07-08' });
  });
});
