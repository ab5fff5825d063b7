import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { AirportIndex, type Airport } from '../../../src/airports/reference.js';
import type { StoredLeg } from '../../../src/kernel/leg-item.js';
import { lambdaContext, listEvent } from '../../support/events.js';
import { fcParams } from '../../support/fast-check.js';
import { airportsArb, onTheEdge, referenceKm } from '../../support/airports.js';
import { storedLeg } from '../../support/legs.js';
import { serveLegs } from '../../support/serve-legs.js';
import { buildListHandler } from '../../support/handlers.js';

/**
 * Nearby search through the list function (docs/api.md, "Nearby"), over generated airports (the
 * poles and the antimeridian among them, injected as the airport reference) and generated legs
 * placed at them by ICAO code, IATA code, both, codes no airport has, or none. The expected page is
 * a brute-force reference: each leg placed as docs/api.md says (its ICAO code's airport, else its
 * IATA code's), measured with @turf/distance, combined by AND with the airport-code filter, then
 * sorted, counted and sliced.
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

type Placement = 'both' | 'icao' | 'iata' | 'unknown' | 'none' | 'mixed';

function codesOf(a: Airport, other: Airport, how: Placement): [string | null, string | null] {
  switch (how) {
    case 'both':
      return [a.icao, a.iata];
    case 'icao':
      return [a.icao, null];
    case 'iata':
      return [null, a.iata];
    case 'unknown':
      return ['YYYY', 'YYY'];
    case 'none':
      return [null, null];
    case 'mixed':
      // kept with --allow-unknown-airports: the ICAO code places the leg
      return [a.icao, other.iata];
  }
}

const caseArb = airportsArb(25).chain((list) => {
  const pick = fc.nat(list.length - 1).map((i) => list[i]!);
  const placement = fc.constantFrom<Placement>('both', 'both', 'icao', 'iata', 'unknown', 'none', 'mixed');
  const leg = fc.record({ dep: pick, depOther: pick, depHow: placement, arr: pick, arrOther: pick, arrHow: placement, start: fc.integer({ min: 0, max: 20 }) });
  const centre = fc.record({ airport: pick, byIata: fc.boolean(), radius: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }) });
  return fc.record({
    airports: fc.constant(list),
    legs: fc.array(leg, { maxLength: 25 }),
    dep: fc.option(centre, { nil: undefined }),
    arr: fc.option(centre, { nil: undefined }),
    depCode: fc.option(pick.map((a) => a.icao ?? a.iata!), { nil: undefined, freq: 4 }),
    size: fc.integer({ min: 1, max: 30 }),
  });
});

const codeOfCentre = (c: { airport: Airport; byIata: boolean }) => (c.byIata ? (c.airport.iata ?? c.airport.icao!) : (c.airport.icao ?? c.airport.iata!));

describe('nearby search (depNear, arrNear) through the list function', () => {
  it('lists exactly the legs a brute-force great-circle reference places within the radius', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        airports = new AirportIndex(c.airports);
        const legs = c.legs.map((l, i) => {
          const [depIcao, depIata] = codesOf(l.dep, l.depOther, l.depHow);
          const [arrIcao, arrIata] = codesOf(l.arr, l.arrOther, l.arrHow);
          return storedLeg({
            id: `L${String(i).padStart(2, '0')}`,
            startDate: `2026-12-${String(1 + l.start).padStart(2, '0')}`,
            endDate: '2026-12-25',
            depAirportIcao: depIcao,
            depAirportIata: depIata,
            arrAirportIcao: arrIcao,
            arrAirportIata: arrIata,
          });
        });
        serve(legs);
        repository.clear();

        // The reference: a leg's place by its codes, the distance by turf.
        const byIcao = new Map(c.airports.filter((a) => a.icao).map((a) => [a.icao!, a]));
        const byIata = new Map(c.airports.filter((a) => a.iata).map((a) => [a.iata!, a]));
        const place = (icao: string | null, iata: string | null) => (icao !== null ? byIcao.get(icao) : iata !== null ? byIata.get(iata) : undefined);
        const within = (icao: string | null, iata: string | null, centre: (typeof c)['dep']) => {
          if (centre === undefined) return true;
          const at = place(icao, iata);
          if (at === undefined) return false;
          const km = referenceKm(centre.airport, at);
          const radius = centre.radius ?? 100;
          fc.pre(!onTheEdge(km, radius));
          return km <= radius;
        };
        const code = c.depCode?.toLowerCase();
        const expected = legs
          .filter((l) => within(l.depAirportIcao, l.depAirportIata, c.dep) && within(l.arrAirportIcao, l.arrAirportIata, c.arr))
          .filter((l) => code === undefined || (code.length === 4 ? l.depAirportIcao : l.depAirportIata)?.toLowerCase() === code)
          .sort((a, b) => (a.startDate !== b.startDate ? (a.startDate < b.startDate ? -1 : 1) : a.id < b.id ? -1 : 1));

        const params: Record<string, string> = { size: String(c.size) };
        if (c.dep) params.depNear = codeOfCentre(c.dep);
        if (c.dep?.radius !== undefined) params.depRadiusKm = String(c.dep.radius);
        if (c.arr) params.arrNear = codeOfCentre(c.arr).toLowerCase();
        if (c.arr?.radius !== undefined) params.arrRadiusKm = String(c.arr.radius);
        if (c.depCode) params.depAirportCode = c.depCode;
        const res = await handler(listEvent(params), lambdaContext());
        const body = JSON.parse(res.body!) as { code: string; data: { records: { id: string }[]; total: number } };
        expect(body.code).toBe('OK');
        expect(body.data.total).toBe(expected.length);
        expect(body.data.records.map((r) => r.id)).toEqual(expected.slice(0, c.size).map((l) => l.id));
      }),
      fcParams(1500),
    );
  });

  it('refuses a centre no airport has with INVALID_PARAMETER naming the parameter, before reading anything', async () => {
    airports = new AirportIndex([]);
    serve([]);
    ddb.resetHistory();
    for (const [name, value] of [['depNear', 'ZZZZ'], ['arrNear', 'QQQ']] as const) {
      const res = await handler(listEvent({ [name]: value }), lambdaContext());
      const body = JSON.parse(res.body!) as { code: string; message: string };
      expect([res.statusCode, body.code]).toEqual([400, 'INVALID_PARAMETER']);
      expect(body.message).toContain(`'${name}'`);
      expect(body.message).toContain(value);
    }
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });
});
