import { describe, expect, it } from '@jest/globals';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { verifiedContext, type AuthorizerContext } from '../../../src/auth/verdict.js';
import { createSourcesHandler } from '../../../src/sources/handlers.js';
import { cachedRegistry, createSourcesStore } from '../../../src/sources/index.js';
import { SOURCES_ID } from '../../../src/sources/store.js';
import { lambdaContext, listEventWith, TEST_KEY } from '../../support/events.js';
import { testDocumentClient } from '../../support/handlers.js';

/** GET /open/v1/sources: the registry item (mocked DynamoDB) and the listing's counts, the envelope, ETag and 304, the scope. */
const ddb = mockClient(DynamoDBDocumentClient);
const NOW = Date.parse('2026-11-28T12:00:00Z');
const HOUR = 3_600_000;
let counts = new Map<string, number>([['acme', 4], ['resale', 2], ['default', 1]]);
let reads = 0;

function serveRegistry(item: Record<string, unknown> | undefined): void {
  ddb.reset();
  ddb.on(GetCommand, { Key: { id: SOURCES_ID } }).callsFake(() => {
    reads++;
    return { Item: item };
  });
}

const REGISTRY_ITEM = {
  id: SOURCES_ID,
  rev: 4,
  's.acme': { name: 'Acme Aviation', kind: 'operator', verified: true, verifiedAt: NOW - 48 * HOUR, staleAfterMinutes: 120, staleAfterSetAt: NOW - 48 * HOUR },
  'h.acme': [{ at: NOW - 48 * HOUR, run: 'r1', change: { kind: 'operator' } }],
  'l.acme': NOW - 3 * HOUR,
  's.quiet': { name: null, kind: 'broker', verified: false, verifiedAt: null, staleAfterMinutes: null, staleAfterSetAt: null },
  'l.resale': NOW - HOUR,
};

function build(intervalMs = 0) {
  const client = testDocumentClient();
  return createSourcesHandler({
    registry: cachedRegistry(createSourcesStore(client, 'legs'), { clock: () => NOW, intervalMs }),
    countListed: () => Promise.resolve(counts),
    clock: () => NOW,
  });
}

async function call(handler: ReturnType<typeof build>, headers: Record<string, string> = {}, authorizer?: AuthorizerContext) {
  const event = listEventWith(undefined, headers, authorizer ?? verifiedContext(TEST_KEY));
  const res: APIGatewayProxyStructuredResultV2 = await handler({ ...event, rawPath: '/open/v1/sources', routeKey: 'GET /open/v1/sources' }, lambdaContext());
  return { res, body: res.body ? (JSON.parse(res.body) as { code: string; data: { records: Record<string, unknown>[] } | null }) : undefined };
}

describe('GET /open/v1/sources', () => {
  it('answers every registered source and every source with legs, in id order, as the registry and the listing say (a stale source lists none)', async () => {
    serveRegistry(REGISTRY_ITEM);
    const { res, body } = await call(build());
    expect(res.statusCode).toBe(200);
    expect(body!.data!.records).toEqual([
      { id: 'acme', name: 'Acme Aviation', kind: 'operator', verified: true, verifiedAt: new Date(NOW - 48 * HOUR).toISOString(), legsListed: 0, lastLoadedAt: new Date(NOW - 3 * HOUR).toISOString(), staleAfterMinutes: 120, stale: true },
      { id: 'default', name: 'default', kind: 'unknown', verified: false, verifiedAt: null, legsListed: 1, lastLoadedAt: null, staleAfterMinutes: null, stale: false },
      { id: 'quiet', name: 'quiet', kind: 'broker', verified: false, verifiedAt: null, legsListed: 0, lastLoadedAt: null, staleAfterMinutes: null, stale: false },
      { id: 'resale', name: 'resale', kind: 'unknown', verified: false, verifiedAt: null, legsListed: 2, lastLoadedAt: new Date(NOW - HOUR).toISOString(), staleAfterMinutes: null, stale: false },
    ]);
  });

  it("gives each record the issue's fields in its order (id, name, kind, verified, verifiedAt, legsListed, lastLoadedAt, staleAfterMinutes, stale), ids in order", async () => {
    serveRegistry(REGISTRY_ITEM);
    counts = new Map([['zeta', 1], ['acme', 4], ['b-2', 1], ['b', 2], ['default', 1]]);
    const records = (await call(build())).body!.data!.records;
    for (const r of records) expect(Object.keys(r)).toEqual(['id', 'name', 'kind', 'verified', 'verifiedAt', 'legsListed', 'lastLoadedAt', 'staleAfterMinutes', 'stale']);
    expect(records.map((r) => r.id)).toEqual(['acme', 'b', 'b-2', 'default', 'quiet', 'zeta']);
    counts = new Map<string, number>([['acme', 4], ['resale', 2], ['default', 1]]);
  });

  it('answers the sources of the legs only while nothing is registered', async () => {
    serveRegistry(undefined);
    const { body } = await call(build());
    expect(body!.data!.records.map((r) => [r.id, r.kind, r.stale])).toEqual([
      ['acme', 'unknown', false],
      ['default', 'unknown', false],
      ['resale', 'unknown', false],
    ]);
  });

  it('answers 304 to the current ETag, and 200 with a new one once a count or the registry moved', async () => {
    serveRegistry(REGISTRY_ITEM);
    const handler = build();
    const etag = String((await call(handler)).res.headers?.etag);
    expect(etag).toMatch(/^W\/"/);
    expect((await call(handler, { 'if-none-match': etag })).res.statusCode).toBe(304);
    counts = new Map([...counts, ['resale', 3]]);
    const moved = await call(handler, { 'if-none-match': etag });
    expect(moved.res.statusCode).toBe(200);
    expect(moved.res.headers?.etag).not.toBe(etag);
    serveRegistry({ ...REGISTRY_ITEM, rev: 5, 'l.acme': NOW });
    // A warm container answers from the registry it holds while it reads it again.
    await call(handler);
    expect((await call(handler, { 'if-none-match': String(moved.res.headers?.etag) })).body!.data!.records[0]!.stale).toBe(false);
  });

  it('reads the registry once per interval in a warm container', async () => {
    serveRegistry(REGISTRY_ITEM);
    reads = 0;
    const handler = build(30_000);
    await Promise.all([call(handler), call(handler), call(handler)]);
    await call(handler);
    expect(reads).toBe(1);
  });

  it('refuses a key without empty_leg:read before reading anything', async () => {
    serveRegistry(REGISTRY_ITEM);
    reads = 0;
    const { res, body } = await call(build(), {}, verifiedContext({ ...TEST_KEY, scopes: ['watch:read'] }));
    expect(res.statusCode).toBe(403);
    expect(body!.code).toBe('PERMISSION_DENIED');
    expect(reads).toBe(0);
  });
});
