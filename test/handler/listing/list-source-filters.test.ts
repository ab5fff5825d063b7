import { afterAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { createListHandler, createListRepository } from '../../../src/listing/list-handler.js';
import { cachedFacts, cachedRegistry, createSourcesStore } from '../../../src/sources/index.js';
import { SOURCES_ID } from '../../../src/sources/store.js';
import { lambdaContext, listEvent } from '../../support/events.js';
import { storedLeg } from '../../support/legs.js';
import { testConfig, testDocumentClient } from '../../support/handlers.js';

/**
 * The listing's source filters through the list function as functions/list-empty-legs/handler.ts
 * builds it: the legs' sources from the index (mocked Query), kinds and verification from the
 * registry item `~sources` (mocked GetItem), read only by a query that needs it, and cached.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const NOW = new Date('2026-11-21T12:00:00Z');
const config = testConfig();
const client = testDocumentClient();
const repository = createListRepository(client, config);
// Jest's fake timers move Date.now(): the functions' clock in these tests.
const fakeTimersClock = () => Date.now();
/** A new container: its registry cache empty. */
const build = () =>
  createListHandler({ repository, config, clock: fakeTimersClock, sources: cachedFacts(cachedRegistry(createSourcesStore(client, config.legsTableName), { clock: fakeTimersClock })) });
let handler = build();

const leg = (id: string, source: string | undefined, startDate = '2026-11-25'): StoredLeg =>
  storedLeg({ id, startDate, endDate: startDate, depAirportIcao: 'EGLF', arrAirportIcao: 'LFMN', depTimezone: 'Europe/London', ...(source === undefined ? {} : { source }) });
const LEGS = [leg('A1', 'acme-air'), leg('A2', 'acme-air', '2026-11-27'), leg('B1', 'resell-co'), leg('D1', undefined), leg('J1', 'jets-4-u'), leg('Q1', 'quiet')];

const settings = (kind: string, verified: boolean) => ({ name: null, kind, verified, verifiedAt: verified ? NOW.getTime() : null, staleAfterMinutes: null, staleAfterSetAt: null });
let registryItem: Record<string, unknown> = {};
let registryReads = 0;

function serve(legs: StoredLeg[]) {
  const items = legs.map(toStorageItem);
  ddb.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => {
    const bucket = input.ExpressionAttributeValues[':b'];
    return { Items: items.filter((i) => i.lb === bucket).sort((a, b) => (String(a.ls) < String(b.ls) ? -1 : 1)).map((i) => ({ id: i.id, ls: i.ls, lf: i.lf, lb: i.lb })) };
  });
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => {
    const [table, req] = Object.entries(input.RequestItems)[0]!;
    return { Responses: { [table]: req.Keys.map((k) => items.find((i) => i.id === k.id)).filter(Boolean) } };
  });
  ddb.on(GetCommand, { Key: { id: SOURCES_ID } }).callsFake(() => {
    registryReads++;
    return { Item: { id: SOURCES_ID, ...registryItem } };
  });
}

async function ids(params?: Record<string, string>): Promise<{ status: number; ids: string[]; body: Record<string, unknown> }> {
  const res: APIGatewayProxyStructuredResultV2 = await handler(listEvent(params), lambdaContext());
  const body = JSON.parse(res.body ?? '{}') as { data: { records: { id: string }[] } | null };
  return { status: res.statusCode ?? 0, ids: body.data?.records.map((r) => r.id) ?? [], body };
}

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
  repository.clear();
  handler = build();
  registryReads = 0;
  registryItem = {
    rev: 3,
    's.acme-air': settings('operator', true),
    's.resell-co': settings('broker', false),
    // Registered without a kind: unknown, as an unregistered source.
    's.quiet': settings('unknown', true),
  };
  jest.useFakeTimers({ now: NOW, doNotFake: ['setTimeout', 'setImmediate', 'nextTick', 'queueMicrotask'] });
  serve(LEGS);
});
afterAll(() => {
  jest.useRealTimers();
});

