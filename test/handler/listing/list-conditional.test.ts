import { afterAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { verifiedContext } from '../../../src/auth/verdict.js';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { TEST_KEY, lambdaContext, listEventWith } from '../../support/events.js';
import { buildListHandler, resetListHandler, testConfig } from '../../support/handlers.js';
import { storedLeg } from '../../support/legs.js';

/**
 * GET /open/v1/empty-legs with If-None-Match: the list function as functions/list-empty-legs/handler.ts
 * builds it, DynamoDB mocked (the cache off, so every request reads what `serve` was last given).
 */
const ddb = mockClient(DynamoDBDocumentClient);
const { handler, repository } = buildListHandler({ config: testConfig({ LISTING_CACHE_TTL_SECONDS: '0' }) });
const NOW = new Date('2026-11-21T12:00:00Z');

function serve(legs: StoredLeg[]): void {
  const items = legs.map(toStorageItem);
  ddb.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => ({
    Items: items.filter((i) => i.lb === input.ExpressionAttributeValues[':b']).sort((a, b) => ((a.ls as string) < (b.ls as string) ? -1 : 1)),
  }));
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => {
    const [table, req] = Object.entries(input.RequestItems)[0]!;
    return { Responses: { [table]: req.Keys.map((k) => items.find((i) => i.id === k.id)).filter(Boolean) } };
  });
}

async function call(params: Record<string, string> | undefined, headers: Record<string, string> = {}, key = TEST_KEY) {
  const context = lambdaContext();
  const res = await handler(listEventWith(params, headers, verifiedContext(key)), context);
  return { res, etag: res.headers?.etag, context };
}

const legs = Array.from({ length: 30 }, (_, i) =>
  storedLeg({ id: `leg-${String(i).padStart(2, '0')}`, startDate: '2026-11-22', endDate: i < 5 ? '2026-11-22' : '2026-11-30', price: 1000 + i }),
);

beforeEach(() => {
  resetListHandler(ddb, repository, NOW);
  serve(legs);
});
afterAll(() => {
  jest.useRealTimers();
});

describe('list-empty-legs handler: ETag and If-None-Match', () => {
  it('gives the same weak tag for the same page, whatever the trace id or gzip, and 304 for it', async () => {
    const first = await call({ size: '100' });
    expect(first.etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    const zipped = await call({ size: '100' }, { 'accept-encoding': 'gzip' });
    expect(zipped.res.headers?.['content-encoding']).toBe('gzip');
    expect(zipped.etag).toBe(first.etag);
    const again = await call({ size: '100' }, { 'if-none-match': String(first.etag), 'accept-encoding': 'gzip' });
    expect(again.res.statusCode).toBe(304);
    expect(again.res.body).toBe('');
    expect(again.res.isBase64Encoded).toBeFalsy();
    expect(again.res.headers).toMatchObject({ etag: first.etag, 'x-trace-id': again.context.awsRequestId, vary: 'Accept-Encoding' });
    expect(again.res.headers?.['content-encoding']).toBeUndefined();
  });

  it('changes the tag with another page, another size, or a filter, and answers those 200', async () => {
    const queries: Record<string, string>[] = [{ size: '10' }, { size: '10', page: '2' }, { size: '11' }, { size: '10', depCityName: 'lond' }];
    const tags = await Promise.all(queries.map((p) => call(p)));
    const [p1, p2, other, filtered] = tags.map((t) => t.etag);
    expect(new Set([p1, p2, other]).size).toBe(3);
    // The filter matches every leg here, so the data, and the tag, are those of the unfiltered page.
    expect(filtered).toBe(p1);
    expect((await call({ size: '10', page: '2' }, { 'if-none-match': String(p1) })).res.statusCode).toBe(200);
  });

  it('changes the tag when a leg changes or leaves the listing', async () => {
    const before = (await call({ size: '100' })).etag;
    serve(legs.map((l) => (l.id === 'leg-10' ? { ...l, price: 1 } : l)));
    const changed = await call({ size: '100' }, { 'if-none-match': String(before) });
    expect(changed.res.statusCode).toBe(200);
    expect(changed.etag).not.toBe(before);
    serve(legs.filter((l) => l.id !== 'leg-10'));
    expect((await call({ size: '100' })).etag).not.toBe(changed.etag);
  });

  it('changes the tag when a leg expires, with nothing written', async () => {
    const before = await call({ size: '100' });
    // Legs 0-4 end on 22 November (UTC): from the 23rd they are expired.
    jest.setSystemTime(new Date('2026-11-23T00:00:00Z'));
    const after = await call({ size: '100' }, { 'if-none-match': String(before.etag) });
    expect(after.res.statusCode).toBe(200);
    expect(after.etag).not.toBe(before.etag);
    expect((JSON.parse(after.res.body ?? '{}') as { data: { total: number } }).data.total).toBe(25);
  });

  it('keeps the deprecation headers on a 304, and never turns an error into a 304', async () => {
    const { etag } = await call(undefined);
    const deprecated = { ...TEST_KEY, deprecated: true, deprecatedAt: '2026-11-20T00:00:00.000Z', sunsetAt: '2026-11-27T00:00:00.000Z' };
    const notModified = await call(undefined, { 'if-none-match': String(etag) }, deprecated);
    expect(notModified.res.statusCode).toBe(304);
    expect(notModified.res.headers).toMatchObject({ 'x-api-key-deprecated': 'true', sunset: 'Fri, 27 Nov 2026 00:00:00 GMT' });
    const bad = await call({ size: 'x' }, { 'if-none-match': '*' });
    expect(bad.res.statusCode).toBe(400);
  });
});
