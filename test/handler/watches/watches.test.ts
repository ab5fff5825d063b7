import { beforeEach, describe, expect, it } from '@jest/globals';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { AirportIndex } from '../../../src/airports/reference.js';
import { verifiedContext, type VerifiedKey } from '../../../src/auth/verdict.js';
import { fixedClock } from '../../../src/clock.js';
import { createWatchesHandler } from '../../../src/watches/handlers.js';
import { MAX_WATCHES_PER_CLIENT } from '../../../src/watches/resource.js';
import { INCLUDE_RULE } from '../../../src/kernel/leg/blocks.js';
import { cachedRates, createRatesStore, RATES_ID } from '../../../src/rates/index.js';
import { lambdaContext, listEvent } from '../../support/events.js';

/**
 * The watches function (src/watches/handlers.ts) with a mocked DynamoDB: the route's scope (and
 * empty_leg:read for POST), the body's parsing with @middy/http-json-body-parser mapped to the
 * envelope, the client's ownership, the per-client limit.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const client = DynamoDBDocumentClient.from(new (await import('@aws-sdk/client-dynamodb')).DynamoDBClient({ region: 'us-east-1' }));
const handler = createWatchesHandler({
  tables: { client, watchesTableName: 'watches', deliveriesTableName: 'deliveries' },
  airports: () => new AirportIndex([]),
  targets: 'public',
  resolver: (host) => Promise.resolve(host.endsWith('.internal.example') ? [{ address: '10.0.0.7', family: 4 }] : [{ address: '93.184.216.34', family: 4 }]),
  clock: fixedClock('2026-11-21T12:00:00Z'),
  rates: cachedRates(createRatesStore(client, 'legs'), { clock: fixedClock('2026-11-21T12:00:00Z') }),
});
const KEY: VerifiedKey = {
  keyId: 'key_test0000000000000001',
  clientId: 'cli_AAAAAAAAAAAAAAAAAAAA',
  scopes: ['empty_leg:read', 'watch:read', 'watch:write'],
  environment: 'test',
  deprecated: false,
};

function event(method: string, path: string, route: string, options: { body?: string; key?: VerifiedKey; type?: string; id?: string } = {}): APIGatewayProxyEventV2 {
  const base = listEvent(undefined, verifiedContext(options.key ?? KEY));
  return {
    ...base,
    routeKey: `${method} ${route}`,
    rawPath: path,
    headers: { ...base.headers, ...(options.body !== undefined ? { 'content-type': options.type ?? 'application/json' } : {}) },
    ...(options.id !== undefined ? { pathParameters: { id: options.id } } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
    requestContext: { ...base.requestContext, routeKey: `${method} ${route}`, http: { ...base.requestContext.http, method, path } },
  };
}
const post = (body: string, options: { key?: VerifiedKey; type?: string } = {}) => event('POST', '/open/v1/watches', '/open/v1/watches', { body, ...options });
async function call(e: APIGatewayProxyEventV2): Promise<{ status: number; body: { code: string; message: string; data: Record<string, unknown> | null } }> {
  const res = await handler(e, lambdaContext());
  return { status: res.statusCode ?? 0, body: JSON.parse(res.body ?? '{}') as { code: string; message: string; data: Record<string, unknown> | null } };
}

/** The transaction items that put a watch (src/watches/counted-writes.ts: the client's count, then the watch). */
const watchPuts = () => ddb.commandCalls(TransactWriteCommand).flatMap((c) => (c.args[0].input.TransactItems ?? []).flatMap((i) => (i.Put ? [i.Put] : [])));
const watchDeletes = () => ddb.commandCalls(TransactWriteCommand).flatMap((c) => (c.args[0].input.TransactItems ?? []).flatMap((i) => (i.Delete ? [i.Delete] : [])));

