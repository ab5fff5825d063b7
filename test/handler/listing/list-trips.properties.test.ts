import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { AirportIndex, type Airport } from '../../../src/airports/reference.js';
import type { StoredLeg } from '../../../src/kernel/leg-item.js';
import { lambdaContext, listEvent } from '../../support/events.js';
import { fcParams } from '../../support/fast-check.js';
import { airportsArb, referenceKm } from '../../support/airports.js';
import { storedLeg } from '../../support/legs.js';
import { serveLegs } from '../../support/serve-legs.js';
import { buildListHandler } from '../../support/handlers.js';

/**
 * Trip search through the list function (docs/api.md, "Trips"), over generated airports injected
 * as the reference and legs placed at them by ICAO code, IATA code, both, codes no airport has, or
 * none. The expected answer is a direct computation: a leg A->B serves X->Y when A->X->Y->B, measured
 * with @turf/distance, is at most (100 + maxDetourPct) % of A->B; its extraKm and percent, then the
 * order (startDate, or extraKm with `sort=detour`), the total and the page.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const NOW = new Date('2026-11-21T12:00:00Z');
let airports = new AirportIndex([]);
const { handler, repository } = buildListHandler({ airports: () => airports });

beforeAll(() => {
  jest.useFakeTimers({ now: NOW, doNotFake: ['setTimeout', 'setImmediate', 'nextTick', 'queueMicrotask'] });
});
afterAll(() => {
  jest.useRealTimers();
});

const serve = (legs: StoredLeg[]) => serveLegs(ddb, legs);

type Placement = 'both' | 'icao' | 'iata' | 'unknown' | 'none';

function codesOf(a: Airport, how: Placement): [string | null, string | null] {
  if (how === 'unknown') return ['YYYY', 'YYY'];
  if (how === 'none') return [null, null];
  const icao = how === 'iata' ? null : a.icao;
  const iata = how === 'icao' ? null : a.iata;
  // An airport without the code asked for is named by the other one.
  return icao === null && iata === null ? [a.icao, a.iata] : [icao, iata];
}

// Airports in clusters (airportsArb puts an airport near the previous one often), so that legs near the trip serve it.
const caseArb = airportsArb(12).chain((list) => {
  const pick = fc.nat(list.length - 1).map((i) => list[i]!);
  const placement = fc.constantFrom<Placement>('both', 'both', 'both', 'icao', 'iata', 'unknown', 'none');
  const leg = fc.record({ dep: pick, depHow: placement, arr: pick, arrHow: placement, start: fc.integer({ min: 0, max: 6 }) });
  return fc.record({
    airports: fc.constant(list),
    legs: fc.array(leg, { maxLength: 20 }),
    from: pick,
    to: pick,
    fromByIata: fc.boolean(),
    maxDetourPct: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
    sort: fc.constantFrom<string | undefined>(undefined, 'startDate', 'detour'),
    size: fc.integer({ min: 1, max: 25 }),
    depDate: fc.option(fc.integer({ min: 1, max: 7 }), { nil: undefined, freq: 3 }),
  });
});

interface Expected {
  id: string;
  startDate: string;
  extraKm: number;
  percent: number;
}

describe('trip search (tripFrom, tripTo, maxDetourPct, sort=detour) through the list function', () => {
  it('lists exactly the legs whose detour through the trip is within maxDetourPct, with their detour, in the order asked for', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        airports = new AirportIndex(c.airports);
        const legs = c.legs.map((l, i) => {
          const [depIcao, depIata] = codesOf(l.dep, l.depHow);
          const [arrIcao, arrIata] = codesOf(l.arr, l.arrHow);
          const day = String(1 + l.start).padStart(2, '0');
          return storedLeg({ id: `L${String(i).padStart(2, '0')}`, startDate: `2026-12-${day}`, endDate: `2026-12-${day}`, depAirportIcao: depIcao, depAirportIata: depIata, arrAirportIcao: arrIcao, arrAirportIata: arrIata });
        });
        serve(legs);
        repository.clear();

        // The direct computation: each end placed by its ICAO code's airport, else its IATA code's.
        const byIcao = new Map(c.airports.filter((a) => a.icao).map((a) => [a.icao!, a]));
        const byIata = new Map(c.airports.filter((a) => a.iata).map((a) => [a.iata!, a]));
        const place = (icao: string | null, iata: string | null) => (icao !== null ? byIcao.get(icao) : iata !== null ? byIata.get(iata) : undefined);
        const pct = c.maxDetourPct ?? 25;
        const day = c.depDate === undefined ? undefined : `2026-12-0${c.depDate}`;
        const expected: Expected[] = [];
        for (const l of legs) {
          if (day !== undefined && l.startDate !== day) continue;
          const a = place(l.depAirportIcao, l.depAirportIata);
          const b = place(l.arrAirportIcao, l.arrAirportIata);
          if (a === undefined || b === undefined) continue;
          const direct = referenceKm(a, b);
          const via = referenceKm(a, c.from) + referenceKm(c.from, c.to) + referenceKm(c.to, b);
          const limit = (direct * (100 + pct)) / 100;
          // Too close to the limit, or to a rounding edge, for two correct formulas to agree.
          fc.pre(Math.abs(via - limit) > 1e-3 + 1e-6 * limit);
          if (via > limit) continue;
          const extra = Math.max(0, via - direct);
          const tenths = direct === 0 ? 0 : (1000 * extra) / direct;
          fc.pre(Math.abs((extra % 1) - 0.5) > 1e-3 && (direct === 0 || Math.abs((tenths % 1) - 0.5) > 1e-3));
          expected.push({ id: l.id, startDate: l.startDate, extraKm: Math.round(extra), percent: Math.round(tenths) / 10 });
        }
        const byStart = (x: Expected, y: Expected) => (x.startDate !== y.startDate ? (x.startDate < y.startDate ? -1 : 1) : x.id < y.id ? -1 : 1);
        expected.sort(c.sort === 'detour' ? (x, y) => x.extraKm - y.extraKm || byStart(x, y) : byStart);

        const params: Record<string, string> = {
          size: String(c.size),
          tripFrom: c.fromByIata ? (c.from.iata ?? c.from.icao!) : (c.from.icao ?? c.from.iata!).toLowerCase(),
          tripTo: c.to.icao ?? c.to.iata!,
        };
        if (c.maxDetourPct !== undefined) params.maxDetourPct = String(c.maxDetourPct);
        if (c.sort !== undefined) params.sort = c.sort;
        if (day !== undefined) params.depDate = day;
        const res = await handler(listEvent(params), lambdaContext());
        const body = JSON.parse(res.body!) as { code: string; data: { records: ({ id: string; detour: unknown } & Record<string, unknown>)[]; total: number } };
        expect(body.code).toBe('OK');
        expect(body.data.total).toBe(expected.length);
        expect(body.data.records.map((r) => [r.id, r.detour])).toEqual(
          expected.slice(0, c.size).map((e) => [e.id, { extraKm: e.extraKm, percent: e.percent }]),
        );
        // The detour comes last, after the leg's 26 fields.
        for (const r of body.data.records) expect(Object.keys(r).at(-1)).toBe('detour');
      }),
      fcParams(400),
    );
  });

  it('never adds detour to the records of a search without a trip', async () => {
    const a: Airport = { icao: 'ZAAA', iata: 'QAA', name: 'A', municipality: null, countryCode: 'FR', countryName: 'France', latitude: 48.9, longitude: 2.4, timeZone: 'UTC', size: 'L' };
    airports = new AirportIndex([a]);
    serve([storedLeg({ id: 'L1', startDate: '2026-12-01', endDate: '2026-12-01', depAirportIcao: 'ZAAA', arrAirportIcao: 'ZAAA' })]);
    repository.clear();
    const plain = JSON.parse((await handler(listEvent({}), lambdaContext())).body!) as { data: { records: object[] } };
    expect(plain.data.records).toHaveLength(1);
    expect(plain.data.records[0]).not.toHaveProperty('detour');
    const trip = JSON.parse((await handler(listEvent({ tripFrom: 'ZAAA', tripTo: 'QAA' }), lambdaContext())).body!) as { data: { records: object[] } };
    expect(trip.data.records[0]).toHaveProperty('detour', { extraKm: 0, percent: 0 });
  });

  it.each([
    [{ tripFrom: 'ZAAA' }, 'tripFrom', 'requires tripTo'],
    [{ tripTo: 'ZAAA' }, 'tripTo', 'requires tripFrom'],
    [{ maxDetourPct: '10' }, 'maxDetourPct', 'requires tripFrom and tripTo'],
    [{ tripFrom: 'ZAAA', tripTo: 'ZAAA', maxDetourPct: '101' }, 'maxDetourPct', 'from 0 to 100'],
    [{ tripFrom: 'ZAAA', tripTo: 'ZAAA', maxDetourPct: '-1' }, 'maxDetourPct', 'from 0 to 100'],
    [{ tripFrom: 'ZAAA', tripTo: 'ZAAA', maxDetourPct: '2.5' }, 'maxDetourPct', 'integer'],
    [{ tripFrom: 'ZZZZ', tripTo: 'ZAAA' }, 'tripFrom', "no airport has the ICAO code 'ZZZZ'"],
    [{ tripFrom: 'ZAAA', tripTo: 'QQQ' }, 'tripTo', "no airport has the IATA code 'QQQ'"],
    [{ tripFrom: 'ZAAA1', tripTo: 'ZAAA' }, 'tripFrom', 'ICAO or 3-letter IATA'],
    [{ sort: 'detour' }, 'sort', 'detour requires tripFrom and tripTo'],
    [{ sort: 'cheapest' }, 'sort', 'must be one of startDate, detour, price, -price'],
  ])('%j is INVALID_PARAMETER naming %s, before reading anything', async (params, name, rule) => {
    const a: Airport = { icao: 'ZAAA', iata: 'QAA', name: 'A', municipality: null, countryCode: 'FR', countryName: 'France', latitude: 48.9, longitude: 2.4, timeZone: 'UTC', size: 'L' };
    airports = new AirportIndex([a]);
    serve([]);
    ddb.resetHistory();
    const res = await handler(listEvent(params), lambdaContext());
    const body = JSON.parse(res.body!) as { code: string; message: string };
    expect([res.statusCode, body.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(body.message).toContain(`'${name}'`);
    expect(body.message).toContain(rule);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });
});
