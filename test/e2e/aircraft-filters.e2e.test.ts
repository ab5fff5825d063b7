import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callApi } from '../support/contract.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';
import type { Envelope as ApiEnvelope } from '../../src/http/envelope.js';
import { testNow } from '../support/clock.js';

/**
 * `minSeats` and `aircraftType` as a client sees them: `npm start --data FILE
 * --allow-unknown-categories` with legs whose categories are written as feeds write them, then plain
 * HTTP. Expectations come from the fixture; every response is checked against docs/openapi.yaml
 * (callApi), which allows only the vocabulary or null in `aircraftType`.
 */
const DAY = 86_400_000;
const today = new Date(testNow());
const day = (offset: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) + offset * DAY).toISOString().slice(0, 10);

const CATEGORIES = ['Piston', 'Turboprop', 'Very Light Jet', 'Light Jet', 'Midsize Jet', 'Super Midsize Jet', 'Heavy Jet', 'Ultra Long Range', 'Airliner', 'Helicopter'];

/** id, seats, the text in the file, the category it names (null: none). */
const AIRCRAFT: [string, number | null, string | null, string | null][] = [
  ['seneca', 5, 'Twin Piston', 'Piston'],
  ['pc12', 8, 'turbo-prop', 'Turboprop'],
  ['phenom100', 4, 'VLJ', 'Very Light Jet'],
  ['cj4', 8, 'LIGHT JET', 'Light Jet'],
  ['latitude', 9, 'Mid-size', 'Midsize Jet'],
  ['cl350', 9, 'Super-Midsize', 'Super Midsize Jet'],
  ['f7x', 14, 'Large jet', 'Heavy Jet'],
  ['g650', 16, 'ULR', 'Ultra Long Range'],
  ['bbj', 19, 'Bizliner', 'Airliner'],
  ['aw139', 8, 'Helicopter', 'Helicopter'],
  ['no-seats', null, 'Heavy', 'Heavy Jet'],
  ['no-type', 12, null, null],
  ['glider', 2, 'Glider', null],
];

interface Leg {
  id: string;
  startDate: string;
  endDate: string;
  seatNum: number | null;
  aircraftType: string | null;
  category: string | null;
  blocked: boolean;
}

const legs: Leg[] = [];
for (let copy = 0; copy < 3; copy++) {
  AIRCRAFT.forEach(([id, seats, text, category], i) => {
    const start = 1 + ((i * 3 + copy * 7) % 20);
    legs.push({ id: `${id}-${copy}`, startDate: day(start), endDate: day(start + 1), seatNum: seats, aircraftType: text, category, blocked: copy === 2 && i % 4 === 0 });
  });
}
const visible = legs
  .filter((l) => !l.blocked)
  .sort((a, b) => (a.startDate === b.startDate ? (a.id < b.id ? -1 : 1) : a.startDate < b.startDate ? -1 : 1));

type Envelope = ApiEnvelope<{ records: Record<string, unknown>[]; total: number; page: number; size: number }>;

let service: RunningService;

const get = (query: string) =>
  callApi<Envelope>(`${service.baseUrl}/open/v1/empty-legs${query}`, { headers: { 'X-API-Key': service.apiKey } });
const ids = async (query: string) => (await get(`${query}&size=100`)).body.data!.records.map((r) => r.id);

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'empty-legs-aircraft-e2e-'));
  const file = join(dir, 'legs.ndjson');
  const records = legs.map(({ category: _c, ...l }) => ({ ...l, depCityName: 'London', depAirportIcao: 'EGLF', arrCityName: 'Nice', arrAirportIcao: 'LFMN' }));
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  service = await startLocalServer({ dataFile: file, allowUnknownCategories: true });
}, 90_000);

afterAll(async () => service?.stop());

describe('minSeats and aircraftType on the local server', () => {
  it('serves every aircraftType as its category of the vocabulary, or null', async () => {
    const { body } = await get('?size=100');
    const served = new Map(body.data!.records.map((r) => [r.id, r.aircraftType]));
    expect(served.size).toBe(visible.length);
    for (const leg of visible) expect([leg.id, served.get(leg.id)]).toEqual([leg.id, leg.category]);
  });

  it('keeps legs with at least minSeats seats, unknown seats never', async () => {
    for (const min of [1, 9, 16, 850]) {
      expect(await ids(`?minSeats=${min}`)).toEqual(visible.filter((l) => l.seatNum !== null && l.seatNum >= min).map((l) => l.id));
    }
  });

  it('keeps legs of any category given, in any case and spacing; an unknown category never', async () => {
    for (const category of CATEGORIES) {
      const query = encodeURIComponent(category.toUpperCase());
      expect(await ids(`?aircraftType=${query}`)).toEqual(visible.filter((l) => l.category === category).map((l) => l.id));
    }
    const several = await ids('?aircraftType=light-jet,Heavy%20Jet,ULTRA_LONG_RANGE');
    expect(several).toEqual(visible.filter((l) => ['Light Jet', 'Heavy Jet', 'Ultra Long Range'].includes(l.category ?? '')).map((l) => l.id));
  });

  it('combines both with the date window and pages in order', async () => {
    const want = visible
      .filter((l) => l.seatNum !== null && l.seatNum >= 8 && ['Light Jet', 'Helicopter', 'Turboprop'].includes(l.category ?? ''))
      .filter((l) => l.startDate <= day(15) && l.endDate >= day(5));
    expect(want.length).toBeGreaterThan(2);
    const paged: string[] = [];
    for (let page = 1; page <= want.length; page++) {
      const { body } = await get(`?minSeats=8&aircraftType=Light%20Jet,Helicopter,Turboprop&depDate=${day(10)}&offsetDays=5&size=2&page=${page}`);
      expect(body.data!.total).toBe(want.length);
      paged.push(...body.data!.records.map((r) => r.id as string));
    }
    expect(paged).toEqual(want.map((l) => l.id));
  });

  it.each([
    ['?minSeats=0', 'minSeats', '1 to 850'],
    ['?minSeats=851', 'minSeats', '1 to 850'],
    ['?minSeats=8.5', 'minSeats', '1 to 850'],
    ['?aircraftType=Glider', 'aircraftType', CATEGORIES.join(', ')],
    ['?aircraftType=Light%20Jet,', 'aircraftType', CATEGORIES.join(', ')],
    ['?aircraftType=VLJ', 'aircraftType', CATEGORIES.join(', ')],
  ])('%s is 400 INVALID_PARAMETER naming %s and the rule', async (query, parameter, rule) => {
    const { res, body } = await get(query);
    expect(res.status).toBe(400);
    expect(body.code).toBe('INVALID_PARAMETER');
    expect(body.message).toContain(`'${parameter}'`);
    expect(body.message).toContain(rule);
    expect(body.data).toBeNull();
  });
});
