import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { loadFeed } from '../../../src/loading/feed-load.js';
import { cachedRegistry, createSourcesStore } from '../../../src/sources/index.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { lambdaContext, legEvent, listEvent } from '../../support/events.js';
import { buildGetLegHandler, buildListHandler, testConfig } from '../../support/handlers.js';
import { storedLeg } from '../../support/legs.js';

/**
 * `include=provenance,departure` on the listing and the by-id route, on DynamoDB Local: the blocks
 * after the usual fields, from the leg's item and its source's registry entry; without `include`,
 * the very bytes of the answer without it; a bad value is INVALID_PARAMETER naming `include`.
 */
const T0 = Date.parse('2027-03-20T08:00:00Z');
const NOW = T0 + 3_600_000;
const timed = { ...storedLeg({ id: 'P1', startDate: '2027-03-27', endDate: '2027-03-28', depTimezone: 'Europe/London', price: 9000, currency: 'EUR' }), source: 'acme', depTimeFrom: '18:00', depTimeTo: '01:30' };
const plain = { ...storedLeg({ id: 'P2', startDate: '2027-03-29', endDate: '2027-03-30' }), source: 'default' };

let t: TestTables;
beforeAll(async () => {
  t = await createTestTables();
  await loadFeed(t.client, t.legsTableName, { legs: [timed, plain], mode: 'upsert', now: new Date(T0) });
  await createSourcesStore(t.client, t.legsTableName).set('acme', { name: 'Acme Jets', kind: 'operator', verified: true }, { id: 'run-1', at: T0 });
});
afterAll(async () => {
  await t.drop();
});

const bodyOf = (res: APIGatewayProxyResultV2) => {
  const r = res as { body?: string; isBase64Encoded?: boolean };
  return r.isBase64Encoded ? gunzipSync(Buffer.from(r.body ?? '', 'base64')).toString('utf8') : (r.body ?? '');
};

function handlers() {
  const config = testConfig({ LEGS_TABLE_NAME: t.legsTableName, LISTING_CACHE_TTL_SECONDS: '0' });
  const registry = cachedRegistry(createSourcesStore(t.client, t.legsTableName), { clock: () => NOW });
  const list = buildListHandler({ config, client: t.client, clock: () => NOW, registry }).handler;
  const get = buildGetLegHandler({ config, client: t.client, clock: () => NOW, registry }).handler;
  return { list, get };
}

const PROVENANCE = {
  source: 'acme',
  sourceName: 'Acme Jets',
  kind: 'operator',
  verified: true,
  firstSeenAt: new Date(T0).toISOString(),
  updatedAt: new Date(T0).toISOString(),
  confirmedAt: new Date(T0).toISOString(),
  sourceLoadedAt: new Date(T0).toISOString(),
};
// 01:30 on 2027-03-28 is skipped in London (01:00 GMT to 02:00 BST): read as 02:30 BST.
const DEPARTURE = { earliestLocal: '2027-03-27T18:00', latestLocal: '2027-03-28T01:30', earliestUtc: '2027-03-27T18:00:00.000Z', latestUtc: '2027-03-28T01:30:00.000Z' };

describe('include', () => {
  it('adds provenance and departure after the usual fields, on the listing and by id', async () => {
    const { list, get } = handlers();
    const listed = JSON.parse(bodyOf(await list(listEvent({ include: 'provenance,departure' }), lambdaContext()))) as { data: { records: Record<string, unknown>[] } };
    const [p1, p2] = listed.data.records;
    expect(Object.keys(p1!).slice(-2)).toEqual(['provenance', 'departure']);
    expect(p1).toMatchObject({ id: 'P1', provenance: PROVENANCE, departure: DEPARTURE });
    expect(p2).toMatchObject({
      id: 'P2',
      provenance: { source: 'default', sourceName: 'default', kind: 'unknown', verified: false, sourceLoadedAt: new Date(T0).toISOString() },
      departure: { earliestLocal: null, latestLocal: null, earliestUtc: null, latestUtc: null },
    });
    const one = JSON.parse(bodyOf(await get(legEvent('P1'), lambdaContext()))) as { data: Record<string, unknown> };
    const withBlocks = JSON.parse(bodyOf(await get({ ...legEvent('P1'), queryStringParameters: { include: 'departure' } }, lambdaContext()))) as { data: Record<string, unknown> };
    expect(withBlocks.data).toEqual({ ...one.data, departure: DEPARTURE });
    expect(Object.keys(withBlocks.data).at(-1)).toBe('departure');
  });

  it('leaves every record byte for byte as it was without include', async () => {
    const { list } = handlers();
    const without = JSON.parse(bodyOf(await list(listEvent({}), lambdaContext()))) as { data: { records: Record<string, unknown>[] } };
    const withIt = JSON.parse(bodyOf(await list(listEvent({ include: 'provenance' }), lambdaContext()))) as { data: { records: Record<string, unknown>[] } };
    expect(withIt.data.records.map(({ provenance: _p, ...rest }) => JSON.stringify(rest))).toEqual(without.data.records.map((r) => JSON.stringify(r)));
    for (const r of without.data.records) expect(Object.keys(r)).not.toContain('provenance');
  });

  it.each(['provenance,', 'source', 'departure,departure', 'PROVENANCE'])('refuses include=%j as INVALID_PARAMETER naming include', async (value) => {
    const { list, get } = handlers();
    for (const res of [await list(listEvent({ include: value }), lambdaContext()), await get({ ...legEvent('P1'), queryStringParameters: { include: value } }, lambdaContext())]) {
      const body = JSON.parse(bodyOf(res)) as { code: string; message: string };
      expect((res as { statusCode: number }).statusCode).toBe(400);
      expect(body.code).toBe('INVALID_PARAMETER');
      expect(body.message).toContain("'include'");
    }
  });
});