describe('list-empty-legs: source, kind, verifiedOnly', () => {
  it('source keeps the legs of the sources named (`default`: loaded without one), without reading the registry', async () => {
    expect((await ids({ source: 'acme-air' })).ids).toEqual(['A1', 'A2']);
    expect((await ids({ source: 'default, jets-4-u' })).ids).toEqual(['D1', 'J1']);
    expect((await ids({ source: 'nobody' })).ids).toEqual([]);
    expect(registryReads).toBe(0);
  });

  it('kind and verifiedOnly read the registry: an unregistered source, or one without a kind, is neither kind', async () => {
    expect((await ids({ kind: 'operator' })).ids).toEqual(['A1', 'A2']);
    expect((await ids({ kind: 'broker' })).ids).toEqual(['B1']);
    expect((await ids({ kind: 'operator,broker' })).ids).toEqual(['A1', 'B1', 'A2']);
    expect((await ids({ verifiedOnly: 'true' })).ids).toEqual(['A1', 'Q1', 'A2']);
    expect((await ids({ verifiedOnly: 'true', kind: 'broker' })).ids).toEqual([]);
    expect((await ids({ verifiedOnly: 'true', source: 'quiet,resell-co' })).ids).toEqual(['Q1']);
    // One read of the registry item for all of them, from the container's cache after it.
    expect(registryReads).toBe(1);
  });

  it('verifiedOnly=false, and no new parameter, answer the listing as it was, without reading the registry', async () => {
    const all = await ids();
    expect(all.ids).toEqual(['A1', 'B1', 'D1', 'J1', 'Q1', 'A2']);
    expect((await ids({ verifiedOnly: 'false' })).ids).toEqual(all.ids);
    expect(registryReads).toBe(0);
  });

  it('follows the registry: a source registered as a kind since is found once the container read it again', async () => {
    expect((await ids({ kind: 'operator' })).ids).toEqual(['A1', 'A2']);
    registryItem = { ...registryItem, rev: 4, 's.jets-4-u': settings('operator', false) };
    // Within the cache's 30 s the container answers from the registry it read (and its memo).
    expect((await ids({ kind: 'operator' })).ids).toEqual(['A1', 'A2']);
    jest.setSystemTime(NOW.getTime() + 31_000);
    await ids({ kind: 'operator' });
    expect((await ids({ kind: 'operator' })).ids).toEqual(['A1', 'J1', 'A2']);
    expect(registryReads).toBe(2);
  });

  it('maxAgeHours keeps the legs confirmed within the hours, and a warm container drops one as it ages past them', async () => {
    const hour = 3_600_000;
    serve([
      { ...leg('F1', 'acme-air'), confirmedAt: NOW.getTime() - 2 * hour },
      { ...leg('F2', 'resell-co'), confirmedAt: NOW.getTime() - 30 * hour },
      leg('F3', 'acme-air'),
    ]);
    expect((await ids({ maxAgeHours: '3' })).ids).toEqual(['F1']);
    expect((await ids({ maxAgeHours: '48' })).ids).toEqual(['F1', 'F2']);
    expect((await ids()).ids).toEqual(['F1', 'F2', 'F3']);
    // One hour and a millisecond later, F1 is 3 hours old: the memo of the first answer does not serve it.
    jest.setSystemTime(NOW.getTime() + hour + 1);
    expect((await ids({ maxAgeHours: '3' })).ids).toEqual([]);
    expect((await ids({ maxAgeHours: '48' })).ids).toEqual(['F1', 'F2']);
  });

  it.each([
    ['maxAgeHours', '721'],
    ['source', 'Acme-Air'],
    ['kind', 'unknown'],
    ['verifiedOnly', 'yes'],
  ])('%s=%s is 400 INVALID_PARAMETER naming it, before any read', async (name, value) => {
    const res = await ids({ [name]: value });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_PARAMETER', data: null });
    expect(String(res.body.message)).toContain(`'${name}'`);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
    expect(registryReads).toBe(0);
  });
});
