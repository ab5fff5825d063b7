import { beforeEach, describe, expect, it } from '@jest/globals';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { AirportIndex } from '../../../src/airports/reference.js';
import { verifiedContext, type VerifiedKey } from '../../../src/auth/verdict.js';
import { fixedClock } from '../../../src/clock.js';
import { cachedRates, createRatesStore, RATES_ID } from '../../../src/rates/index.js';
import { routeKeyOf, ROUTES } from '../../../src/routes.js';
import { createWatchAdminHandler } from '../../../src/watch-admin/handlers.js';
import { lambdaContext, listEvent } from '../../support/events.js';

/**
 * The watch-admin function (src/watch-admin/handlers.ts) with a mocked DynamoDB: each route's scope,
 * its path parameters and body refused in the envelope, the key's client only, a rotation's
 * conditional write and a PATCH's version bump. No attempt is made here (no watch is found to send to).
 */
const ddb = mockClient(DynamoDBDocumentClient);
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const handler = createWatchAdminHandler({
  tables: { client, watchesTableName: 'watches', deliveriesTableName: 'deliveries' },
  airports: () => new AirportIndex([]),
  targets: 'public',
  resolver: () => Promise.reject(new Error('no DNS in this test')),
  clock: fixedClock('2026-11-21T12:00:00Z'),
  rates: cachedRates(createRatesStore(client, 'legs'), { clock: fixedClock('2026-11-21T12:00:00Z') }),
});
const KEY: VerifiedKey = { keyId: 'key_test0000000000000001', clientId: 'cli_AAAAAAAAAAAAAAAAAAAA', scopes: ['watch:read', 'watch:write'], environment: 'test', deprecated: false };
const ID = 'wat_BBBBBBBBBBBBBBBBBBBB';
const DELIVERY = `msg_${'d'.repeat(27)}`;
const STORED = { clientId: KEY.clientId, watchId: ID, url: 'https://hooks.example.com/x', filters: {}, status: 'disabled', createdAt: '2026-11-01T00:00:00.000Z', secret: 'whsec_old', failingSince: '2026-11-10T00:00:00.000Z', disabledAt: '2026-11-15T00:00:00.000Z' };

type Route = (typeof ROUTES)['updateWatch' | 'testWatch' | 'retryWatchDelivery' | 'rotateWatchSecret'];
function event(route: Route, options: { body?: string; key?: VerifiedKey; id?: string; deliveryId?: string } = {}): APIGatewayProxyEventV2 {
  const base = listEvent(undefined, verifiedContext(options.key ?? KEY));
  const id = options.id ?? ID;
  const path = route.path.replace('{id}', id).replace('{deliveryId}', options.deliveryId ?? DELIVERY);
  return {
    ...base,
    routeKey: routeKeyOf(route),
    rawPath: path,
    headers: { ...base.headers, ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    pathParameters: { id, ...(route.path.includes('{deliveryId}') ? { deliveryId: options.deliveryId ?? DELIVERY } : {}) },
    ...(options.body !== undefined ? { body: options.body } : {}),
    requestContext: { ...base.requestContext, routeKey: routeKeyOf(route), http: { ...base.requestContext.http, method: route.method, path } },
  };
}
async function call(e: APIGatewayProxyEventV2): Promise<{ status: number; body: { code: string; message: string; data: Record<string, unknown> | null } }> {
  const res = await handler(e, lambdaContext());
  return { status: res.statusCode ?? 0, body: JSON.parse(res.body ?? '{}') as { code: string; message: string; data: Record<string, unknown> | null } };
}
const ALL = [ROUTES.updateWatch, ROUTES.testWatch, ROUTES.retryWatchDelivery, ROUTES.rotateWatchSecret];
const bodyOf = (route: Route) => (route.method === 'PATCH' ? '{"enabled":true}' : undefined);

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({ Item: STORED });
  ddb.on(UpdateCommand).resolves({});
});

