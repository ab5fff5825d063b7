import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import type { Envelope } from '../../src/http/envelope.js';
import { toStorageItem } from '../../src/kernel/leg-item.js';
import { runScript } from '../support/commands.js';
import { callApi } from '../support/contract.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';
import { testNow } from '../support/clock.js';
import { reportNotJudged } from '../support/not-judged.js';

/**
 * GET /open/v1/empty-legs/changes over HTTP against `npm start --data FIXTURE`, every answer checked
 * against docs/openapi.yaml: a mirror that starts without a cursor and applies every change, while
 * legs are loaded with the project's tool and written around it (PutItem, UpdateItem, DeleteItem on
 * DynamoDB Local), holds the listing, which shows those writes too, and what the table says by id;
 * the route is the feed, not the
 * leg `changes`; a malformed cursor is 400, no key 401.
 */
const DAY = 86_400_000;
const today = new Date(testNow());
const day = (offset: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) + offset * DAY).toISOString().slice(0, 10);
const base = {
  depCityName: 'London', depAirportName: null, depAirportIcao: 'EGLF', depAirportIata: 'FAB', depCountryName: null, depCountryCode: null,
  arrCityName: 'Nice', arrAirportName: null, arrAirportIcao: 'LFMN', arrAirportIata: 'NCE', arrCountryName: null, arrCountryCode: null,
  airlineName: null, aircraftModelName: 'Challenger 350', aircraftType: null, registration: null, aircraftImg: null, makeYear: 2018,
  renovateYear: null, seatNum: 9, price: 9000, currency: 'EUR', amenities: [], depTimezone: 'Europe/London', listed: true, blocked: false,
};
const legs = Array.from({ length: 30 }, (_, i) => ({ ...base, id: `CF-${String(i).padStart(2, '0')}`, startDate: day(2 + (i % 9)), endDate: day(4 + (i % 9)) }));

type Change = { type: string; id: string; changedAt: string; leg: { id: string; price: number | null } | null };
type FeedEnvelope = Envelope<{ changes: Change[]; cursor: string; hasMore: boolean }>;
type PageEnvelope = Envelope<{ records: { id: string; price: number | null }[]; total: number }>;

let service: RunningService;
let dir: string;
const headers = () => ({ 'X-API-Key': service.apiKey });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'changes-e2e-'));
  writeFileSync(join(dir, 'legs.json'), JSON.stringify(legs));
  service = await startLocalServer({ dataFile: join(dir, 'legs.json') });
}, 120_000);
afterAll(async () => {
  await service?.stop();
});

async function follow(mirror: Map<string, Change['leg']>, cursor: string | undefined, size: number): Promise<string> {
  let after = cursor;
  for (;;) {
    const q = new URLSearchParams({ size: String(size), ...(after === undefined ? {} : { after }) });
    const { res, body } = await callApi<FeedEnvelope>(`${service.baseUrl}/open/v1/empty-legs/changes?${q.toString()}`, { headers: headers() });
    expect(res.status).toBe(200);
    for (const c of body.data!.changes) {
      if (c.leg === null) mirror.delete(c.id);
      else mirror.set(c.id, c.leg);
    }
    after = body.data!.cursor;
    if (!body.data!.hasMore) return after;
  }
}

async function listing(): Promise<Map<string, { id: string; price: number | null }>> {
  const out = new Map<string, { id: string; price: number | null }>();
  for (let page = 1; ; page++) {
    const { body } = await callApi<PageEnvelope>(`${service.baseUrl}/open/v1/empty-legs?size=100&page=${page}`, { headers: headers() });
    for (const r of body.data!.records) out.set(r.id, r);
    if (body.data!.records.length < 100) return out;
  }
}

