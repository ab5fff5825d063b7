import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
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
});
