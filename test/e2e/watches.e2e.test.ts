import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { paginateScan, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { addDays } from '../../src/kernel/dates.js';
import { runScript } from '../support/commands.js';
import { callApi } from '../support/contract.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';
import { startReceiver, verifiesWith, type Receiver } from '../support/webhook-receiver.js';
import { testNow, testToday } from '../support/clock.js';
import { HANG_BOUND_MS, reportNotJudged } from '../support/not-judged.js';
import { parseImportText } from '../../src/loading/import/index.js';
import { writeLegs } from '../../src/loading/loader.js';

/**
 * Watches end to end over loopback (docs/watches.md): `npm start` with its local queue and short
 * retry schedule, legs loaded with `npm run legs:load`, a real HTTP receiver on 127.0.0.1 that
 * verifies every signature with the standardwebhooks verifier.
 */
jest.setTimeout(120_000);

let service: RunningService;
let receiver: Receiver;
const dir = mkdtempSync(join(tmpdir(), 'watches-e2e-'));
const today = testToday();

interface CreatedWatch {
  id: string;
  secret: string;
}

async function createWatch(name: string, filters: Record<string, string | number>): Promise<CreatedWatch> {
  const { res, body } = await callApi<{ data: CreatedWatch }>(`${service.baseUrl}/open/v1/watches`, {
    method: 'POST',
    headers: { 'x-api-key': service.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url(name), filters, description: name }),
  });
  expect(res.status).toBe(201);
  receiver.secrets.set(name, body.data.secret);
  return body.data;
}

let fileCount = 0;
async function loadLegs(legs: Record<string, unknown>[]): Promise<void> {
  const file = join(dir, `legs-${fileCount++}.json`);
  writeFileSync(file, JSON.stringify(legs));
  const run = await runScript('legs:load', [file], { DYNAMODB_ENDPOINT: service.dynamodbEndpoint, LEGS_TABLE_NAME: service.legsTableName });
  expect(run.code).toBe(0);
}

const leg = (id: string, dep: string, over: Record<string, unknown> = {}) => ({
  id,
  startDate: addDays(today, 3),
  endDate: addDays(today, 4),
  depCityName: 'Somewhere',
  depAirportIcao: dep,
  arrCityName: 'Elsewhere',
  arrAirportIcao: 'LFMN',
  listed: true,
  blocked: false,
  // The zone of the London airports the legs leave from: the import refuses another.
  depTimezone: 'Europe/London',
  amenities: [],
  ...over,
});

beforeAll(async () => {
  receiver = await startReceiver();
  service = await startLocalServer({ fewLegs: true });
  // The local changes adapter reads the legs from the first watch on (its baseline): let it.
  await createWatch('first', { depAirportCode: 'ZZZZ' });
  await new Promise((r) => setTimeout(r, 1_500));
});
afterAll(async () => {
  await service?.stop();
  await receiver?.close();
});

