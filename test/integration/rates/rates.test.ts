// @dateIndependent: the rates' dates are the file's own; the fetch and the age it reports read the tests' clock, the same the test compares with
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runScript } from '../../support/commands.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { createRatesStore, RATES_ID } from '../../../src/rates/store.js';
import { createFetchRatesHandler } from '../../../src/rates/fetch-handler.js';
import { RATES_METRICS } from '../../../src/metrics.js';
import { logger } from '../../../src/logger.js';

/** rates:load (a child process) and the scheduled fetch, against a local HTTP server, on DynamoDB Local. */
const DAILY = readFileSync(new URL('../../../src/rates/data/eurofxref-daily-2022-07-08.xml', import.meta.url), 'utf8');
const dated = (date: string) => DAILY.replace("time='2022-07-08'", `time='${date}'`);
const dir = mkdtempSync(join(tmpdir(), 'rates-'));
const fileOf = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

let t: TestTables;
let server: Server;
let base: string;
/** What the local server answers at each path. */
const answers: Record<string, (res: ServerResponse) => void> = {
  '/good': (res) => res.writeHead(200, { 'content-type': 'text/xml' }).end(dated('2022-07-11')),
  '/malformed': (res) => res.writeHead(200, { 'content-type': 'text/xml' }).end(DAILY.replace("rate='1.0163'", "rate='n/a'")),
  '/error': (res) => res.writeHead(503).end('Service Unavailable'),
  // Headers at once, then a body that never ends.
  '/slow': (res) => {
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.write(DAILY.slice(0, 200));
  },
  '/huge': (res) => res.writeHead(200).end('<'.repeat(300 * 1024)),
  '/moved': (res) => res.writeHead(302, { location: `${base}/good` }).end(),
  '/future': (res) => res.writeHead(200, { 'content-type': 'text/xml' }).end(dated('2022-07-18')),
};
/** The paths the local server was asked for. */
const asked: string[] = [];

jest.setTimeout(60_000);

beforeAll(async () => {
  t = await createTestTables();
  server = createServer((req, res) => {
    asked.push(req.url ?? '');
    const answer = answers[req.url ?? ''];
    if (answer) answer(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
  await t.drop();
});

const inForce = async () => (await t.client.send(new GetCommand({ TableName: t.legsTableName, Key: { id: RATES_ID } }))).Item;
const load = (file: string) =>
  runScript('rates:load', [file], { AWS_REGION: 'us-east-1', DYNAMODB_ENDPOINT: t.endpoint, LEGS_TABLE_NAME: t.legsTableName, KEYS_TABLE_NAME: t.keysTableName });

describe('npm run rates:load', () => {
  it('loads a daily file, then refuses a malformed file and an older one, leaving the rates in force', async () => {
    const ok = await load(fileOf('daily.xml', DAILY));
    expect(ok.stdout).toContain('2022-07-08: 31 currencies');
    expect(ok.code).toBe(0);
    const before = await inForce();
    expect(before).toMatchObject({ rateDate: '2022-07-08', rates: { USD: '1.0163', GBP: '0.84585' } });

    const malformed = await load(fileOf('bad.xml', DAILY.replace("currency='GBP'", "currency='GB'")));
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toMatch(/not an ECB rates file: line \d+: currency 'GB' is not an ISO 4217 code/);

    const older = await load(fileOf('older.xml', dated('2022-07-07')));
    expect(older.code).toBe(1);
    expect(older.stderr).toContain('rates of 2022-07-07 are older than the rates in force (2022-07-08)');
    expect(await inForce()).toEqual(before);
  });

  it('refuses a file dated after tomorrow (UTC, by the clock): exit 1, nothing written', async () => {
    const before = await inForce();
    const future = await runScript('rates:load', [fileOf('future.xml', dated('2022-07-14'))], {
      AWS_REGION: 'us-east-1',
      DYNAMODB_ENDPOINT: t.endpoint,
      LEGS_TABLE_NAME: t.legsTableName,
      KEYS_TABLE_NAME: t.keysTableName,
      CLOCK_AT: '2022-07-12T23:30:00Z',
      CLOCK_AT_ANCHOR: undefined,
    });
    expect(future.code).toBe(1);
    expect(future.stderr).toContain("the file's rates are dated 2022-07-14, after tomorrow (2022-07-13, UTC)");
    expect(await inForce()).toEqual(before);
  });
});

describe('the scheduled fetch against a local server', () => {
  const lines: string[] = [];
  const run = (path: string, now = Date.parse('2022-07-12T16:00:00Z')) =>
    createFetchRatesHandler({ client: t.client, legsTableName: t.legsTableName, stage: 'test', url: `${base}${path}`, timeoutMs: 500, now: () => now, emit: (l) => lines.push(l) })();
  const ageOf = (line: string) => (JSON.parse(line) as Record<string, number>)[RATES_METRICS.ageDays];

  it('loads a good answer, and keeps the rates in force after a malformed, failing, slow or oversized one', async () => {
    await createRatesStore(t.client, t.legsTableName).replace({ date: '2022-07-08', rates: { USD: '1' } }, 0);
    expect(await run('/good')).toEqual({ loaded: true, inForce: '2022-07-11', ageDays: 1 });
    const good = await inForce();
    expect(good).toMatchObject({ rateDate: '2022-07-11', rates: { USD: '1.0163' } });

    const refused = await Promise.all(['/malformed', '/error', '/slow', '/huge', '/missing'].map((path) => run(path, Date.parse('2022-07-16T16:00:00Z'))));
    expect(refused.map((r) => r.loaded)).toEqual([false, false, false, false, false]);
    expect(refused[0]!.error).toMatch(/the rate of USD must be a positive decimal/);
    expect(refused[1]!.error).toMatch(/HTTP 503/);
    expect(refused[2]!.error).toMatch(/did not answer in time/);
    expect(refused[3]!.error).toMatch(/larger than/);
    expect(refused.every((r) => r.inForce === '2022-07-11' && r.ageDays === 5)).toBe(true);
    expect(await inForce()).toEqual(good);
    // Every run says the age of the rates in force: the alarm's metric (over 4: alarm).
    expect(lines.map(ageOf)).toEqual([1, 5, 5, 5, 5, 5]);
  });

  it('follows no redirect and refuses a file dated after tomorrow: each a failure, logged, nothing written', async () => {
    const before = await inForce();
    const logged = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    asked.length = 0;
    const moved = await run('/moved', Date.parse('2022-07-16T16:00:00Z'));
    const future = await run('/future', Date.parse('2022-07-16T16:00:00Z'));
    expect(asked).toEqual(['/moved', '/future']);
    expect(moved).toEqual({ loaded: false, error: `the address answered HTTP 302, a redirect to "${base}/good", not followed`, inForce: '2022-07-11', ageDays: 5 });
    expect(future).toMatchObject({ loaded: false, error: expect.stringContaining('dated 2022-07-18, after tomorrow (2022-07-17, UTC)') as unknown, inForce: '2022-07-11' });
    expect(logged.mock.calls.map(([message]) => message)).toEqual([expect.stringContaining('were not fetched'), expect.stringContaining('were not fetched')]);
    expect(await inForce()).toEqual(before);
    logged.mockRestore();
  });
});
