import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callApi } from '../support/contract.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';
import type { Envelope as ApiEnvelope } from '../../src/http/envelope.js';
import { testNow } from '../support/clock.js';

/**
 * `group=flight` as a client sees it (docs/api.md, "Flights"): `npm start --data FILE` with a flight
 * offered three times, one twice and single legs, then plain HTTP; every response is checked against
 * docs/openapi.yaml (callApi). Every source is unregistered here: offers rank by their euro price.
 */
const DAY = 86_400_000;
const today = new Date(testNow());
const day = (offset: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) + offset * DAY).toISOString().slice(0, 10);

/** id, registration, start, span, price (EUR), source. All Le Bourget to Geneva. */
const LEGS: [string, string | null, number, number, number, string][] = [
  ['op-1', 'F-HCJF', 5, 2, 12000, 'acme'],
  ['br-1', 'FHCJF', 6, 0, 11000, 'jet-brokers'],
  ['br-2', 'f-hcjf', 4, 1, 9000, 'cheap-seats'],
  ['op-2', 'N-123AB', 3, 1, 30000, 'acme'],
  ['br-3', 'N123AB', 4, 2, 31000, 'jet-brokers'],
  ['solo', 'G-ABCD', 8, 0, 5000, 'acme'],
  ['no-reg', null, 5, 2, 7000, 'acme'],
];

type Page = { records: (Record<string, unknown> & { id: string; offerCount?: number; offers?: { id: string }[] })[]; total: number };
let service: RunningService;
const get = <T>(path: string) => callApi<ApiEnvelope<T>>(`${service.baseUrl}${path}`, { headers: { 'X-API-Key': service.apiKey } });

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'empty-legs-flights-e2e-'));
  const file = join(dir, 'legs.ndjson');
  const records = LEGS.map(([id, registration, start, span, price, source]) => ({
    id, registration, source, price, currency: 'EUR', startDate: day(start), endDate: day(start + span),
    depCityName: 'Paris', depAirportIcao: 'LFPB', arrCityName: 'Geneva', arrAirportIcao: 'LSGG',
  }));
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  service = await startLocalServer({ dataFile: file });
}, 90_000);

afterAll(async () => service?.stop());

