import { afterAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { rejectedContext, verifiedContext } from '../../../src/auth/verdict.js';
import { MAX_QUERY_PAGES_PER_BUCKET, MAX_SEGMENTS_PER_BUCKET } from '../../../src/listing/limits.js';
import { EMPTY_LEG_FIELDS } from '../../../src/kernel/model.js';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { TEST_KEY, lambdaContext, listEvent } from '../../support/events.js';
import { storedLeg } from '../../support/legs.js';
import { buildListHandler, resetListHandler } from '../../support/handlers.js';

const ddb = mockClient(DynamoDBDocumentClient);
// The list function as functions/list-empty-legs/handler.ts builds it, on the default settings.
const { handler, repository } = buildListHandler();
const NOW = new Date('2026-11-21T12:00:00Z');

function leg(id: string, startDate: string, endDate: string, over: Partial<StoredLeg> = {}): StoredLeg {
  return storedLeg({
    id,
    startDate,
    endDate,
    depAirportName: 'Farnborough Airport',
    depAirportIcao: 'EGLF',
    depAirportIata: 'FAB',
    depCountryName: 'United Kingdom',
    depCountryCode: 'GB',
    arrAirportIcao: 'LFMN',
    arrAirportIata: 'NCE',
    arrCountryName: 'France',
    arrCountryCode: 'FR',
    airlineName: 'Example Air',
    aircraftModelName: 'Citation XLS+',
    aircraftType: 'Midsize Jet',
    registration: 'G-ABCD',
    makeYear: 2015,
    seatNum: 8,
    price: 9500.5,
    currency: 'EUR',
    amenities: [{ amenityType: 'wifi', amenityName: 'Wi-Fi', amenityDesc: 'Onboard Wi-Fi' }],
    depTimezone: 'Europe/London',
    ...over,
  });
}

interface QueryInput {
  ExpressionAttributeValues: Record<string, string>;
  ExclusiveStartKey?: { ls: string };
}

/** Answers a Query on the index from `items` as DynamoDB would: the key condition, index order, pages of `pageSize`. */
function queryAnswer(items: Record<string, unknown>[], pageSize: number) {
  return (input: QueryInput) => {
    const { ':b': bucket, ':lo': lo, ':hi': hi } = input.ExpressionAttributeValues;
    const inBucket = items
      .filter((i) => i.lb === bucket && (lo === undefined || (i.ls as string) >= lo) && (hi === undefined || (i.ls as string) <= hi))
      .sort((a, b) => ((a.ls as string) < (b.ls as string) ? -1 : 1))
      .filter((i) => !input.ExclusiveStartKey || (i.ls as string) > input.ExclusiveStartKey.ls);
    const page = inBucket.slice(0, pageSize);
    return {
      Items: page.map((i) => ({ id: i.id, ls: i.ls, lf: i.lf, lb: i.lb })),
      LastEvaluatedKey: inBucket.length > pageSize ? { id: page.at(-1)!.id, lb: bucket, ls: page.at(-1)!.ls } : undefined,
    };
  };
}

/** Serves Query and BatchGet from `legs` as DynamoDB would (index order, sparse index). */
function serve(legs: StoredLeg[], pageSize = 1000) {
  const items = legs.map(toStorageItem);
  ddb.on(QueryCommand).callsFake(queryAnswer(items, pageSize));
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => {
    const [table, req] = Object.entries(input.RequestItems)[0]!;
    return { Responses: { [table]: req.Keys.map((k) => items.find((i) => i.id === k.id)).filter(Boolean) } };
  });
}

interface Body {
  code: string;
  message: string;
  data: { records: Record<string, unknown>[]; total: number; page: number; size: number } | null;
  traceId: string;
}

async function call(params?: Record<string, string>, authorizer = verifiedContext(TEST_KEY)) {
  const context = lambdaContext();
  const res: APIGatewayProxyStructuredResultV2 = await handler(listEvent(params, authorizer), context);
  return { res, body: JSON.parse(res.body ?? '{}') as Body, context };
}

beforeEach(() => {
  resetListHandler(ddb, repository, NOW);
});
afterAll(() => {
  jest.useRealTimers();
});

