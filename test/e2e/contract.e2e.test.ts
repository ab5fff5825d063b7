import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import turfDistance from '@turf/distance';
import { chromium, type Browser } from 'playwright-core';
import { airportReference } from '../../src/airports/reference.js';
import { ERROR_STATUS } from '../../src/errors.js';
import { callApi, loadOpenApi } from '../support/contract.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';

/**
 * The contract as integrators use it, against one `npm start` (demo data):
 * - the reference page `/docs` in a real browser (Debian's chromium, headless, driven by
 *   playwright-core): it shows the endpoint, its parameters and every error code, and loads nothing
 *   from outside the local server (every request the page makes is recorded; a request to another
 *   origin is refused and fails the test). A screenshot is kept as a CI artifact in .tmp/artifacts/.
 * - a typed client generated from docs/openapi.yaml the way README shows (openapi-typescript +
 *   openapi-fetch): type-checked with tsc (and a misuse of it must not type-check), then run
 *   against the server.
 * Without a browser, the browser test fails with one line saying what to install (README, first
 * screen); the typed client's tests do not need one and still run.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const NO_CHROMIUM =
  `no Chromium at ${CHROMIUM}: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH; ` +
  '.ci/run installs it when missing';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** An error jest shows as its message alone (no stack: the line says everything). */
function oneLine(message: string): Error {
  const error = new Error(message);
  error.stack = message;
  return error;
}
const ARTIFACTS = '.tmp/artifacts';
const SCREENSHOT = `${ARTIFACTS}/docs-page.png`;

let service: RunningService;

beforeAll(async () => {
  service = await startLocalServer();
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

describe('GET /docs (reference page) in headless Chromium', () => {
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!executable(CHROMIUM)) return;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('shows the endpoint, its parameters and the error codes, fetching nothing from outside', async () => {
    if (!browser) throw oneLine(NO_CHROMIUM);
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const local = new URL(service.baseUrl).host;
    const requested: string[] = [];
    const foreign: string[] = [];
    await page.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      requested.push(url.href);
      if (url.protocol === 'data:' || url.protocol === 'blob:' || url.host === local) await route.continue();
      else {
        foreign.push(url.href);
        await route.abort();
      }
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    const response = await page.goto(`${service.baseUrl}/docs`, { waitUntil: 'load', timeout: 60_000 });
    expect(response?.status()).toBe(200);
    // Redoc renders the operation's path once the document is parsed.
    await page.getByText('/open/v1/empty-legs').first().waitFor({ timeout: 60_000 });
    const text = await page.locator('body').innerText();

    const doc = loadOpenApi();
    expect(text).toContain('List empty legs');
    expect(text).toContain('/open/v1/empty-legs');
    expect(text).toContain('/open/v1/openapi.json');
    expect(text).toContain('One empty leg');
    expect(text).toContain('/open/v1/empty-legs/{id}');
    expect(text).toContain('Create a watch');
    expect(text).toContain('/open/v1/watches/{id}/deliveries');
    const parameters = Object.values(doc.components.parameters).map((p) => String(p.name));
    // The listing's 32 (with include and group), the leg id, If-None-Match, the ids of a watch, a delivery, a key and an enquiry, the enquiries' Idempotency-Key, role, status and cursor, and the webhooks' three headers.
    expect(parameters).toHaveLength(45);
    expect(parameters).toEqual(expect.arrayContaining(['depNear', 'depRadiusKm', 'arrNear', 'arrRadiusKm', 'minSeats', 'aircraftType']));
    for (const name of parameters) expect(text).toContain(name);
    for (const code of Object.keys(ERROR_STATUS)) expect(text).toContain(code);
    expect(text).toContain('X-API-Key');

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.getByRole('heading', { name: 'List empty legs' }).first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: SCREENSHOT, fullPage: false });

    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    expect(requested.some((u) => u.endsWith('/docs/redoc.standalone.js'))).toBe(true);
    await page.close();
  }, 120_000);
});

