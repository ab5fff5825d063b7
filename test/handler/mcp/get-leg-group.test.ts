// @dateIndependent: one fixed instant for the legs and the handlers' clock.
import { describe, expect, it } from '@jest/globals';
import { gunzipSync } from 'node:zlib';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BUCKET_ATTR, toStorageItem } from '../../../src/kernel/leg-item.js';
import { parseIndexItem } from '../../../src/kernel/index-entry.js';
import { createFlightLookup, type FlightLookup } from '../../../src/leg-by-id/flight.js';
import { createGetLegHandler } from '../../../src/leg-by-id/handler.js';
import type { LegsRepository } from '../../../src/listing/index.js';
import { inProcessApi } from '../../../src/mcp/in-process-api.js';
import { callTool } from '../../../src/mcp/server.js';
import { EMPTY_REGISTRY } from '../../../src/sources/index.js';
import { lambdaContext, legEvent } from '../../support/events.js';
import { storedLeg } from '../../support/legs.js';

/**
 * get_empty_leg's `group` (docs/api.md, "MCP"): the by-id route's use case and flight lookup, so
 * the tool's structured answer is the route's `data` and its refusal the route's code and message.
 * Both read one in-memory table: GetItem by id, and the listing index made from the same items.
 */
const NOW = Date.parse('2026-11-27T12:00:00Z');
const clock = () => NOW;
const HOUR = 3_600_000;

const leg = (id: string, registration: string | null, startDate: string, endDate: string, price: number, confirmedAt: number) =>
  toStorageItem(
    storedLeg({
      id, registration, startDate, endDate, price, currency: 'EUR', confirmedAt,
      depCityName: 'Paris', depAirportIcao: 'LFPB', arrCityName: 'Geneva', arrAirportIcao: 'LSGG',
    }),
  );
// One flight offered twice (the registrations differ by a hyphen, the windows overlap), and a leg without a registration.
const ITEMS = [
  leg('op-1', 'F-HCJF', '2026-12-02', '2026-12-04', 12_000, NOW - 2 * HOUR),
  leg('br-1', 'FHCJF', '2026-12-03', '2026-12-03', 11_000, NOW - HOUR),
  leg('solo', null, '2026-12-02', '2026-12-02', 5_000, NOW - HOUR),
];

const repository: LegsRepository = {
  queryBucket: (bucket) =>
    Promise.resolve(
      ITEMS.filter((item) => item[BUCKET_ATTR] === bucket)
        .map((item) => parseIndexItem(item)!)
        .sort((a, b) => a.startDate.localeCompare(b.startDate) || a.id.localeCompare(b.id)),
    ),
  getLegs: (ids) => Promise.resolve(ITEMS.filter((item) => ids.includes(item.id as string))),
};
const readLeg = (id: string) => Promise.resolve(ITEMS.find((item) => item.id === id));
const registry = () => Promise.resolve(EMPTY_REGISTRY);
const lookup = createFlightLookup({ repository, registry });

interface Envelope {
  code: string;
  message: string;
  data: (Record<string, unknown> & { id: string; offerCount?: number; offers?: { id: string }[] }) | null;
}

/** GET /open/v1/empty-legs/{id} with `query`, as functions/get-empty-leg/handler.ts builds the handler. */
async function rest(id: string, query: Record<string, string>, flight: FlightLookup | null = lookup): Promise<Envelope> {
  const handler = createGetLegHandler({ readLeg, clock, registry, ...(flight ? { flight } : {}) });
  const event = { ...legEvent(id), queryStringParameters: query, rawQueryString: new URLSearchParams(query).toString() };
  const res = (await handler(event, lambdaContext())) as { body?: string; isBase64Encoded?: boolean };
  const text = res.isBase64Encoded ? gunzipSync(Buffer.from(res.body ?? '', 'base64')).toString('utf8') : (res.body ?? '');
  return JSON.parse(text) as Envelope;
}

/** get_empty_leg with `args`, run as the MCP function runs it (src/mcp/in-process-api.ts); `null`: no flight lookup given. */
async function tool(args: Record<string, unknown>, flight: FlightLookup | null = lookup): Promise<CallToolResult> {
  const unread = () => Promise.reject(new Error('not read here'));
  const deps = { repository, readLeg, flight: flight ?? undefined, sources: { registry, countListed: unread }, watches: {} as never, clock };
  const api = inProcessApi(deps, undefined, { clientId: 'cli_test', deadlineMs: 5_000, traceId: 'trace' });
  return callTool('get_empty_leg', args, api, ['empty_leg:read']);
}

const text = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('get_empty_leg with group', () => {
  it('group "flight": the flight the leg belongs to, the route\'s own answer, from either of its offers', async () => {
    for (const id of ['op-1', 'br-1']) {
      const route = await rest(id, { group: 'flight' });
      expect([route.data!.id, route.data!.offerCount, route.data!.offers!.map((o) => o.id)]).toEqual(['br-1', 2, ['br-1', 'op-1']]);
      const answer = await tool({ id, group: 'flight' });
      expect([answer.isError, answer.structuredContent]).toEqual([undefined, route.data]);
      expect(text(answer)).toContain('br-1');
    }
    const withBlocks = await tool({ id: 'op-1', group: 'flight', include: 'flight' });
    expect(withBlocks.structuredContent).toEqual((await rest('op-1', { group: 'flight', include: 'flight' })).data);
    // A leg without a registration is a flight of its one offer.
    const alone = await tool({ id: 'solo', group: 'flight' });
    expect(alone.structuredContent).toEqual((await rest('solo', { group: 'flight' })).data);
    expect(alone.structuredContent).toMatchObject({ id: 'solo', offerCount: 1 });
  });

  it('group "leg" or none: the leg alone, as the route answers it', async () => {
    const plain = (await rest('op-1', {})).data;
    expect(plain).not.toHaveProperty('offers');
    expect((await tool({ id: 'op-1' })).structuredContent).toEqual(plain);
    expect((await tool({ id: 'op-1', group: 'leg' })).structuredContent).toEqual((await rest('op-1', { group: 'leg' })).data);
    expect((await tool({ id: 'op-1', group: 'leg' })).structuredContent).toEqual(plain);
  });

  it("refuses as the route does: another value, an unlisted leg, no lookup where it runs", async () => {
    type Case = [Record<string, unknown>, Record<string, string>, FlightLookup | null];
    const cases: Case[] = [
      ...['aircraft', 'Flight', 'flights', ' leg'].map((group): Case => [{ id: 'op-1', group }, { group }, lookup]),
      [{ id: 'nope', group: 'flight' }, { group: 'flight' }, lookup],
      [{ id: 'op-1', group: 'flight' }, { group: 'flight' }, null],
    ];
    for (const [args, query, flight] of cases) {
      const route = await rest(args.id as string, query, flight);
      const answer = await tool(args, flight);
      expect({ args, isError: answer.isError, text: text(answer) }).toEqual({ args, isError: true, text: `${route.code}: ${route.message}` });
    }
    expect(text(await tool({ id: 'op-1', group: 'bogus' }))).toBe("INVALID_PARAMETER: Invalid parameter 'group': must be one of leg, flight");
    expect(text(await tool({ id: 'op-1', group: 'flight' }, null))).toBe('SERVICE_UNAVAILABLE: Flights are not available here');
    // A JSON value of another type is refused as every argument of the wrong type.
    expect(text(await tool({ id: 'op-1', group: true }))).toBe("INVALID_PARAMETER: Invalid parameter 'group': must be a non-empty string (leave it out for none)");
  });
});