describe('list-empty-legs handler', () => {
  it('answers 200 with the envelope, records in order, exact fields and the trace id', async () => {
    serve([
      leg('b', '2026-11-25', '2026-11-26'),
      leg('a', '2026-11-25', '2026-11-27'),
      leg('c', '2026-11-23', '2026-11-23'),
      leg('blocked', '2026-11-24', '2026-11-25', { blocked: true }),
      leg('unlisted', '2026-11-24', '2026-11-25', { listed: false }),
    ]);
    const { res, body, context } = await call();
    expect(res.statusCode).toBe(200);
    expect(body.code).toBe('OK');
    expect(body.message).toBe('success');
    expect(body.traceId).toBe(context.awsRequestId);
    expect(res.headers?.['x-trace-id']).toBe(context.awsRequestId);
    expect(res.headers?.['content-type']).toMatch(/^application\/json/);
    expect(body.data?.records.map((r) => r.id)).toEqual(['c', 'a', 'b']);
    expect(body.data).toMatchObject({ total: 3, page: 1, size: 20 });
    const record = body.data!.records[1]!;
    expect(Object.keys(record)).toEqual([...EMPTY_LEG_FIELDS]);
    expect(record.arrAirportName).toBeNull();
    expect(record.renovateYear).toBeNull();
    expect(record.price).toBe(9500.5);
    expect(Object.keys(body)).toEqual(['code', 'message', 'data', 'traceId']);
    expect(res.body).not.toMatch(/"(lb|ls|lf|listed|blocked|depTimezone)"/);
  });

  it('queries only the buckets the window needs, through the index, and never scans', async () => {
    serve([leg('x', '2026-12-10', '2026-12-11')]);
    await call({ depDate: '2026-12-10', offsetDays: '3' });
    const buckets = ddb.commandCalls(QueryCommand).map((c) => c.args[0].input.ExpressionAttributeValues?.[':b'] as string);
    expect(buckets.sort()).toEqual(['2026-11', '2026-12', 'long']);
    for (const c of ddb.commandCalls(QueryCommand)) expect(c.args[0].input.IndexName).toBe('byDepartureBucket');
    // Besides the reads of the listing, only the change log's head and the listing snapshot's
    // manifest (one GetItem each; there is no manifest here, so the index serves).
    const others = ddb.calls().filter((c) => !(c.args[0] instanceof QueryCommand || c.args[0] instanceof BatchGetCommand));
    expect(others.map((c) => [c.args[0].constructor.name, (c.args[0].input as { Key?: unknown }).Key])).toEqual([
      ['GetCommand', { id: '~changes' }],
      ['GetCommand', { id: '~snapshot' }],
    ]);
  });

  it('follows LastEvaluatedKey to the end of each bucket', async () => {
    const legs = Array.from({ length: 7 }, (_, i) => leg(`l${i}`, '2026-12-0' + String(i + 1), '2026-12-09'));
    serve(legs, 2);
    const { body } = await call({ size: '100' });
    expect(body.data?.total).toBe(7);
    expect(body.data?.records.map((r) => r.id)).toEqual(legs.map((l) => l.id));
    // The first page (l0, l1) covered 2 of December's 31 days: the rest (from l1's day on) is read
    // in MAX_SEGMENTS_PER_BUCKET segments by date, the first resuming after l1: l2-l6 in three pages,
    // and one empty page for each of the other two.
    const reads = ddb.commandCalls(QueryCommand).filter((c) => c.args[0].input.ExpressionAttributeValues?.[':b'] === '2026-12');
    expect(reads).toHaveLength(1 + Math.ceil(5 / 2) + (MAX_SEGMENTS_PER_BUCKET - 1));
  });

  it('reads the rest of a bucket of many pages in parallel segments by date, joined in order', async () => {
    // 2 legs a day over December's first 28 days, 3 a page: the first page covers 2 days of 31.
    const legs = Array.from({ length: 56 }, (_, i) => {
      const day = String(1 + Math.floor(i / 2)).padStart(2, '0');
      return leg(`l${String(i).padStart(2, '0')}`, `2026-12-${day}`, '2026-12-31');
    });
    serve(legs, 3);
    // The same answers, each after a microtask (the clock is fake), counting December's reads in flight.
    const answer = queryAnswer(legs.map(toStorageItem), 3);
    let inFlight = 0;
    let most = 0;
    ddb.on(QueryCommand).callsFake(async (input: QueryInput) => {
      const december = input.ExpressionAttributeValues[':b'] === '2026-12';
      if (december) inFlight += 1;
      most = Math.max(most, inFlight);
      await Promise.resolve();
      if (december) inFlight -= 1;
      return answer(input);
    });
    const { body } = await call({ size: '100', depDate: '2026-12-15', offsetDays: '15' });
    expect(body.data?.total).toBe(legs.length);
    expect(body.data?.records.map((r) => r.id)).toEqual(legs.map((l) => l.id));
    expect(most).toBeGreaterThan(1);
    const december = ddb.commandCalls(QueryCommand).filter((c) => c.args[0].input.ExpressionAttributeValues?.[':b'] === '2026-12');
    const conditions = new Set(december.map((c) => JSON.stringify(c.args[0].input.ExpressionAttributeValues)));
    expect(conditions.size).toBe(1 + MAX_SEGMENTS_PER_BUCKET);
    expect(december.length).toBeLessThanOrEqual(MAX_QUERY_PAGES_PER_BUCKET);
  });

  it('reads only the page records in one BatchGetItem and retries unprocessed keys', async () => {
    const legs = Array.from({ length: 30 }, (_, i) => leg(`id${String(i).padStart(2, '0')}`, '2026-12-01', '2026-12-02'));
    serve(legs);
    const items = legs.map(toStorageItem);
    let first = true;
    ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => {
      const [table, req] = Object.entries(input.RequestItems)[0]!;
      const found = req.Keys.map((k) => items.find((i) => i.id === k.id)!);
      if (first) {
        first = false;
        return { Responses: { [table]: found.slice(0, 3) }, UnprocessedKeys: { [table]: { Keys: req.Keys.slice(3) } } };
      }
      return { Responses: { [table]: found } };
    });
    const { body } = await call({ page: '2', size: '10' });
    expect(body.data?.records.map((r) => r.id)).toEqual(legs.slice(10, 20).map((l) => l.id));
    const batches = ddb.commandCalls(BatchGetCommand);
    expect(batches).toHaveLength(2);
    expect(Object.values(batches[0]!.args[0].input.RequestItems!)[0]!.Keys).toHaveLength(10);
  });

  it('answers 503 when BatchGetItem keeps leaving keys unprocessed', async () => {
    serve([leg('a', '2026-11-25', '2026-11-27')]);
    ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => {
      const [table, req] = Object.entries(input.RequestItems)[0]!;
      return { Responses: { [table]: [] }, UnprocessedKeys: { [table]: { Keys: req.Keys } } };
    });
    const { res, body } = await call();
    expect(res.statusCode).toBe(503);
    expect(body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', data: null });
    expect(ddb.commandCalls(BatchGetCommand).length).toBeGreaterThan(1);
  });

  it('clamps page and size and reports the values in effect', async () => {
    serve([leg('a', '2026-11-25', '2026-11-27')]);
    const { body } = await call({ page: '0', size: '1000' });
    expect(body.data).toMatchObject({ page: 1, size: 100, total: 1 });
  });

  it('gives 400 INVALID_PARAMETER in the envelope with data null, without reading the table', async () => {
    const { res, body } = await call({ size: 'abc' });
    expect(res.statusCode).toBe(400);
    expect(body).toMatchObject({ code: 'INVALID_PARAMETER', data: null });
    expect(body.message).toContain("'size'");
    expect(ddb.calls()).toHaveLength(0);
  });

  it('gives an empty page without any read for a window wholly in the past', async () => {
    const { res, body } = await call({ depDate: '2026-11-01' });
    expect(res.statusCode).toBe(200);
    expect(body.data).toEqual({ records: [], total: 0, page: 1, size: 20 });
    expect(ddb.calls()).toHaveLength(0);
  });

  it('refuses to serve without a verified key: 401 API_KEY_MISSING and no read', async () => {
    const { res, body } = await call(undefined, null as never);
    expect(res.statusCode).toBe(401);
    expect(body).toMatchObject({ code: 'API_KEY_MISSING', data: null });
    expect(ddb.calls()).toHaveLength(0);
  });

  it.each([
    ['API_KEY_INVALID', 401],
    ['API_KEY_EXPIRED', 401],
    ['API_KEY_WRONG_ENVIRONMENT', 401],
    ['SERVICE_UNAVAILABLE', 503],
  ] as const)('turns the verdict %s into HTTP %d', async (code, status) => {
    const { res, body } = await call(undefined, rejectedContext(code, `verdict ${code}`));
    expect(res.statusCode).toBe(status);
    expect(body).toMatchObject({ code, message: `verdict ${code}`, data: null });
    expect(ddb.calls()).toHaveLength(0);
  });

  it('gives 403 PERMISSION_DENIED to a key without the scope', async () => {
    const { res, body } = await call(undefined, verifiedContext({ ...TEST_KEY, scopes: ['other:read'] }));
    expect(res.statusCode).toBe(403);
    expect(body.code).toBe('PERMISSION_DENIED');
    expect(body.message).toContain('empty_leg:read');
  });

  it('marks every response to a key in grace with X-API-Key-Deprecated, errors too', async () => {
    serve([]);
    const deprecated = verifiedContext({ ...TEST_KEY, deprecated: true });
    const ok = await call(undefined, deprecated);
    expect(ok.res.headers?.['x-api-key-deprecated']).toBe('true');
    const bad = await call({ page: 'x' }, deprecated);
    expect(bad.res.statusCode).toBe(400);
    expect(bad.res.headers?.['x-api-key-deprecated']).toBe('true');
    const fresh = await call(undefined);
    expect(fresh.res.headers?.['x-api-key-deprecated']).toBeUndefined();
  });

  it('adds Deprecation (rotation, @epoch seconds) and Sunset (grace end, HTTP-date) from the verdict, errors too', async () => {
    serve([]);
    const deprecated = verifiedContext({
      ...TEST_KEY,
      deprecated: true,
      deprecatedAt: '2026-11-21T19:27:14.969Z',
      sunsetAt: '2026-11-28T19:27:14.969Z',
    });
    for (const params of [undefined, { page: 'x' }]) {
      const { res } = await call(params, deprecated);
      expect(res.headers?.deprecation).toBe(`@${Math.floor(Date.UTC(2026, 10, 21, 19, 27, 14, 969) / 1000)}`);
      expect(res.headers?.sunset).toBe('Sat, 28 Nov 2026 19:27:14 GMT');
      expect(res.headers?.['x-content-type-options']).toBe('nosniff');
    }
    const fresh = await call(undefined);
    expect(fresh.res.headers?.deprecation).toBeUndefined();
    expect(fresh.res.headers?.sunset).toBeUndefined();
  });

  it('maps DynamoDB throttling to 503 without the SDK text', async () => {
    ddb.on(QueryCommand).rejects(new ProvisionedThroughputExceededException({ message: 'Rate of requests exceeds the allowed throughput SECRET-DETAIL', $metadata: {} }));
    const { res, body } = await call();
    expect(res.statusCode).toBe(503);
    expect(body.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.body).not.toContain('SECRET-DETAIL');
    expect(res.body).not.toContain('Exceeded');
  });

  it('maps an unexpected error to 500 INTERNAL_ERROR without a stack trace', async () => {
    ddb.on(QueryCommand).rejects(new TypeError('boom at /var/task/index.mjs:1:2'));
    const { res, body } = await call();
    expect(res.statusCode).toBe(500);
    expect(body).toMatchObject({ code: 'INTERNAL_ERROR', data: null });
    expect(res.body).not.toContain('boom');
    expect(res.body).not.toContain('index.mjs');
  });

  it('serves a repeated query from the warm cache without reading the index again', async () => {
    serve([leg('a', '2026-11-25', '2026-11-27')]);
    await call();
    const queries = ddb.commandCalls(QueryCommand).length;
    await call({ depCityName: 'lon' });
    expect(ddb.commandCalls(QueryCommand).length).toBe(queries);
  });
});