describe('the owner\'s operations', () => {
  it.each(ALL.map((r) => [routeKeyOf(r), r] as const))('%s: 403 for a key without watch:write, nothing read', async (_key, route) => {
    const r = await call(event(route, { key: { ...KEY, scopes: ['watch:read', 'empty_leg:read'] }, body: bodyOf(route) }));
    expect([r.status, r.body.code]).toEqual([403, 'PERMISSION_DENIED']);
    expect(ddb.calls()).toHaveLength(0);
  });

  it.each(ALL.map((r) => [routeKeyOf(r), r] as const))("%s: 404 for a watch the key's client does not have, read under that client", async (_key, route) => {
    ddb.on(GetCommand).resolves({});
    const r = await call(event(route, { body: bodyOf(route) }));
    expect([r.status, r.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input.Key).toEqual({ clientId: KEY.clientId, watchId: ID });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('400 for a malformed watch id or delivery id, and a PATCH body that is not JSON', async () => {
    const badId = await call(event(ROUTES.testWatch, { id: 'wat_x' }));
    expect([badId.status, badId.body.message]).toEqual([400, expect.stringMatching(/^Invalid parameter 'id'/)]);
    const badDelivery = await call(event(ROUTES.retryWatchDelivery, { deliveryId: 'msg_short' }));
    expect([badDelivery.status, badDelivery.body.message]).toEqual([400, expect.stringMatching(/^Invalid parameter 'deliveryId'/)]);
    const notJson = await call(event(ROUTES.updateWatch, { body: '{"enabled":' }));
    expect([notJson.status, notJson.body.message]).toEqual([400, "Invalid parameter 'body': must be JSON"]);
  });

  it('PATCH enabled: true turns the watch on under its client, conditionally, and bumps the watches version', async () => {
    const r = await call(event(ROUTES.updateWatch, { body: '{"enabled":true}' }));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: ID, status: 'active', failingSince: null, disabledAt: null });
    expect(r.body.data).not.toHaveProperty('secret');
    const [change, version] = ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);
    expect(change).toMatchObject({ Key: { clientId: KEY.clientId, watchId: ID }, ConditionExpression: 'attribute_exists(watchId)' });
    expect(Object.values(change!.ExpressionAttributeValues!)).toEqual(['active', null, null]);
    expect(version!.Key).toEqual({ clientId: '~version', watchId: '~version' });
  });

  it('rotate: a new secret, written on condition that the secret read is still the one stored', async () => {
    const r = await call(event(ROUTES.rotateWatchSecret));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: ID, rotatedAt: '2026-11-21T12:00:00.000Z', previousSecretExpiresAt: '2026-11-22T12:00:00.000Z' });
    const update = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(update.ConditionExpression).toBe('attribute_exists(watchId) AND secret = :old');
    expect(update.ExpressionAttributeValues).toEqual({ ':new': r.body.data!.secret, ':old': 'whsec_old', ':until': '2026-11-22T12:00:00.000Z' });
  });

  it('PATCH filters with prices: validated as the listing validates them, the currency against the rates in force', async () => {
    ddb.on(GetCommand, { TableName: 'legs' }).resolves({ Item: { id: RATES_ID, rateDate: '2026-11-20', rates: { USD: '1.05', GBP: '0.84' } } });
    const patch = (filters: unknown) => call(event(ROUTES.updateWatch, { body: JSON.stringify({ filters }) }));
    const ok = await patch({ currency: 'USD', maxPrice: '9000.50', pricedOnly: true });
    expect([ok.status, ok.body.data?.filters]).toEqual([200, { currency: 'USD', maxPrice: 9000.5, pricedOnly: true }]);
    expect(Object.values(ddb.commandCalls(UpdateCommand)[0]!.args[0].input.ExpressionAttributeValues!)).toContainEqual({ currency: 'USD', maxPrice: '9000.50', pricedOnly: 'true' });
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input.Key)).toContainEqual({ id: RATES_ID });
    ddb.resetHistory();
    for (const [filters, message] of [
      [{ currency: 'XAU' }, "Invalid parameter 'currency': must be EUR or a currency of the reference rates in force (2026-11-20)"],
      [{ maxPrice: 100 }, "Invalid parameter 'maxPrice': requires currency"],
      [{ currency: 'EUR', minPrice: 10, maxPrice: 5 }, "Invalid parameter 'minPrice': must not be above maxPrice"],
      [{ currency: 'EUR', pricedOnly: 'yes' }, "Invalid parameter 'pricedOnly': must be true or false"],
      [{ currency: 'EUR', sort: 'price' }, "Invalid parameter 'filters.sort': an order does not apply to a watch"],
    ] as const) {
      const r = await patch(filters);
      expect([r.status, r.body.code, r.body.message]).toEqual([400, 'INVALID_PARAMETER', message]);
    }
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    // Filters not given are kept as they are, a currency the rates no longer know included: the rates are not read.
    ddb.on(GetCommand, { TableName: 'watches' }).resolves({ Item: { ...STORED, filters: { currency: 'XAU', maxPrice: '5' } } });
    ddb.resetHistory();
    const kept = await call(event(ROUTES.updateWatch, { body: '{"description":"kept"}' }));
    expect([kept.status, kept.body.data?.filters, kept.body.data?.description]).toEqual([200, { currency: 'XAU', maxPrice: 5 }, 'kept']);
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input.TableName)).toEqual(['watches']);
  });
});

describe('test events and replays per client', () => {
  it("answers the 11th of a minute 429 RATE_LIMITED in the envelope with Retry-After, before any attempt", async () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    // Ten sends of this client in the last minute, the oldest 45 s ago: a place frees in 15 s.
    const sends = Array.from({ length: 10 }, (_, i) => now - 45_000 + i * 1_000);
    ddb.on(GetCommand, { Key: { clientId: KEY.clientId, watchId: ID } }).resolves({ Item: { ...STORED, description: null } });
    ddb.on(GetCommand, { Key: { clientId: `~sends#${KEY.clientId}`, watchId: '~sends' } }).resolves({ Item: { sends, v: 10 } });
    const delivery = { watchId: ID, deliveryKey: `2026-11-21T11:00:00.000Z#${DELIVERY}`, id: DELIVERY, clientId: KEY.clientId, type: 'empty_leg.listed', legId: 'L1', status: 'delivered', attempts: 1, responseCode: 204, lastAttemptAt: null, nextAttemptAt: null, createdAt: '2026-11-21T11:00:00.000Z', ttl: 0, payload: '{}' };
    ddb.on(QueryCommand).resolves({ Items: [delivery] });
    ddb.on(GetCommand, { Key: { watchId: ID, deliveryKey: delivery.deliveryKey } }).resolves({ Item: delivery });
    for (const route of [ROUTES.testWatch, ROUTES.retryWatchDelivery]) {
      const res = await handler(event(route), lambdaContext());
      expect(res.statusCode).toBe(429);
      expect(res.headers?.['retry-after']).toBe('15');
      expect(JSON.parse(res.body ?? '{}')).toMatchObject({ code: 'RATE_LIMITED', data: null });
    }
    expect(ddb.commandCalls(UpdateCommand).filter((c) => String(c.args[0].input.Key?.clientId).startsWith('~sends#'))).toHaveLength(0);
  });
});
