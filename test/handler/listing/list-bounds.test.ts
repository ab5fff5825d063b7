import { afterAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { MAX_BATCH_GET_ATTEMPTS } from '../../../src/aws/batch-limits.js';
import { MAX_BUCKET_READS, MAX_QUERY_CALLS, MAX_QUERY_PAGES_PER_BUCKET, MAX_SEGMENTS_PER_BUCKET } from '../../../src/listing/limits.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { lambdaContext, listEvent } from '../../support/events.js';
import { storedLeg } from '../../support/legs.js';
import { buildListHandler, resetListHandler } from '../../support/handlers.js';

/** The bound on DynamoDB calls per request, made to happen against a mocked table that never ends. */
const ddb = mockClient(DynamoDBDocumentClient);
// The list function as functions/list-empty-legs/handler.ts builds it, on the default settings.
const { handler, repository } = buildListHandler();
const NOW = new Date('2026-11-21T12:00:00Z');

beforeEach(() => {
  resetListHandler(ddb, repository, NOW);
});
afterAll(() => {
  jest.useRealTimers();
});

async function call(params: Record<string, string>) {
  const res = await handler(listEvent(params), lambdaContext());
  return { status: res.statusCode, body: JSON.parse(res.body ?? 'null') as { code: string; data: unknown } };
}

describe('bounded work per request', () => {
  it('depDate=9999-12-20 reads only the long bucket, once (it planned 1,079,883 queries before)', async () => {
    ddb.on(QueryCommand).resolves({ Items: [] });
    const { status, body } = await call({ depDate: '9999-12-20', offsetDays: '15' });
    expect([status, body.code]).toEqual([200, 'OK']);
    const buckets = ddb.commandCalls(QueryCommand).map((c) => String(c.args[0].input.ExpressionAttributeValues?.[':b']));
    expect(buckets).toEqual(['long']);
  });

  it('reads at most MAX_BUCKET_READS buckets without depDate', async () => {
    ddb.on(QueryCommand).resolves({ Items: [] });
    await call({});
    const calls = ddb.commandCalls(QueryCommand).length;
    expect(calls).toBeGreaterThan(2);
    expect(calls).toBeLessThanOrEqual(MAX_BUCKET_READS);
  });

  it('stops a bucket that never ends after MAX_QUERY_PAGES_PER_BUCKET pages and answers 500 in the envelope, not a short total', async () => {
    const leg = toStorageItem(storedLeg({ id: 'a', startDate: '2026-12-01', endDate: '2026-12-02' }));
    ddb.on(QueryCommand).callsFake(() => ({ Items: [{ id: leg.id, ls: leg.ls, lf: leg.lf }], LastEvaluatedKey: { id: 'a', lb: leg.lb, ls: leg.ls } }));
    const { status, body } = await call({ depDate: '2026-12-01' });
    expect([status, body.code, body.data]).toEqual([500, 'INTERNAL_ERROR', null]);
    const perBucket = new Map<string, number>();
    for (const c of ddb.commandCalls(QueryCommand)) {
      const b = String(c.args[0].input.ExpressionAttributeValues?.[':b']);
      perBucket.set(b, (perBucket.get(b) ?? 0) + 1);
    }
    expect(Math.max(...perBucket.values())).toBe(MAX_QUERY_PAGES_PER_BUCKET);
  });

  it('reads every bucket in parallel segments when none ends, and still stops each at MAX_QUERY_PAGES_PER_BUCKET pages, MAX_QUERY_CALLS in all', async () => {
    // Every page of every bucket ends with a key on its bucket's first day: the first page covers
    // one day, so the rest of each month is split into the most segments, and no segment ever ends.
    let inFlight = 0;
    let most = 0;
    ddb.on(QueryCommand).callsFake(async (input: { ExpressionAttributeValues: Record<string, string> }) => {
      const bucket = input.ExpressionAttributeValues[':b']!;
      const day = bucket === 'long' ? '2026-11-20' : `${bucket}-01`;
      const leg = toStorageItem(storedLeg({ id: `in-${bucket}`, startDate: day, endDate: day }));
      inFlight += 1;
      most = Math.max(most, inFlight);
      await Promise.resolve();
      inFlight -= 1;
      return { Items: [{ ls: leg.ls, lf: leg.lf }], LastEvaluatedKey: { id: leg.id, lb: bucket, ls: leg.ls } };
    });
    const { status, body } = await call({});
    expect([status, body.code]).toEqual([500, 'INTERNAL_ERROR']);
    const calls = ddb.commandCalls(QueryCommand);
    const perBucket = new Map<string, number>();
    for (const c of calls) {
      const b = String(c.args[0].input.ExpressionAttributeValues?.[':b']);
      perBucket.set(b, (perBucket.get(b) ?? 0) + 1);
    }
    expect(perBucket.size).toBeLessThanOrEqual(MAX_BUCKET_READS);
    expect(Math.max(...perBucket.values())).toBeLessThanOrEqual(MAX_QUERY_PAGES_PER_BUCKET);
    expect(calls.length).toBeLessThanOrEqual(MAX_QUERY_CALLS);
    // In flight at once: never more than a segment per bucket read at a time (under the agent's 50 sockets).
    expect(most).toBeGreaterThan(MAX_BUCKET_READS);
    expect(most).toBeLessThanOrEqual(MAX_BUCKET_READS * MAX_SEGMENTS_PER_BUCKET);
  });

  it('gives up on BatchGetItem after MAX_BATCH_GET_ATTEMPTS requests that leave keys unprocessed', async () => {
    const leg = toStorageItem(storedLeg({ id: 'a', startDate: '2026-12-01', endDate: '2026-12-02' }));
    ddb.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => ({
      Items: input.ExpressionAttributeValues[':b'] === leg.lb ? [{ id: leg.id, ls: leg.ls, lf: leg.lf }] : [],
    }));
    ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: unknown[] }> }) => {
      const [table, req] = Object.entries(input.RequestItems)[0]!;
      return { Responses: { [table]: [] }, UnprocessedKeys: { [table]: { Keys: req.Keys } } };
    });
    const { status, body } = await call({ depDate: '2026-12-01' });
    expect([status, body.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(MAX_BATCH_GET_ATTEMPTS);
  }, 20_000);
});