describe('group=flight on the local server', () => {
  it('lists each flight once: its best offer\'s record, then offerCount and offers best first', async () => {
    const first = await get<Page>('/open/v1/empty-legs?size=100');
    expect([first.res.status, first.body.message]).toEqual([200, 'success']);
    const legs = first.body.data!;
    const { body } = await get<Page>('/open/v1/empty-legs?size=100&group=flight');
    expect(body.data!.total).toBe(4);
    const offers = body.data!.records.map((r) => r.offers!.map((o) => o.id));
    expect(offers).toEqual([['op-2', 'br-3'], ['br-2', 'br-1', 'op-1'], ['no-reg'], ['solo']]);
    for (const r of body.data!.records) {
      const { offerCount, offers: list, ...rest } = r;
      expect(offerCount).toBe(list!.length);
      expect(rest).toEqual(legs.records.find((l) => l.id === r.id));
    }
    expect((await get<Page>('/open/v1/empty-legs?size=100&group=leg')).body.data).toEqual(legs);
  });

  it('refuses another group, naming it', async () => {
    const { res, body } = await get<Page>('/open/v1/empty-legs?group=aircraft');
    expect([res.status, body.code, body.message]).toEqual([400, 'INVALID_PARAMETER', "Invalid parameter 'group': must be one of leg, flight"]);
  });

  it('answers by id the flight the leg belongs to; a leg without a registration alone', async () => {
    const { body } = await get<Page['records'][number]>('/open/v1/empty-legs/op-1?group=flight&currency=EUR');
    expect(body.data!.id).toBe('br-2');
    expect(body.data!.offers!.map((o) => o.id)).toEqual(['br-2', 'br-1', 'op-1']);
    const alone = (await get<Page['records'][number]>('/open/v1/empty-legs/no-reg?group=flight')).body.data!;
    expect([alone.id, alone.offerCount, alone.offers]).toEqual(['no-reg', 1, [{ id: 'no-reg', source: 'acme', kind: 'unknown', verified: false, price: 7000, currency: 'EUR', confirmedAt: expect.any(String) as unknown }]]);
    expect((await get('/open/v1/empty-legs/op-1?group=bogus')).res.status).toBe(400);
    expect((await get<Record<string, unknown>>('/open/v1/empty-legs/op-1')).body.data).not.toHaveProperty('offers');
  });

  it('MCP: get_empty_leg and search_empty_legs take group as their routes do (plain tools/call POSTs)', async () => {
    const tool = async (name: string, args: Record<string, unknown>) => {
      const { body } = await callApi<{ result: CallToolResult }>(`${service.baseUrl}/open/v1/mcp`, {
        method: 'POST',
        headers: { 'X-API-Key': service.apiKey, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      });
      return body.result;
    };
    for (const id of ['op-1', 'br-1', 'br-2', 'op-2', 'no-reg']) {
      const flight = await tool('get_empty_leg', { id, group: 'flight', currency: 'EUR' });
      expect({ id, flight: flight.structuredContent }).toEqual({ id, flight: (await get(`/open/v1/empty-legs/${id}?group=flight&currency=EUR`)).body.data });
    }
    const op1 = (await tool('get_empty_leg', { id: 'op-1', group: 'flight', currency: 'EUR' })).structuredContent as Page['records'][number];
    expect([op1.id, op1.offers!.map((o) => o.id)]).toEqual(['br-2', ['br-2', 'br-1', 'op-1']]);
    expect((await tool('get_empty_leg', { id: 'op-1', group: 'leg' })).structuredContent).toEqual((await get('/open/v1/empty-legs/op-1')).body.data);
    const flights = await tool('search_empty_legs', { group: 'flight', size: 100 });
    expect(flights.structuredContent).toEqual((await get('/open/v1/empty-legs?group=flight&size=100')).body.data);
    for (const [name, args] of [['get_empty_leg', { id: 'op-1', group: 'aircraft' }], ['search_empty_legs', { group: 'aircraft' }]] as const) {
      const refused = await tool(name, args);
      expect([refused.isError, refused.content]).toEqual([true, [{ type: 'text', text: "INVALID_PARAMETER: Invalid parameter 'group': must be one of leg, flight" }]]);
    }
  });

  it('adds flightKey with include=flight on the listing, by id and the change feed: one per identity, null without a registration', async () => {
    const { body } = await get<Page>('/open/v1/empty-legs?size=100&include=flight');
    const keyOf = new Map(body.data!.records.map((r) => [r.id, r.flightKey]));
    expect(keyOf.size).toBe(LEGS.length);
    expect(keyOf.get('no-reg')).toBeNull();
    expect(new Set(['op-1', 'br-1', 'br-2'].map((id) => keyOf.get(id))).size).toBe(1);
    expect(new Set(['op-2', 'br-3'].map((id) => keyOf.get(id))).size).toBe(1);
    expect(new Set(['op-1', 'op-2', 'solo'].map((id) => keyOf.get(id))).size).toBe(3);
    for (const key of keyOf.values()) if (key !== null) expect(key).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const byId = (await get<Record<string, unknown>>('/open/v1/empty-legs/br-1?include=flight,provenance')).body.data!;
    expect([byId.flightKey, Object.keys(byId).slice(-2)]).toEqual([keyOf.get('br-1'), ['provenance', 'flightKey']]);
    const grouped = (await get<Page>('/open/v1/empty-legs?size=100&group=flight&include=flight')).body.data!;
    expect(grouped.records.map((r) => Object.keys(r).slice(-3))).toEqual(grouped.records.map(() => ['flightKey', 'offerCount', 'offers']));
    const feed = (await get<{ changes: { id: string; leg: Record<string, unknown> | null }[] }>('/open/v1/empty-legs/changes?size=100&include=flight')).body.data!;
    expect(new Map(feed.changes.map((c) => [c.id, c.leg?.flightKey]))).toEqual(keyOf);
    const plain = (await get<Page>('/open/v1/empty-legs?size=100')).body.data!;
    expect(plain.records.some((r) => 'flightKey' in r)).toBe(false);
    for (const bad of ['flight,flight', 'aircraft', 'flight,departure,provenance,flight']) {
      const { res, body: refused } = await get<Page>(`/open/v1/empty-legs?include=${bad}`);
      expect([res.status, refused.code, refused.message]).toEqual([400, 'INVALID_PARAMETER', "Invalid parameter 'include': must be a comma list of provenance, departure and flight, each once"]);
    }
  });
});
