import { describe, expect, it } from '@jest/globals';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { lambdaContext, legEvent, listEvent } from '../../support/events.js';
import { fcParams } from '../../support/fast-check.js';
import { refDate, refParse } from '../../support/gregorian.js';
import { buildGetLegHandler, buildListHandler, testConfig } from '../../support/handlers.js';
import { storedLeg } from '../../support/legs.js';

/**
 * The by-id route against the listing, over generated legs (expired, blocked and unlisted ones
 * included) and a generated clock: a leg is served by id if and only if it appears in the
 * unfiltered listing (every page of it, read through the real list function), and both agree with
 * a plain reference written here from docs/api.md (listed, not blocked, endDate not passed in the
 * departure's zone). Whatever is served by id is the listing's record, byte for byte. Ids that were
 * never loaded are 404 like the rest. FC_NUM_RUNS sets the number of cases (default 600).
 */
const ddb = mockClient(DynamoDBDocumentClient);
let now = new Date('2026-11-21T12:00:00Z');
const clock = () => now.getTime();
// The cache off: every case reads its own fixture.
const { handler: list } = buildListHandler({ config: testConfig({ LISTING_CACHE_TTL_SECONDS: '0' }), clock });
const { handler: byId } = buildGetLegHandler({ clock });

const BASE_DAY = refParse('2026-11-21');
const BASE_MS = Date.UTC(2026, 10, 21);
const DAY_MS = 86_400_000;
const ZONES = ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/St_Johns', 'Asia/Kathmandu', 'Australia/Lord_Howe'];
/** Their UTC offsets in November, in minutes (Lord Howe on summer time). */
const ZONE_OFFSET_MINUTES = [0, 14 * 60, -11 * 60, -(3 * 60 + 30), 5 * 60 + 45, 11 * 60];

const caseArb = fc.record({
  /**
   * The clock: within two days of BASE, to any minute, or a few minutes around a midnight of one of
   * the zones (where a leg expires), so that zones' dates straddle it.
   */
  nowMs: fc.oneof(
    fc.integer({ min: -DAY_MS, max: 2 * DAY_MS }).map((d) => BASE_MS + Math.floor(d / 60_000) * 60_000),
    fc
      .tuple(fc.integer({ min: -1, max: 2 }), fc.constantFrom(...ZONE_OFFSET_MINUTES), fc.integer({ min: -1, max: 1 }))
      .map(([day, offset, delta]) => BASE_MS + day * DAY_MS + (delta - offset) * 60_000),
  ),
  legs: fc.array(
    fc.record({
      start: fc.oneof(fc.integer({ min: -20, max: 360 }), fc.integer({ min: -6, max: 1 })),
      span: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 40 })),
      zone: fc.constantFrom(...ZONES),
      listed: fc.integer({ min: 0, max: 5 }).map((n) => n !== 0),
      blocked: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
    }),
    { maxLength: 25 },
  ),
});

function fixture(legs: { start: number; span: number; zone: string; listed: boolean; blocked: boolean }[]): StoredLeg[] {
  return legs.map((r, i) =>
    storedLeg({
      id: `G-${i}`,
      startDate: refDate(BASE_DAY + r.start),
      endDate: refDate(BASE_DAY + r.start + r.span),
      depTimezone: r.zone,
      listed: r.listed,
      blocked: r.blocked,
      price: 100 + i,
    }),
  );
}

/** DynamoDB over `items`: Query by bucket and sort-key range (one page), BatchGetItem and GetItem by id. */
function serve(items: Record<string, unknown>[]): void {
  const byId = new Map(items.map((i) => [i.id as string, i]));
  ddb.reset();
  ddb.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => {
    const { ':b': bucket, ':lo': lo, ':hi': hi } = input.ExpressionAttributeValues;
    const ls = (i: Record<string, unknown>) => i.ls as string;
    const inRange = items.filter((i) => i.lb === bucket && (lo === undefined || ls(i) >= lo) && (hi === undefined || ls(i) <= hi));
    return { Items: inRange.sort((a, b) => (ls(a) < ls(b) ? -1 : 1)).map((i) => ({ ls: i.ls, lf: i.lf })) };
  });
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => {
    const [table, req] = Object.entries(input.RequestItems)[0]!;
    return { Responses: { [table]: req.Keys.flatMap((k) => byId.get(k.id) ?? []) } };
  });
  ddb.on(GetCommand).callsFake((input: { Key: { id: string } }) => ({ Item: byId.get(input.Key.id) }));
}

interface Envelope<T> {
  code: string;
  data: T;
}

/** Every record of the unfiltered listing, page after page. */
async function wholeListing(): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const res = await list(listEvent({ size: '7', page: String(page) }), lambdaContext());
    const body = JSON.parse(res.body ?? '') as Envelope<{ records: Record<string, unknown>[]; total: number }>;
    records.push(...body.data.records);
    if (body.data.records.length === 0 || records.length >= body.data.total) return records;
  }
}

/** The reference: listed, not blocked, endDate on or after today in the departure's zone. */
function referenceIds(legs: StoredLeg[], at: Date): string[] {
  const localToday = (zone: string) => refParse(new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(at));
  return legs.filter((l) => l.listed && !l.blocked && refParse(l.endDate) >= localToday(l.depTimezone)).map((l) => l.id);
}

describe('GET /open/v1/empty-legs/{id} against the listing (property)', () => {
  it('serves a leg by id iff the unfiltered listing lists it, with the same record', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ nowMs, legs: raw }) => {
        now = new Date(nowMs);
        const legs = fixture(raw);
        serve(legs.map(toStorageItem));
        const listed = new Map((await wholeListing()).map((r) => [r.id as string, r]));
        expect([...listed.keys()].sort()).toEqual(referenceIds(legs, now).sort());
        for (const id of [...legs.map((l) => l.id), 'G-never-loaded']) {
          const res = await byId(legEvent(id), lambdaContext());
          const body = JSON.parse(res.body ?? '') as Envelope<Record<string, unknown> | null>;
          if (listed.has(id)) {
            expect(res.statusCode).toBe(200);
            expect(body.data).toEqual(listed.get(id));
          } else {
            expect(res.statusCode).toBe(404);
            expect(body.code).toBe('NOT_FOUND');
          }
        }
      }),
      fcParams(600),
    );
  });
});
