// @dateIndependent: fixed instants; the legs, the list function's clock and the benchmark's oracle read one injected clock.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient, type AwsStub } from 'aws-sdk-client-mock';
import { BUCKET_ATTR, toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { dateInZone } from '../../../src/kernel/dates.js';
import { createListHandler, createListRepository } from '../../../src/listing/list-handler.js';
import { DEMO_RATES_FILE, parseEcbRates } from '../../../src/rates/index.js';
import { demoLegs } from '../../../local/demo/index.js';
import { queryMix, type DataLeg, BENCH_FACTS, BENCH_REGISTRY } from '../../../bench/mix.js';
import type { Registry } from '../../../src/sources/registry.js';
import { createServedChecker } from '../../../bench/oracle.js';
import { lambdaContext, listEvent } from '../../support/events.js';
import { testConfig, testDocumentClient } from '../../support/handlers.js';

/**
 * The benchmark's checking across a zone's midnight (issue 45): 15:00 UTC is midnight at UTC+9, when
 * the legs whose last day was that day in Tokyo and Seoul leave the listing. The benchmark's data
 * set (20,000 legs of the demo generator, its seed), its query mix and its oracle
 * (bench/oracle.ts, as bench/run.ts calls it: the functions' clock read before and after each
 * request), and the real list function over those legs (DynamoDB mocked), on one injected clock
 * that runs across the midnight. Checked at the instants served: no error; checked at the run's
 * start, as the benchmark did before: the `total` errors of the 14:55 UTC run.
 */
const START = Date.parse('2026-11-27T14:58:00Z');
const TOKYO_MIDNIGHT = Date.parse('2026-11-27T15:00:00Z');
const TODAY = '2026-11-27';
const SEED = 20_260_301;

/** The list function's reads of `legs` as DynamoDB answers them: a bucket's index entries within the key condition, in sort-key order; items by key; no snapshot. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function serveIndex(ddb: AwsStub<any, any, any>, legs: readonly StoredLeg[]): void {
  const items = legs.map(toStorageItem);
  const byId = new Map(items.map((i) => [i.id as string, i]));
  const byBucket = new Map<string, typeof items>();
  const indexed = items.filter((i) => typeof i.lb === 'string' && typeof i.ls === 'string');
  for (const i of indexed.sort((a, b) => ((a.ls as string) < (b.ls as string) ? -1 : 1))) {
    if (typeof i.lb !== 'string') continue;
    let list = byBucket.get(i.lb);
    if (list === undefined) byBucket.set(i.lb, (list = []));
    list.push(i);
  }
  ddb.on(GetCommand).resolves({});
  ddb.on(QueryCommand).callsFake((input: { KeyConditionExpression: string; ExpressionAttributeValues: Record<string, string> }) => {
    const v = input.ExpressionAttributeValues;
    const lo = input.KeyConditionExpression.includes(':lo') ? v[':lo']! : undefined;
    const hi = input.KeyConditionExpression.includes(':hi') ? v[':hi']! : undefined;
    const found = (byBucket.get(v[':b']!) ?? []).filter((i) => (lo === undefined || (i.ls as string) >= lo) && (hi === undefined || (i.ls as string) <= hi));
    return { Items: found.map((i) => ({ id: i.id, ls: i.ls, lf: i.lf })) };
  });
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => {
    const [table, req] = Object.entries(input.RequestItems)[0]!;
    return { Responses: { [table]: req.Keys.map((k) => byId.get(k.id)).filter(Boolean) } };
  });
}

describe("the benchmark's oracle and the functions read one clock", () => {
  it('checks 20,000 legs across midnight at UTC+9 without an error, where the oracle at the start finds the missing legs', async () => {
    const legs = demoLegs(TODAY, { count: 20_000, months: 12, airports: 200, seed: SEED });
    const data: DataLeg[] = legs.map((leg) => {
      const bucket = toStorageItem(leg)[BUCKET_ATTR];
      return { leg, bucket: typeof bucket === 'string' ? bucket : undefined, itemBytes: 0 };
    });
    // The midnight matters: listed legs whose last day is today in a UTC+9 zone.
    const leaving = legs.filter((l) => l.listed && !l.blocked && ['Asia/Tokyo', 'Asia/Seoul'].includes(l.depTimezone) && l.endDate === dateInZone(new Date(START), l.depTimezone));
    expect(leaving.length).toBeGreaterThan(0);

    const ddb = mockClient(DynamoDBDocumentClient);
    serveIndex(ddb, legs);
    const rateSet = parseEcbRates(readFileSync(DEMO_RATES_FILE, 'utf8'));
    let now = START;
    let step = 0;
    const clock = () => {
      const at = now;
      now += step;
      return at;
    };
    // The list function as bench/run.ts builds it: its settings' clock (the injected one) for its cache and its requests.
    const config = { ...testConfig(), clock };
    // The registry bench/run.ts writes: the grouped searches rank offers by kind and verified.
    const registry: Registry = {
      sources: new Map(
        Object.entries(BENCH_REGISTRY).map(([id, r]) => [
          id,
          { settings: { name: null, kind: r.kind, verified: r.verified === true, verifiedAt: r.verified ? START : null, staleAfterMinutes: null, staleAfterSetAt: null }, history: [] },
        ]),
      ),
      lastLoadedAt: new Map(),
      revision: 1,
    };
    const handler = createListHandler({
      repository: createListRepository(testDocumentClient(), config),
      config,
      clock,
      rates: () => Promise.resolve(rateSet),
      sources: () => Promise.resolve(BENCH_FACTS),
      registry: () => Promise.resolve(registry),
    });
    const list = (params: Record<string, string>) => handler(listEvent(params), lambdaContext());
    const mix = queryMix(TODAY);
    const checker = createServedChecker(data, mix, rateSet);

    /** One round of the mix as bench/run.ts serves it: the clock before, the request, the clock after. */
    const round = async (at: number, perRead = 0) => {
      const served: { index: number; status: number; body: string; from: number; to: number }[] = [];
      for (let index = 0; index < mix.length; index++) {
        now = at;
        step = perRead;
        const from = clock();
        const res = await list(mix[index]!.params);
        const to = clock();
        served.push({ index, status: res.statusCode ?? 0, body: typeof res.body === 'string' ? res.body : '', from, to });
      }
      return served;
    };
    const errorsOf = (served: Awaited<ReturnType<typeof round>>, at?: number) =>
      served.flatMap((s) => checker.check(s.index, s.status, s.body, at ?? s.from, at ?? s.to));

    try {
      const before = await round(START);
      expect(errorsOf(before)).toEqual([]);
      // A request across the midnight: the clock reads 1 ms before it, the function 0 ms after, then 1 ms after.
      const across = await round(TOKYO_MIDNIGHT - 1, 1);
      expect(across.every((s) => s.from < TOKYO_MIDNIGHT && s.to > TOKYO_MIDNIGHT)).toBe(true);
      expect(errorsOf(across)).toEqual([]);
      const after = await round(TOKYO_MIDNIGHT + 60_000);
      expect(errorsOf(after)).toEqual([]);

      // The listing did change at the midnight: the plain listing's total fell by the legs whose last
      // day ended there (in every zone whose date changed).
      const total = (s: { body: string }) => (JSON.parse(s.body) as { data: { total: number } }).data.total;
      const dateAt = (at: number, zone: string) => dateInZone(new Date(at), zone);
      const ended = data.filter(
        ({ leg, bucket }) => bucket !== undefined && leg.listed && !leg.blocked && leg.endDate === dateAt(START, leg.depTimezone) && dateAt(after[0]!.from, leg.depTimezone) !== leg.endDate,
      );
      expect(ended.length).toBeGreaterThanOrEqual(leaving.length);
      expect(total(before[0]!) - total(after[0]!)).toBe(ended.length);
      // The oracle at the run's start, as before: the answers after the midnight are "wrong".
      const atStart = errorsOf(after, START);
      expect(atStart).toContain(`no filter, page 1: total ${total(after[0]!)}, expected ${total(before[0]!)} (at 2026-11-27T14:58:00.000Z)`);
    } finally {
      ddb.restore();
    }
  }, 120_000);
});