describe('watches over loopback', () => {
  it('a matching leg arrives signed; a non-matching one never does', async () => {
    const watch = await createWatch('match', { depAirportCode: 'EGGW', minSeats: 4 });
    const loaded = performance.now();
    await loadLegs([leg('W-MATCH', 'EGGW', { seatNum: 8 }), leg('W-SEATS', 'EGGW', { seatNum: 2 }), leg('W-ELSE', 'EGKB', { seatNum: 8 })]);
    const got = await receiver.waitFor((r) => r.body.data.id === 'W-MATCH', HANG_BOUND_MS);
    expect(got).toBeDefined();
    reportNotJudged('a matching leg at its receiver after the load', got!.at - loaded);
    expect(got!.verified).toBe(true);
    expect(got!.body).toMatchObject({ type: 'empty_leg.listed', data: { watchId: watch.id, id: 'W-MATCH', leg: { id: 'W-MATCH', seatNum: 8 } } });
    // Two more polls of the changes and of the queue: nothing else comes.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(receiver.received.filter((r) => r.path === '/match').map((r) => r.body.data.id)).toEqual(['W-MATCH']);

    // Withdrawn: the leg leaves the watch's results.
    await loadLegs([leg('W-MATCH', 'EGGW', { seatNum: 8, listed: false })]);
    const withdrawn = await receiver.waitFor((r) => r.body.type === 'empty_leg.withdrawn' && r.body.data.id === 'W-MATCH', HANG_BOUND_MS);
    expect(withdrawn?.body.data.leg).toBeNull();
    expect(withdrawn?.verified).toBe(true);

    const deliveries = await callApi<{ data: { records: { status: string; type: string; attempts: number; responseCode: number }[] } }>(
      `${service.baseUrl}/open/v1/watches/${watch.id}/deliveries`,
      { headers: { 'x-api-key': service.apiKey } },
    );
    expect(deliveries.body.data.records.map((d) => [d.type, d.status, d.attempts, d.responseCode]).sort()).toEqual([
      ['empty_leg.listed', 'delivered', 1, 204],
      ['empty_leg.withdrawn', 'delivered', 1, 204],
    ]);
  });

  it("a watch with include gets in its events' leg the blocks the listing gives the same leg (times and source from the import)", async () => {
    const { res, body } = await callApi<{ data: CreatedWatch & { include?: string } }>(`${service.baseUrl}/open/v1/watches`, {
      method: 'POST',
      headers: { 'x-api-key': service.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url('include'), filters: { depAirportCode: 'EGMC' }, include: 'provenance,departure' }),
    });
    expect([res.status, body.data.include]).toEqual([201, 'provenance,departure']);
    receiver.secrets.set('include', body.data.secret);
    await loadLegs([leg('W-INC', 'EGMC', { source: 'inc-air', depTimeFrom: '07:45', depTimeTo: '21:30' })]);
    const got = await receiver.waitFor((r) => r.path === '/include' && r.body.data.id === 'W-INC', HANG_BOUND_MS);
    expect([got?.verified, got?.body.type]).toEqual([true, 'empty_leg.listed']);
    const byId = await callApi<{ data: Record<string, unknown> & { provenance: Record<string, unknown> } }>(`${service.baseUrl}/open/v1/empty-legs/W-INC?include=provenance,departure`, {
      headers: { 'x-api-key': service.apiKey },
    });
    // The source's last load is the registry's when each read it (each container keeps it up to 30 s): the rest is the same text.
    const delivered = got!.body.data.leg as unknown as { provenance: Record<string, unknown> };
    const withoutLoad = (r: { provenance: Record<string, unknown> }) => JSON.stringify({ ...r, provenance: { ...r.provenance, sourceLoadedAt: null } });
    expect(withoutLoad(delivered)).toBe(withoutLoad(byId.body.data));
    expect(byId.body.data).toMatchObject({
      provenance: { source: 'inc-air', sourceName: 'inc-air', kind: 'unknown', verified: false },
      departure: { earliestLocal: `${addDays(today, 3)}T07:45`, latestLocal: `${addDays(today, 4)}T21:30` },
    });
    expect(Object.keys(delivered).slice(-2)).toEqual(['provenance', 'departure']);
  });

  it('a receiver that fails twice gets a third attempt with the same webhook-id', async () => {
    await createWatch('flaky', { depAirportCode: 'EGLF' });
    receiver.respond = (path, attempt) => (path === '/flaky' && attempt <= 2 ? 503 : 204);
    await loadLegs([leg('W-FLAKY', 'EGLF')]);
    await receiver.waitFor((r) => r.path === '/flaky' && receiver.received.filter((x) => x.path === '/flaky').length >= 3, HANG_BOUND_MS);
    const attempts = receiver.received.filter((r) => r.path === '/flaky');
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    expect(new Set(attempts.map((a) => a.webhookId)).size).toBe(1);
    expect(attempts.every((a) => a.verified)).toBe(true);
    receiver.respond = () => 204;
  });

  it('a deleted watch gets nothing more, its pending retries included', async () => {
    const watch = await createWatch('deleted', { depAirportCode: 'EGKB' });
    receiver.respond = (path) => (path === '/deleted' ? 500 : 204);
    await loadLegs([leg('W-DEL-1', 'EGKB')]);
    expect(await receiver.waitFor((r) => r.path === '/deleted', HANG_BOUND_MS)).toBeDefined();
    const del = await callApi(`${service.baseUrl}/open/v1/watches/${watch.id}`, { method: 'DELETE', headers: { 'x-api-key': service.apiKey } });
    expect(del.res.status).toBe(200);
    const seen = receiver.received.filter((r) => r.path === '/deleted').length;
    await loadLegs([leg('W-DEL-2', 'EGKB')]);
    // Past the first two retries of the local schedule (1 s, 2 s) and a poll of the changes.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(receiver.received.filter((r) => r.path === '/deleted')).toHaveLength(seen);
    const gone = await callApi(`${service.baseUrl}/open/v1/watches/${watch.id}`, { headers: { 'x-api-key': service.apiKey } });
    expect(gone.res.status).toBe(404);
    receiver.respond = () => 204;
  });

  it('refuses a private or non-loopback target at creation, and a body that is not a watch', async () => {
    const post = (body: string, type = 'application/json') =>
      callApi<{ code: string; message: string }>(`${service.baseUrl}/open/v1/watches`, {
        method: 'POST',
        headers: { 'x-api-key': service.apiKey, 'content-type': type },
        body,
      });
    for (const url of ['http://127.0.0.2:9/x', 'http://0.0.0.0:9/x', 'https://169.254.169.254/latest', 'http://10.0.0.1/x']) {
      const r = await post(JSON.stringify({ url }));
      expect([r.res.status, r.body.code]).toEqual([400, 'INVALID_PARAMETER']);
      expect(r.body.message).toMatch(/^Invalid parameter 'url'/);
    }
    // Stored and read back as the URL parser serializes it: the backslash is a path, not credentials.
    const typed = await post(JSON.stringify({ url: 'http://127.0.0.1\\@10.0.0.1/', filters: { depAirportCode: 'ZZZZ' } }));
    expect(typed.res.status).toBe(201);
    const stored = (typed.body as unknown as { data: { id: string; url: string } }).data;
    expect(stored.url).toBe('http://127.0.0.1/@10.0.0.1/');
    const read = await callApi<{ data: { url: string } }>(`${service.baseUrl}/open/v1/watches/${stored.id}`, { headers: { 'x-api-key': service.apiKey } });
    expect(read.body.data.url).toBe('http://127.0.0.1/@10.0.0.1/');
    const cases: [string, string, RegExp][] = [
      ['{not json', 'application/json', /'body': must be JSON/],
      [JSON.stringify({ url: receiver.url('x'), extra: 1 }), 'application/json', /unknown field 'extra'/],
      [JSON.stringify({ url: receiver.url('x'), filters: { size: 5 } }), 'application/json', /'filters.size'/],
      [JSON.stringify({ url: receiver.url('x'), filters: { minSeats: 0 } }), 'application/json', /^Invalid parameter 'minSeats': must be an integer from 1 to 850$/],
      [JSON.stringify({ url: receiver.url('x'), filters: { depNear: 'EGLX' } }), 'application/json', /no airport has the ICAO code 'EGLX'/],
      [JSON.stringify({ url: receiver.url('x'), description: 'x'.repeat(20_000) }), 'application/json', /at most 16384 bytes/],
      [JSON.stringify({ url: receiver.url('x') }), 'text/plain', /Content-Type: application\/json/],
    ];
    for (const [body, type, message] of cases) {
      const r = await post(body, type);
      expect([r.res.status, r.body.code]).toEqual([400, 'INVALID_PARAMETER']);
      expect(r.body.message).toMatch(message);
    }
  });

  it('a key of another client gets 404 for a watch; a key without watch:write gets 403', async () => {
    const watch = await createWatch('mine', { depAirportCode: 'LSGG' });
    const other = await runScript('keys', ['create', '--env', 'test', '--scopes', 'empty_leg:read,watch:read', '--json'], {
      DYNAMODB_ENDPOINT: service.dynamodbEndpoint,
      KEYS_TABLE_NAME: service.keysTableName,
      LEGS_TABLE_NAME: service.legsTableName,
    });
    const otherKey = (JSON.parse(other.stdout) as { key: string }).key;
    const read = await callApi(`${service.baseUrl}/open/v1/watches/${watch.id}`, { headers: { 'x-api-key': otherKey } });
    expect(read.res.status).toBe(404);
    const list = await callApi<{ data: { records: unknown[] } }>(`${service.baseUrl}/open/v1/watches`, { headers: { 'x-api-key': otherKey } });
    expect(list.body.data.records).toEqual([]);
    const write = await callApi(`${service.baseUrl}/open/v1/watches/${watch.id}`, { method: 'DELETE', headers: { 'x-api-key': otherKey } });
    expect(write.res.status).toBe(403);
    const mine = await callApi<{ data: { id: string } }>(`${service.baseUrl}/open/v1/watches/${watch.id}`, { headers: { 'x-api-key': service.apiKey } });
    expect(mine.body.data.id).toBe(watch.id);
    expect(mine.body.data).not.toHaveProperty('secret');
  });
});