describe('the change feed over HTTP', () => {
  it('a mirror started without a cursor, following the feed while legs are written with the tool and around it, holds the listing', async () => {
    const mirror = new Map<string, Change['leg']>();
    // The first page only: the mirror is in the middle of its initial listing when the writes begin.
    const q = new URLSearchParams({ size: '7' });
    const first = await callApi<FeedEnvelope>(`${service.baseUrl}/open/v1/empty-legs/changes?${q.toString()}`, { headers: headers() });
    for (const c of first.body.data!.changes) mirror.set(c.id, c.leg);
    expect(first.body.data!.changes.every((c) => c.type === 'listed')).toBe(true);
    let cursor = first.body.data!.cursor;

    // The tool: two legs changed, one blocked, one new.
    const changed = [
      { ...legs[0]!, price: 1 },
      { ...legs[1]!, price: 2 },
      { ...legs[2]!, blocked: true },
      { ...base, id: 'CF-NEW', startDate: day(3), endDate: day(5) },
    ];
    writeFileSync(join(dir, 'changed.json'), JSON.stringify(changed));
    const env = { DYNAMODB_ENDPOINT: service.dynamodbEndpoint, LEGS_TABLE_NAME: service.legsTableName, KEYS_TABLE_NAME: service.keysTableName };
    const loaded = await runScript('legs:load', [join(dir, 'changed.json')], env, { inherit: true, timeoutMs: 60_000 });
    expect(loaded.code).toBe(0);

    // Around the tools: a hand-made put, a price changed by UpdateItem, a leg deleted.
    const client = createDocumentClient({ endpoint: service.dynamodbEndpoint, region: 'local' });
    const written = performance.now();
    await client.send(new PutCommand({ TableName: service.legsTableName, Item: toStorageItem({ ...base, id: 'CF-HAND', startDate: day(5), endDate: day(6) }) }));
    await client.send(new UpdateCommand({ TableName: service.legsTableName, Key: { id: 'CF-03' }, UpdateExpression: 'SET price = :p', ExpressionAttributeValues: { ':p': 3 } }));
    await client.send(new DeleteCommand({ TableName: service.legsTableName, Key: { id: 'CF-04' } }));
    client.destroy();

    // Follow until the writes around the tools are in the mirror (the consumer's lag), then once more.
    let seenAfterMs: number | undefined;
    for (const deadline = performance.now() + 60_000; performance.now() < deadline; ) {
      cursor = await follow(mirror, cursor, 5);
      if (mirror.has('CF-HAND') && !mirror.has('CF-04') && mirror.get('CF-03')?.price === 3) {
        seenAfterMs = performance.now() - written;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seenAfterMs).toBeDefined();
    reportNotJudged('a write around the tools in the change feed after it was made', seenAfterMs!);

    // The listing follows every write too (the list containers follow the change log):
    // once it shows them, it is what the mirror holds.
    let listed = await listing();
    let inListingAfterMs: number | undefined;
    for (const deadline = performance.now() + 60_000; performance.now() < deadline; ) {
      if (listed.has('CF-HAND') && !listed.has('CF-04') && listed.get('CF-03')?.price === 3) {
        inListingAfterMs = performance.now() - written;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
      listed = await listing();
    }
    expect(inListingAfterMs).toBeDefined();
    // docs/api.md ("Caching and staleness") gives about 2 s: the benchmark's figure; this one is reported.
    reportNotJudged('... and in the listing', inListingAfterMs!);
    cursor = await follow(mirror, cursor, 50);
    expect([...mirror.keys()].sort()).toEqual([...listed.keys()].sort());
    for (const [id, leg] of listed) expect(mirror.get(id)).toEqual(expect.objectContaining({ id, price: leg.price }));
    expect(mirror.has('CF-02')).toBe(false);
    expect(mirror.get('CF-00')?.price).toBe(1);
    expect(mirror.has('CF-NEW')).toBe(true);
    // What was written around the tools, as the table says it by id.
    for (const id of ['CF-HAND', 'CF-03', 'CF-04']) {
      const { res, body } = await callApi<Envelope<{ id: string; price: number | null }>>(`${service.baseUrl}/open/v1/empty-legs/${id}`, { headers: headers() });
      if (res.status === 404) expect(mirror.has(id)).toBe(false);
      else expect(mirror.get(id)).toEqual(body.data);
    }
  }, 180_000);

  it('hand edits of fields the listing filters on (an airport code, seats, the dates) are in its filters within 5 s; a leg moved into the past leaves the listing, the by-id route and a full sync together', async () => {
    const client = createDocumentClient({ endpoint: service.dynamodbEndpoint, region: 'local' });
    const set = (id: string, expression: string, values: Record<string, unknown>) =>
      client.send(new UpdateCommand({ TableName: service.legsTableName, Key: { id }, UpdateExpression: `SET ${expression}`, ExpressionAttributeValues: values }));
    const written = performance.now();
    await set('CF-05', 'depAirportIcao = :c', { ':c': 'LFPB' });
    await set('CF-07', 'seatNum = :n', { ':n': 40 });
    await set('CF-08', 'startDate = :s, endDate = :e', { ':s': day(-3), ':e': day(-2) });
    client.destroy();
    const ids = async (query: string) => {
      const { body } = await callApi<PageEnvelope>(`${service.baseUrl}/open/v1/empty-legs?size=100&${query}`, { headers: headers() });
      return body.data!.records.map((r) => r.id);
    };
    const seen = async () =>
      (await ids('depAirportCode=LFPB')).join() === 'CF-05' &&
      !(await ids('depAirportCode=EGLF')).includes('CF-05') &&
      (await ids('minSeats=30')).join() === 'CF-07' &&
      !(await listing()).has('CF-08');
    let inFiltersAfterMs: number | undefined;
    for (const deadline = performance.now() + 30_000; performance.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      if (await seen()) {
        inFiltersAfterMs = performance.now() - written;
        break;
      }
    }
    expect(inFiltersAfterMs).toBeDefined();
    reportNotJudged("hand edits of filtered fields in the listing's filters after they were made", inFiltersAfterMs!);
    const byId = await callApi<Envelope<unknown>>(`${service.baseUrl}/open/v1/empty-legs/CF-08`, { headers: headers() });
    expect(byId.res.status).toBe(404);
    const full = new Map<string, Change['leg']>();
    await follow(full, undefined, 1000);
    expect(full.has('CF-08')).toBe(false);
    expect(full.has('CF-05')).toBe(true);
  }, 60_000);

  it('/open/v1/empty-legs/changes is the feed (the route wins over {id}); a malformed cursor is 400 naming after; no key is 401', async () => {
    const feed = await callApi<FeedEnvelope>(`${service.baseUrl}/open/v1/empty-legs/changes?size=1`, { headers: headers() });
    expect(feed.res.status).toBe(200);
    expect(feed.body.data).toEqual(expect.objectContaining({ hasMore: true }));
    const bad = await callApi<FeedEnvelope>(`${service.baseUrl}/open/v1/empty-legs/changes?after=nonsense`, { headers: headers() });
    expect(bad.res.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining("'after'") as unknown });
    const none = await callApi<FeedEnvelope>(`${service.baseUrl}/open/v1/empty-legs/changes`, {});
    expect(none.res.status).toBe(401);
  });
});