beforeEach(() => {
  ddb.reset();
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(GetCommand).resolves({});
  ddb.on(QueryCommand).resolves({ Count: 0, Items: [] });
  ddb.on(PutCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
});

describe('POST /open/v1/watches', () => {
  it('201 with the watch and its secret, stored under the key\'s client', async () => {
    const r = await call(post(JSON.stringify({ url: 'https://hooks.example.com/x', filters: { minSeats: '4' } })));
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ url: 'https://hooks.example.com/x', filters: { minSeats: 4 }, status: 'active', createdAt: '2026-11-21T12:00:00.000Z' });
    expect(r.body.data!.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const put = watchPuts()[0]!;
    expect(put.Item).toMatchObject({ clientId: KEY.clientId, filters: { minSeats: '4' } });
    // The watches version is bumped: the matchers reload.
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input.Key).toEqual({ clientId: '~version', watchId: '~version' });
  });

  it.each([
    [['watch:write'], "lacks the scope 'empty_leg:read'"],
    [['empty_leg:read', 'watch:read'], "lacks the scope 'watch:write'"],
  ])('403 for a key with %j', async (scopes, message) => {
    const r = await call(post(JSON.stringify({ url: 'https://hooks.example.com/x' }), { key: { ...KEY, scopes } }));
    expect([r.status, r.body.code]).toEqual([403, 'PERMISSION_DENIED']);
    expect(r.body.message).toContain(message);
    expect(watchPuts()).toHaveLength(0);
  });

  it.each(([
    ['{"url":', 'application/json', "Invalid parameter 'body': must be JSON"],
    ['{"url":"https://hooks.example.com/x"}', 'text/plain', "Invalid parameter 'body': must be sent as JSON (Content-Type: application/json)"],
    ['[1]', 'application/json', "Invalid parameter 'body': must be a JSON object"],
    ['{"url":"https://hooks.example.com/x","secret":"whsec_x"}', 'application/json', "Invalid parameter 'body': unknown field 'secret': a watch has url, filters, description, include and group"],
    ['{"url":"http://hooks.example.com/x"}', 'application/json', "Invalid parameter 'url': must be https"],
    ['{"url":"https://[::1]/x"}', 'application/json', "Invalid parameter 'url': must be a public address"],
    ['{"url":"https://hooks.example.com/x","filters":{"offsetDays":3}}', 'application/json', "Invalid parameter 'offsetDays': a non-zero value requires depDate"],
    [JSON.stringify({ url: 'https://hooks.example.com/x', description: 'é'.repeat(9000) }), 'application/json', "Invalid parameter 'body': must be at most 16384 bytes"],
  ] as [string, string, string][]).map(([body, type, message]) => [message, body, type] as const))('400: %s', async (message, body, type) => {
    const r = await call(post(body, { type }));
    expect([r.status, r.body.code, r.body.message]).toEqual([400, 'INVALID_PARAMETER', message]);
  });

  it('include: stored and answered as given; a watch without it answers no include; anything else is 400 naming include', async () => {
    const r = await call(post(JSON.stringify({ url: 'https://hooks.example.com/x', include: 'provenance,departure' })));
    expect([r.status, r.body.data!.include]).toEqual([201, 'provenance,departure']);
    expect(watchPuts()[0]!.Item).toMatchObject({ include: 'provenance,departure' });
    const plain = await call(post(JSON.stringify({ url: 'https://hooks.example.com/x', include: '' })));
    expect(plain.status).toBe(201);
    expect('include' in plain.body.data!).toBe(false);
    expect(watchPuts()[1]!.Item).not.toHaveProperty('include');
    for (const include of ['trip', 'provenance,provenance', 'Provenance', ' departure', 3, ['departure']]) {
      const bad = await call(post(JSON.stringify({ url: 'https://hooks.example.com/x', include })));
      expect([bad.status, bad.body.code, bad.body.message]).toEqual([400, 'INVALID_PARAMETER', `Invalid parameter 'include': ${INCLUDE_RULE}`]);
    }
    expect(watchPuts()).toHaveLength(2);
  });

  it('group: flight is stored and answered (with include too); leg (the default) is neither; anything else 400 naming group', async () => {
    const flight = await call(post(JSON.stringify({ url: 'https://hooks.example.com/x', group: 'flight' })));
    expect([flight.status, flight.body.data!.group]).toEqual([201, 'flight']);
    expect(watchPuts()[0]!.Item).toMatchObject({ group: 'flight' });
    const leg = await call(post(JSON.stringify({ url: 'https://hooks.example.com/x', group: 'leg' })));
    expect(leg.status).toBe(201);
    expect('group' in leg.body.data!).toBe(false);
    expect('group' in watchPuts()[1]!.Item!).toBe(false);
    for (const group of ['trip', 'FLIGHT', 1, null]) {
      const r = await call(post(JSON.stringify({ url: 'https://hooks.example.com/x', group })));
      expect([r.status, r.body.code, r.body.message]).toEqual([400, 'INVALID_PARAMETER', "Invalid parameter 'group': must be one of leg, flight"]);
    }
    expect(watchPuts()).toHaveLength(2);
    const both = await call(post(JSON.stringify({ url: 'https://hooks.example.com/x', group: 'flight', include: 'provenance,flight' })));
    expect([both.status, both.body.data!.group, both.body.data!.include]).toEqual([201, 'flight', 'provenance,flight']);
    expect(watchPuts()[2]!.Item).toMatchObject({ group: 'flight', include: 'provenance,flight' });
  });

  it('stores and answers the URL as WHATWG serializes it, not as typed', async () => {
    const r = await call(post(JSON.stringify({ url: 'HTTPS://Hooks.Example.COM:443\\@10.0.0.1/a/../x' })));
    expect(r.status).toBe(201);
    expect(r.body.data!.url).toBe('https://hooks.example.com/@10.0.0.1/x');
    expect(watchPuts()[0]!.Item).toMatchObject({ url: 'https://hooks.example.com/@10.0.0.1/x' });
  });

  it('400 naming url for a host name that resolves to a private address, at creation; nothing stored', async () => {
    const r = await call(post(JSON.stringify({ url: 'https://hooks.internal.example/x' })));
    expect([r.status, r.body.code, r.body.message]).toEqual([400, 'INVALID_PARAMETER', "Invalid parameter 'url': must resolve to public addresses only"]);
    expect(watchPuts()).toHaveLength(0);
  });

  it(`409 WATCH_LIMIT_REACHED when the client has ${MAX_WATCHES_PER_CLIENT} watches`, async () => {
    ddb.on(QueryCommand).resolves({ Count: MAX_WATCHES_PER_CLIENT });
    const r = await call(post(JSON.stringify({ url: 'https://hooks.example.com/x' })));
    expect([r.status, r.body.code]).toEqual([409, 'WATCH_LIMIT_REACHED']);
    expect(watchPuts()).toHaveLength(0);
  });

  it('price filters: a currency the rates in force know, bounds and pricedOnly as the listing takes them, answered as numbers and a boolean', async () => {
    ddb.on(GetCommand, { TableName: 'legs' }).resolves({ Item: { id: RATES_ID, rateDate: '2026-11-20', rates: { USD: '1.05' } } });
    const create = (filters: unknown) => call(post(JSON.stringify({ url: 'https://hooks.example.com/x', filters })));
    const plain = await create({ minSeats: 2 });
    expect(plain.status).toBe(201);
    // No currency: the rates are not read.
    expect(ddb.commandCalls(GetCommand).filter((c) => c.args[0].input.TableName === 'legs')).toHaveLength(0);
    const r = await create({ currency: 'USD', minPrice: 1000, maxPrice: '15000.5', pricedOnly: 'true' });
    expect([r.status, r.body.data?.filters]).toEqual([201, { currency: 'USD', minPrice: 1000, maxPrice: 15000.5, pricedOnly: true }]);
    expect(watchPuts()[1]!.Item).toMatchObject({ filters: { currency: 'USD', minPrice: '1000', maxPrice: '15000.5', pricedOnly: 'true' } });
    expect(ddb.commandCalls(GetCommand).filter((c) => c.args[0].input.TableName === 'legs').map((c) => c.args[0].input.Key)).toEqual([{ id: RATES_ID }]);
    ddb.resetHistory();
    for (const [filters, message] of [
      [{ currency: 'JPY' }, "Invalid parameter 'currency': must be EUR or a currency of the reference rates in force (2026-11-20)"],
      [{ currency: 'usd' }, "Invalid parameter 'currency': must be an ISO 4217 code of 3 capital letters, such as EUR"],
      [{ minPrice: 5 }, "Invalid parameter 'minPrice': requires currency"],
      [{ currency: 'USD', maxPrice: -1 }, "Invalid parameter 'maxPrice': must be a decimal from 0 to 1000000000000 with at most 2 decimals"],
      [{ currency: 'USD', minPrice: '20', maxPrice: '10' }, "Invalid parameter 'minPrice': must not be above maxPrice"],
      [{ pricedOnly: 1 }, "Invalid parameter 'pricedOnly': must be true or false"],
    ] as const) {
      const refused = await create(filters);
      expect([refused.status, refused.body.code, refused.body.message]).toEqual([400, 'INVALID_PARAMETER', message]);
    }
    expect(watchPuts()).toHaveLength(0);
  });
});