describe('a typed client generated from docs/openapi.yaml (openapi-typescript + openapi-fetch)', () => {
  const dir = '.tmp/typed-client';
  const bin = (name: string) => `node_modules/.bin/${name}`;

  beforeAll(() => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const generated = spawnSync(bin('openapi-typescript'), ['docs/openapi.yaml', '-o', `${dir}/schema.d.ts`], { encoding: 'utf8' });
    if (generated.status !== 0) throw new Error(`openapi-typescript failed:\n${generated.stderr}`);
    copyFileSync('examples/typed-client/client.ts', `${dir}/client.ts`);
    copyFileSync('examples/typed-client/tsconfig.json', `${dir}/tsconfig.json`);
    // A misuse the generated types must refuse: a misspelt parameter and a path the API does not have.
    writeFileSync(
      `${dir}/misuse.ts`,
      [
        "import { emptyLegsClient } from './client.js';",
        "const client = emptyLegsClient('http://127.0.0.1:1', 'elk_test_x');",
        "void client.GET('/open/v1/empty-legs', { params: { query: { sise: 3 } } });",
        // (with options: the paths with a path parameter make them required, and without them tsc
        // would report the missing argument rather than the path)
        "void client.GET('/open/v1/empty-leg', {});",
        '',
      ].join('\n'),
    );
  }, 60_000);

  it('type-checks the client against the generated types, and refuses a misuse', () => {
    const r = spawnSync(bin('tsc'), ['-p', dir, '--pretty', 'false'], { encoding: 'utf8' });
    const errors = r.stdout.split('\n').filter((l) => /error TS\d+/.test(l));
    expect(r.status).not.toBe(0);
    expect(errors.filter((l) => !l.startsWith(`${dir}/misuse.ts(`))).toEqual([]);
    expect(errors.some((l) => l.includes('sise'))).toBe(true);
    expect(errors.some((l) => l.includes('/open/v1/empty-leg"') || l.includes("'/open/v1/empty-leg'"))).toBe(true);
  }, 120_000);

  it('calls the running server and gets what the API answers', async () => {
    const r = spawnSync(bin('tsx'), [`${dir}/client.ts`], {
      encoding: 'utf8',
      env: { ...process.env, EMPTY_LEGS_URL: service.baseUrl, EMPTY_LEGS_KEY: service.apiKey },
      timeout: 60_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as {
      page: { total: number; ids: string[]; cities: string[] };
      invalid: { error: string; status: number };
      near: { total: number; ids: string[] };
      trip: { total: number; ids: string[]; extraKm: number[] };
      openapi: string | null;
      leg: { id: string; etag: string };
      again: { unchanged: boolean; etag: string };
      missing: { gone: boolean };
      provenance: { source: string; kind: string; confirmedAt: string | null; latestUtc: string | null };
      watch: { id: string; group: string; filters: Record<string, unknown>; verified: string; test: string; retry: string; rotated: boolean; updated: [string, string]; deleted: boolean };
      enquiry: unknown;
      mirror: { size: number; applied: number; again: number };
      self: { id: string; state: string };
      keys: { error: string; status: number };
      sources: [string, string, number][];
    };
    const direct = await callApi<{ data: { total: number; records: { id: string }[] } }>(
      `${service.baseUrl}/open/v1/empty-legs?size=3&depCityName=sao%20paulo`,
      { headers: { 'X-API-Key': service.apiKey } },
    );
    expect(out.page.total).toBe(direct.body.data.total);
    expect(out.page.total).toBeGreaterThan(0);
    expect(out.page.ids).toEqual(direct.body.data.records.map((l) => l.id));
    expect(new Set(out.page.cities)).toEqual(new Set(['São Paulo']));
    expect(out.invalid).toMatchObject({ error: 'INVALID_PARAMETER', status: 400 });
    // The nearby, seat and category filters through the generated client: what the API answers directly.
    const near = await callApi<{ data: { total: number; records: { id: string }[] } }>(
      `${service.baseUrl}/open/v1/empty-legs?size=100&depNear=EGLL&depRadiusKm=60&minSeats=8&aircraftType=${encodeURIComponent('Midsize Jet,Super Midsize Jet,Heavy Jet,Ultra Long Range')}`,
      { headers: { 'X-API-Key': service.apiKey } },
    );
    expect(out.near).toEqual({ total: near.body.data.total, ids: near.body.data.records.map((l) => l.id) });
    expect(out.near.total).toBeGreaterThan(0);
    // A trip search through the generated client: the API's answer, least detour first.
    type TripPage = { data: { total: number; records: { id: string; startDate: string; depCountryCode: string | null; detour: { extraKm: number; percent: number } }[] } };
    const trip = await callApi<TripPage>(`${service.baseUrl}/open/v1/empty-legs?tripFrom=LFPB&tripTo=LIRA&maxDetourPct=10&sort=detour&size=5`, {
      headers: { 'X-API-Key': service.apiKey },
    });
    expect(out.trip).toEqual({ total: trip.body.data.total, ids: trip.body.data.records.map((l) => l.id), extraKm: trip.body.data.records.map((l) => l.detour.extraKm) });
    expect(out.trip.total).toBeGreaterThan(0);
    expect(out.trip.extraKm).toEqual([...out.trip.extraKm].sort((a, b) => a - b));
    for (const r of trip.body.data.records) expect(r.detour.percent).toBeLessThanOrEqual(10);
    // With a date, and with a country: AND with the trip.
    const first = trip.body.data.records[0]!;
    const dated = await callApi<TripPage>(`${service.baseUrl}/open/v1/empty-legs?tripFrom=LFPB&tripTo=LIRA&maxDetourPct=10&depDate=${first.startDate}`, {
      headers: { 'X-API-Key': service.apiKey },
    });
    expect(dated.body.data.records.map((l) => l.id)).toContain(first.id);
    expect(dated.body.data.records.every((l) => l.detour.percent <= 10)).toBe(true);
    const country = first.depCountryCode!;
    const area = await callApi<TripPage>(`${service.baseUrl}/open/v1/empty-legs?size=100&depCountryCode=${country.toLowerCase()}`, { headers: { 'X-API-Key': service.apiKey } });
    expect(area.body.data.total).toBeGreaterThan(0);
    expect(area.body.data.records.every((l) => l.depCountryCode === country && !('detour' in l))).toBe(true);
    for (const bad of ['tripFrom=LFPB', 'depCountryCode=ZZ', 'arrContinent=EUR', 'sort=detour']) {
      const refused = await callApi<{ code: string; message: string }>(`${service.baseUrl}/open/v1/empty-legs?${bad}`, { headers: { 'X-API-Key': service.apiKey } });
      expect([refused.res.status, refused.body.code]).toEqual([400, 'INVALID_PARAMETER']);
      expect(refused.body.message).toContain(`'${bad.split('=')[0]!}'`);
    }
    expect(out.openapi).toBe(loadOpenApi().openapi);
    // The sources through the generated client: what the API answers directly.
    const sources = await callApi<{ data: { records: { id: string; kind: string; legsListed: number }[] } }>(`${service.baseUrl}/open/v1/sources`, { headers: { 'X-API-Key': service.apiKey } });
    expect(out.sources).toEqual(sources.body.data.records.map((s) => [s.id, s.kind, s.legsListed]));
    expect(out.sources.length).toBeGreaterThan(0);
    // The key helpers: the start key reads itself, and lacks api_key:read to list the client's keys.
    expect(out.self).toEqual({ id: expect.stringMatching(/^key_[0-9A-Za-z]{20}$/), state: 'active' });
    expect(out.keys).toMatchObject({ error: 'PERMISSION_DENIED', status: 403 });
    // The first leg by id, then polled with its ETag: unchanged (304); an unknown id: gone (404).
    expect(out.leg.id).toBe(out.page.ids[0]);
    expect(out.leg.etag).toMatch(/^W\/"/);
    expect(out.again).toEqual({ unchanged: true, etag: out.leg.etag });
    expect(out.missing).toEqual({ gone: true });
    // include=provenance,departure through the generated client: the blocks the API answers directly.
    const withBlocks = await callApi<{ data: { provenance: { source: string; kind: string; confirmedAt: string | null }; departure: { latestUtc: string | null } } }>(
      `${service.baseUrl}/open/v1/empty-legs/${out.leg.id}?include=provenance,departure`,
      { headers: { 'X-API-Key': service.apiKey } },
    );
    const { provenance: p, departure: d } = withBlocks.body.data;
    expect(out.provenance).toEqual({ source: p.source, kind: p.kind, confirmedAt: p.confirmedAt, latestUtc: d.latestUtc });
    // The enquiry helpers: asked, replayed with its key (the same enquiry), listed, withdrawn.
    expect(out.enquiry).toEqual({ legId: out.leg.id, status: 'open', replayed: [false, true], sameEnquiry: true, listed: true, withdrawn: 'withdrawn' });
    // A watch made, a delivery verified with the client's helper, the owner's operations, the watch deleted.
    expect(out.watch).toEqual({
      id: expect.stringMatching(/^wat_/),
      group: 'flight',
      filters: { depAirportCode: 'LFPB', minSeats: 4, currency: 'GBP', maxPrice: 15000, pricedOnly: true },
      verified: 'empty_leg.listed',
      test: 'refused',
      retry: 'NOT_FOUND',
      rotated: true,
      updated: ['disabled', 'off for now'],
      deleted: true,
    });
    // The change feed followed from no cursor: a mirror of the whole unfiltered listing, then nothing new.
    const all = await callApi<{ data: { total: number } }>(`${service.baseUrl}/open/v1/empty-legs?size=1`, { headers: { 'X-API-Key': service.apiKey } });
    // (Changes the consumer was still applying from the demo load may come after the initial listing, and
    // a leg that expired meanwhile may stay in a mirror: at least the listing, every change applied once or more.)
    expect(out.mirror.size).toBeGreaterThanOrEqual(all.body.data.total);
    expect(out.mirror.applied).toBeGreaterThanOrEqual(out.mirror.size);
  }, 120_000);
});

describe("README's nearby search, run as printed against npm start's demo data", () => {
  /** The curl examples of README.md that use depNear, their URLs and what README prints below them. */
  const readme = readFileSync('README.md', 'utf8');
  const examples = [...readme.matchAll(/curl -s -H "X-API-Key: elk_test_\.\.\." "(http:\/\/localhost:3000\/open\/v1\/empty-legs\?depNear=[^"]+)"\n(?:```\n)?([^\n]*)/g)].map(
    (m) => ({ url: new URL(m[1]!), printed: m[2]! }),
  );
  const ask = <T>(url: URL) => {
    const target = new URL(`${url.pathname}${url.search}`, service.baseUrl);
    return callApi<T>(target, { headers: { 'x-api-key': service.apiKey } });
  };
  interface Page {
    data: { total: number; records: { depAirportIcao: string | null; depAirportIata: string | null; depCityName: string }[] };
  }

  it('README shows a nearby search and a refused centre', () => {
    expect(examples.map((e) => e.url.searchParams.get('depNear'))).toEqual(['EGLL', 'EGLX']);
  });

  it('lists legs from every airport within the radius, more than the city filter finds', async () => {
    const { url } = examples[0]!;
    const { res, body } = await ask<Page>(url);
    expect(res.status).toBe(200);
    const radius = Number(url.searchParams.get('depRadiusKm'));
    const reference = airportReference();
    const centre = reference.byCode(url.searchParams.get('depNear')!)!;
    const airports = new Set<string>();
    for (const r of body.data.records) {
      const at = reference.byCode((r.depAirportIcao ?? r.depAirportIata)!)!;
      expect(turfDistance([centre.longitude, centre.latitude], [at.longitude, at.latitude], { units: 'kilometers' })).toBeLessThanOrEqual(radius);
      airports.add(at.icao!);
    }
    // README names the airports the demo's legs leave from.
    for (const icao of airports) expect(readme).toContain(`(${icao})`);
    expect(airports.size).toBeGreaterThanOrEqual(2);
    const byCity = await ask<Page>(new URL('http://localhost:3000/open/v1/empty-legs?depCityName=London&size=100'));
    expect(byCity.body.data.total).toBeLessThan(body.data.total);
  });

  it('refuses a code no airport has with the message README prints', async () => {
    const { url, printed } = examples[1]!;
    const { res, body } = await ask<{ code: string; message: string }>(url);
    expect(res.status).toBe(400);
    const shown = JSON.parse(printed) as { code: string; message: string };
    expect({ code: body.code, message: body.message }).toEqual({ code: shown.code, message: shown.message });
  });
});
