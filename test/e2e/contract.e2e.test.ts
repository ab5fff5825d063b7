import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
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
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = '.tmp/artifacts';
const SCREENSHOT = `${ARTIFACTS}/docs-page.png`;

let service: RunningService;
let browser: Browser;

beforeAll(async () => {
  service = await startLocalServer();
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
  await service?.stop();
});

describe('GET /docs (reference page) in headless Chromium', () => {
  it('shows the endpoint, its parameters and the error codes, fetching nothing from outside', async () => {
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
    const parameters = Object.keys(doc.components.parameters);
    expect(parameters).toHaveLength(10);
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
        "void client.GET('/open/v1/empty-leg');",
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
      openapi: string | null;
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
    expect(out.openapi).toBe(loadOpenApi().openapi);
  }, 120_000);
});