describe('GET and DELETE /open/v1/watches/{id}', () => {
  const ID = 'wat_BBBBBBBBBBBBBBBBBBBB';
  it('reads under the key\'s client only, and never answers the secret', async () => {
    ddb.on(GetCommand).resolves({
      Item: { clientId: KEY.clientId, watchId: ID, url: 'https://h.example/x', filters: {}, status: 'active', createdAt: '2026-11-21T12:00:00.000Z', secret: 'whsec_x' },
    });
    const r = await call(event('GET', `/open/v1/watches/${ID}`, '/open/v1/watches/{id}', { id: ID }));
    expect(r.status).toBe(200);
    expect(r.body.data).not.toHaveProperty('secret');
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input.Key).toEqual({ clientId: KEY.clientId, watchId: ID });
    // A URL stored as typed before it was normalized is answered normalized.
    ddb.on(GetCommand).resolves({
      Item: { clientId: KEY.clientId, watchId: ID, url: 'https://h.example\\@10.0.0.1/', filters: {}, status: 'active', createdAt: '2026-11-21T12:00:00.000Z', secret: 'whsec_x' },
    });
    expect((await call(event('GET', `/open/v1/watches/${ID}`, '/open/v1/watches/{id}', { id: ID }))).body.data!.url).toBe('https://h.example/@10.0.0.1/');
  });

  it('404 for a watch the client does not have; 400 for a malformed id', async () => {
    ddb.on(GetCommand).resolves({});
    expect((await call(event('GET', `/open/v1/watches/${ID}`, '/open/v1/watches/{id}', { id: ID }))).status).toBe(404);
    const bad = await call(event('GET', '/open/v1/watches/x', '/open/v1/watches/{id}', { id: 'x' }));
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_PARAMETER']);
  });

  it('DELETE: 200 with data null; 404 when there is none', async () => {
    const r = await call(event('DELETE', `/open/v1/watches/${ID}`, '/open/v1/watches/{id}', { id: ID }));
    expect([r.status, r.body.data]).toEqual([200, null]);
    expect(watchDeletes()[0]!.Key).toEqual({ clientId: KEY.clientId, watchId: ID });
    const { TransactionCanceledException } = await import('@aws-sdk/client-dynamodb');
    ddb.on(TransactWriteCommand).rejects(new TransactionCanceledException({ message: 'no', $metadata: {}, CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }] }));
    expect((await call(event('DELETE', `/open/v1/watches/${ID}`, '/open/v1/watches/{id}', { id: ID }))).status).toBe(404);
  });
});
