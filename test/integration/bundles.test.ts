// @dateIndependent: the bundle's process reads the tests' clock (clockEnv); its legs start 4 days or more from today.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { build } from 'esbuild';
import { copyBundledFiles, entryPath, esbuildOptions } from '../../lib/bundling.js';
import type { FunctionName } from '../../src/function-table.js';
import { verifiedContext } from '../../src/auth/verdict.js';
import { createKey } from '../../src/api-keys/store.js';
import { writeLegs } from '../../src/loading/loader.js';
import { addDays } from '../../src/kernel/dates.js';
import { createTestTables, type TestTables } from '../support/dynamodb.js';
import { storedLeg } from '../support/legs.js';
import { TEST_KEY, lambdaContext, listEvent } from '../support/events.js';
import { clockEnv, testToday } from '../support/clock.js';

/**
 * What the stack deploys, run: each function bundled with the stack's exact esbuild settings
 * (lib/bundling.ts, including the credentials alias), imported by a plain `node` process with only
 * Lambda-style environment variables, and invoked against DynamoDB Local.
 */
let t: TestTables;
let dir: string;
const today = testToday();

/** The function's bundle and, unless `withFiles` is false, the files the stack copies beside it. */
async function bundle(name: FunctionName, withFiles = true): Promise<string> {
  const out = join(dir, withFiles ? name : `${name}-alone`);
  const options = esbuildOptions(entryPath(name), out);
  await build({ ...options, logLevel: 'silent' });
  if (withFiles) copyBundledFiles(name, out);
  return options.outfile;
}

function invoke(bundleFile: string, event: unknown): unknown {
  const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(bundleFile).href)});
const started = Date.now();
const context = { ...JSON.parse(process.env.CONTEXT), getRemainingTimeInMillis: () => 10000 - (Date.now() - started) };
const result = await handler(JSON.parse(process.env.EVENT), context);
process.stdout.write(JSON.stringify(result));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH,
      // What Lambda gives a function: credentials in the environment, a region, our settings.
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SESSION_TOKEN: 'local',
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      DYNAMODB_ENDPOINT: t.endpoint,
      LEGS_TABLE_NAME: t.legsTableName,
      KEYS_TABLE_NAME: t.keysTableName,
      STAGE: 'sandbox',
      ...clockEnv(),
      EVENT: JSON.stringify(event),
      CONTEXT: JSON.stringify({ awsRequestId: lambdaContext().awsRequestId }),
    },
    encoding: 'utf8',
  });
  // The result is written last, after anything the function wrote to stdout (an EMF metric line).
  return JSON.parse(out.slice(out.lastIndexOf('\n') + 1)) as unknown;
}

beforeAll(async () => {
  t = await createTestTables();
  dir = mkdtempSync(join(tmpdir(), 'empty-legs-bundles-'));
}, 60_000);
afterAll(async () => t.drop());

describe('bundled functions', () => {
  it('the list function answers from DynamoDB with Lambda-style credentials', async () => {
    const leg = storedLeg({
      id: 'bundled-1',
      startDate: addDays(today, 5),
      endDate: addDays(today, 6),
      depCityName: 'Geneva',
      depAirportIcao: 'LSGG',
      depAirportIata: 'GVA',
      arrCityName: 'Olbia',
      arrAirportIata: 'OLB',
      depTimezone: 'Europe/Zurich',
    });
    await writeLegs(t.client, t.legsTableName, [leg]);
    const file = await bundle('listEmptyLegs');
    const result = invoke(file, listEvent({ depAirportCode: 'GVA' }, verifiedContext(TEST_KEY))) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(200);
    const body = JSON.parse(result.body) as { data: { total: number; records: { id: string; arrAirportIata: string }[] } };
    expect(body.data.total).toBe(1);
    expect(body.data.records[0]).toMatchObject({ id: 'bundled-1', arrAirportIata: 'OLB' });
  }, 60_000);

  it('the list function reads the airport reference from beside its bundle, on the first nearby search only', async () => {
    const file = await bundle('listEmptyLegs');
    const ask = (f: string, params: Record<string, string>) => {
      const r = invoke(f, listEvent(params, verifiedContext(TEST_KEY))) as { statusCode: number; body: string };
      return { status: r.statusCode, ...(JSON.parse(r.body) as { code: string; data: { total: number } | null }) };
    };
    // The leg of the test above departs from Geneva (LSGG); Annecy (LFLP) is 36 km away, Nice (LFMN) 300.
    expect(ask(file, { depNear: 'LFLP', depRadiusKm: '50' })).toMatchObject({ status: 200, data: { total: 1 } });
    expect(ask(file, { depNear: 'NCE', depRadiusKm: '50' })).toMatchObject({ status: 200, data: { total: 0 } });
    expect(ask(file, { depNear: 'ZZZZ' })).toMatchObject({ status: 400, code: 'INVALID_PARAMETER' });
    // Without the file beside it, a listing without a nearby search still works; a nearby search cannot.
    const alone = await bundle('listEmptyLegs', false);
    expect(ask(alone, { depAirportCode: 'GVA' })).toMatchObject({ status: 200, data: { total: 1 } });
    expect(ask(alone, { depNear: 'LFLP' })).toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
  }, 60_000);

  it('the authorizer verifies a real key from the keys table', async () => {
    const created = await createKey(t.client, t.keysTableName, { environment: 'test', scopes: ['empty_leg:read'] });
    const file = await bundle('authorizer');
    const event = {
      version: '2.0',
      type: 'REQUEST',
      routeArn: 'arn:aws:execute-api:us-east-1:123456789012:api/$default/GET/open/v1/empty-legs',
      identitySource: [],
      routeKey: 'GET /open/v1/empty-legs',
      rawPath: '/open/v1/empty-legs',
      rawQueryString: '',
      headers: { 'x-api-key': created.key },
      requestContext: listEvent(undefined, null).requestContext,
    };
    const result = invoke(file, event) as { isAuthorized: boolean; context: Record<string, unknown> };
    expect(result.isAuthorized).toBe(true);
    expect(result.context).toMatchObject({ verdict: 'ok', keyId: created.record.keyId, environment: 'test' });
  }, 60_000);

  it('the snapshot build builds the listing snapshot from the index, then builds nothing while none is due', async () => {
    const legs = [1, 2, 3].map((n) => storedLeg({ id: `bundled-snap-${n}`, startDate: addDays(today, 3 + n), endDate: addDays(today, 4 + n) }));
    await writeLegs(t.client, t.legsTableName, legs);
    const file = await bundle('buildSnapshot');
    const first = invoke(file, {}) as { published: boolean; entries: number };
    expect(first).toMatchObject({ published: true });
    // Every listed leg of the table is in it (other tests of this file wrote one more).
    expect(first.entries).toBeGreaterThanOrEqual(legs.length);
    const manifest = await t.client.send(new GetCommand({ TableName: t.legsTableName, Key: { id: '~snapshot' }, ConsistentRead: true }));
    expect(manifest.Item).toMatchObject({ lq: expect.any(Number) });
    // Run again a moment later: no build is due (not 15 minutes old, no change since).
    expect(invoke(file, {})).toMatchObject({ due: false, published: false, partsWritten: 0 });
  }, 60_000);
});