describe("a watch run by its owner, over HTTP (src/watch-admin/)", () => {
  const call = <T>(method: string, path: string, body?: unknown, key = service.apiKey) =>
    callApi<T>(`${service.baseUrl}/open/v1/watches${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  interface Attempt {
    webhookId: string;
    result: string;
    responseCode: number | null;
    durationMs: number;
    error: string | null;
  }

  it('a test event arrives signed (verified by standardwebhooks) and the answer is the attempt; a rotated secret signs with both', async () => {
    const watch = await createWatch('owner-test', { depAirportCode: 'ZZZY' });
    const test = await call<{ data: Attempt & { type: string } }>('POST', `/${watch.id}/test`);
    expect(test.res.status).toBe(200);
    expect(test.body.data).toMatchObject({ type: 'watch.test', result: 'delivered', responseCode: 204, error: null });
    const got = await receiver.waitFor((r) => r.webhookId === test.body.data.webhookId, 2_000);
    expect(got?.verified).toBe(true);
    expect(got?.body).toMatchObject({ type: 'watch.test', data: { watchId: watch.id } });

    const rotated = await call<{ data: { secret: string; previousSecretExpiresAt: string; rotatedAt: string } }>('POST', `/${watch.id}/secret/rotate`);
    expect(rotated.res.status).toBe(200);
    expect(Date.parse(rotated.body.data.previousSecretExpiresAt) - Date.parse(rotated.body.data.rotatedAt)).toBe(24 * 3_600_000);
    const after = await call<{ data: Attempt }>('POST', `/${watch.id}/test`);
    const signed = (await receiver.waitFor((r) => r.webhookId === after.body.data.webhookId, 2_000))!;
    expect(signed.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect([verifiesWith(rotated.body.data.secret, signed), verifiesWith(watch.secret, signed)]).toEqual([true, true]);
    // The secret is never in a watch's answers.
    expect(JSON.stringify((await call('GET', `/${watch.id}`)).body)).not.toContain(rotated.body.data.secret.slice(6));
  });

  it('a replay sends the delivery again with its webhook-id, and its history counts it', async () => {
    const watch = await createWatch('owner-replay', { depAirportCode: 'EGTK' });
    await loadLegs([leg('W-REPLAY', 'EGTK')]);
    const first = (await receiver.waitFor((r) => r.path === '/owner-replay', HANG_BOUND_MS))!;
    const replay = await call<{ data: Attempt & { delivery: { id: string; status: string; attempts: number } } }>('POST', `/${watch.id}/deliveries/${first.webhookId}/retry`);
    expect(replay.res.status).toBe(200);
    expect(replay.body.data).toMatchObject({ webhookId: first.webhookId, result: 'delivered', responseCode: 204, delivery: { id: first.webhookId, status: 'delivered', attempts: 2 } });
    const again = receiver.received.filter((r) => r.webhookId === first.webhookId);
    expect(again).toHaveLength(2);
    expect(again.every((r) => r.verified)).toBe(true);
    expect(again[1]!.raw).toBe(first.raw);
    const unknown = await call<{ code: string }>('POST', `/${watch.id}/deliveries/msg_${'x'.repeat(27)}/retry`);
    expect([unknown.res.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('PATCH turns on again a watch disabled after its failures (a new URL with it), validated as a new watch is', async () => {
    const watch = await createWatch('owner-disabled', { depAirportCode: 'EGSC' });
    // What the delivery worker writes after 5 days of failures (src/watches/store.ts recordWatchFailure), by hand.
    const client = createDocumentClient({ endpoint: service.dynamodbEndpoint, region: 'local' });
    const [item] = (await client.send(new ScanCommand({ TableName: 'watches', FilterExpression: 'watchId = :w', ExpressionAttributeValues: { ':w': watch.id } }))).Items ?? [];
    await client.send(
      new UpdateCommand({
        TableName: 'watches',
        Key: { clientId: item!.clientId as string, watchId: watch.id },
        UpdateExpression: 'SET #s = :d, disabledAt = :at, failingSince = :since',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':d': 'disabled', ':at': new Date(testNow()).toISOString(), ':since': new Date(testNow() - 5 * 86_400_000).toISOString() },
      }),
    );
    await loadLegs([leg('W-OFF', 'EGSC')]);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(receiver.received.filter((r) => r.path.startsWith('/owner-disabled'))).toEqual([]);

    const refused = await call<{ code: string; message: string }>('PATCH', `/${watch.id}`, { url: 'http://10.0.0.1/x', enabled: true });
    expect([refused.res.status, refused.body.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(refused.body.message).toMatch(/^Invalid parameter 'url'/);
    const unknown = await call<{ code: string; message: string }>('PATCH', `/${watch.id}`, { secret: 'x' });
    expect([unknown.res.status, unknown.body.message]).toEqual([400, expect.stringMatching(/unknown field 'secret'/)]);

    receiver.secrets.set('owner-disabled-2', watch.secret);
    const on = await call<{ data: { status: string; url: string; failingSince: string | null; disabledAt: string | null; filters: unknown } }>('PATCH', `/${watch.id}`, {
      url: receiver.url('owner-disabled-2'),
      enabled: true,
    });
    expect(on.res.status).toBe(200);
    expect(on.body.data).toMatchObject({ status: 'active', url: receiver.url('owner-disabled-2'), failingSince: null, disabledAt: null, filters: { depAirportCode: 'EGSC' } });
    expect((await call<{ data: unknown }>('GET', `/${watch.id}`)).body.data).toEqual(on.body.data);
    await loadLegs([leg('W-ON', 'EGSC')]);
    const got = await receiver.waitFor((r) => r.path === '/owner-disabled-2' && r.body.data.id === 'W-ON', HANG_BOUND_MS);
    expect(got?.verified).toBe(true);
  });

  it("another client's watch is 404 on every operation, even with watch:write", async () => {
    const watch = await createWatch('owner-mine', { depAirportCode: 'LSZH' });
    const other = await runScript('keys', ['create', '--env', 'test', '--scopes', 'empty_leg:read,watch:read,watch:write', '--json'], {
      DYNAMODB_ENDPOINT: service.dynamodbEndpoint,
      KEYS_TABLE_NAME: service.keysTableName,
      LEGS_TABLE_NAME: service.legsTableName,
    });
    const otherKey = (JSON.parse(other.stdout) as { key: string }).key;
    const seen = receiver.received.length;
    for (const [method, path, body] of [
      ['PATCH', `/${watch.id}`, { enabled: false }],
      ['POST', `/${watch.id}/test`, undefined],
      ['POST', `/${watch.id}/deliveries/msg_${'x'.repeat(27)}/retry`, undefined],
      ['POST', `/${watch.id}/secret/rotate`, undefined],
    ] as const) {
      const r = await call<{ code: string }>(method, path, body, otherKey);
      expect([method, path, r.res.status, r.body.code]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
    expect(receiver.received.length).toBe(seen);
    // Unchanged: still active, its secret still the one that verifies.
    const test = await call<{ data: Attempt }>('POST', `/${watch.id}/test`);
    expect((await receiver.waitFor((r) => r.webhookId === test.body.data.webhookId, 2_000))?.verified).toBe(true);
  });
});

// Last: the 5,100 deliveries it makes keep the local queue busy until the service stops.
describe('one client with 100 unfiltered watches (docs/performance.md, "Watches off the listing\'s path")', () => {
  it('after 50 changes, a write reaches the change feed and the listing; every delivery is made', async () => {
    const env = { DYNAMODB_ENDPOINT: service.dynamodbEndpoint, KEYS_TABLE_NAME: service.keysTableName, LEGS_TABLE_NAME: service.legsTableName };
    const made = await runScript('keys', ['create', '--env', 'test', '--scopes', 'empty_leg:read,watch:read,watch:write', '--rate', '1000', '--burst', '1000', '--json'], env);
    const { key, clientId } = JSON.parse(made.stdout) as { key: string; clientId: string };
    // Its client's limit (20/s, burst 40 by default) would refuse a quick run of 100 creations.
    await runScript('keys', ['client-limit', clientId, '--rate', '1000', '--burst', '1000'], env);
    const headers = { 'x-api-key': key };
    for (let i = 0; i < 100; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          const r = await callApi(`${service.baseUrl}/open/v1/watches`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ url: receiver.url('flood'), filters: {} }),
          });
          expect(r.res.status).toBe(201);
        }),
      );
    }
    // The feed's end before the writes.
    type Feed = { data: { changes: { id: string }[]; cursor: string; hasMore: boolean } };
    let cursor: string | undefined;
    for (let more = true; more; ) {
      const q = new URLSearchParams({ size: '1000', ...(cursor === undefined ? {} : { after: cursor }) });
      const { body } = await callApi<Feed>(`${service.baseUrl}/open/v1/empty-legs/changes?${q.toString()}`, { headers });
      cursor = body.data.cursor;
      more = body.data.hasMore;
    }
    const client = createDocumentClient({ endpoint: service.dynamodbEndpoint, region: 'local' });
    const stored = (legs: Record<string, unknown>[]) => {
      const parsed = parseImportText(JSON.stringify(legs), { today });
      expect(parsed.errors).toEqual([]);
      return parsed.legs;
    };
    const flood = stored(Array.from({ length: 50 }, (_, i) => leg(`FLOOD-${i}`, 'EGSS')));
    const after = stored([leg('FLOOD-AFTER', 'EGLC')]);
    const feedHas = async (id: string) => {
      const { body } = await callApi<Feed>(`${service.baseUrl}/open/v1/empty-legs/changes?after=${cursor!}&size=1000`, { headers });
      return body.data.changes.some((c) => c.id === id);
    };
    // The 50 changes reach the log; their matching (5,000 deliveries) begins: then the write.
    await writeLegs(client, service.legsTableName, flood);
    for (const start = performance.now(); !(await feedHas('FLOOD-49')) && performance.now() - start < 30_000; ) await new Promise((r) => setTimeout(r, 20));
    await writeLegs(client, service.legsTableName, after);
    const written = performance.now();
    let inFeed: number | undefined;
    let inListing: number | undefined;
    while ((inFeed === undefined || inListing === undefined) && performance.now() - written < 150_000) {
      if (inFeed === undefined && (await feedHas('FLOOD-AFTER'))) inFeed = performance.now() - written;
      if (inListing === undefined) {
        const { body } = await callApi<{ data: { records: { id: string }[] } }>(`${service.baseUrl}/open/v1/empty-legs?depAirportCode=EGLC`, { headers });
        if (body.data.records.some((r) => r.id === 'FLOOD-AFTER')) inListing = performance.now() - written;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    // Every delivery: 100 watches x 51 listed legs, each stored once.
    const count = async () => {
      let n = 0;
      for await (const page of paginateScan({ client }, { TableName: 'watch-deliveries', FilterExpression: 'begins_with(legId, :p)', ExpressionAttributeValues: { ':p': 'FLOOD-' }, Select: 'COUNT' })) n += page.Count ?? 0;
      return n;
    };
    let deliveries = await count();
    for (const start = performance.now(); deliveries < 5_100 && performance.now() - start < 60_000; deliveries = await count()) await new Promise((r) => setTimeout(r, 500));
    client.destroy();
    expect(deliveries).toBe(5_100);
    expect(inFeed).toBeDefined();
    expect(inListing).toBeDefined();
    reportNotJudged('100 watches x 50 changes: a later leg in the feed', inFeed!);
    reportNotJudged('... and in the listing', inListing!);
  }, 300_000);
});
