import { beforeEach, describe, expect, it } from '@jest/globals';
import { gunzipSync } from 'node:zlib';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { rejectedContext, verifiedContext, type AuthorizerContext } from '../../../src/auth/verdict.js';
import { EMPTY_LEG_FIELDS, toApiRecord } from '../../../src/kernel/model.js';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { TEST_KEY, lambdaContext, legEvent } from '../../support/events.js';
import { buildGetLegHandler } from '../../support/handlers.js';
import { storedLeg } from '../../support/legs.js';

/** GET /open/v1/empty-legs/{id}: the handler as functions/get-empty-leg/handler.ts builds it, DynamoDB mocked. */
const ddb = mockClient(DynamoDBDocumentClient);
let now = new Date('2026-11-21T12:00:00Z');
const { handler, config } = buildGetLegHandler({ clock: () => now.getTime() });

interface Body {
  code: string;
  message: string;
  data: Record<string, unknown> | null;
  traceId: string;
}

/** Serves GetItem from `legs` by key, as the table would. */
function serve(legs: StoredLeg[]): void {
  const items = new Map(legs.map((l) => [l.id, toStorageItem(l)]));
  ddb.on(GetCommand).callsFake((input: { Key: { id: string } }) => ({ Item: items.get(input.Key.id) }));
}

async function call(rawId: string, options: { authorizer?: AuthorizerContext | null; headers?: Record<string, string> } = {}) {
  const context = lambdaContext();
  const res = await handler(legEvent(rawId, options.authorizer === undefined ? verifiedContext(TEST_KEY) : options.authorizer, options.headers), context);
  const text = res.isBase64Encoded ? gunzipSync(Buffer.from(res.body ?? '', 'base64')).toString('utf8') : (res.body ?? '');
  return { res, body: text === '' ? undefined : (JSON.parse(text) as Body), context };
}

const LEG = storedLeg({
  id: 'EL-000288',
  startDate: '2026-11-23',
  endDate: '2026-11-27',
  depCityName: 'Paris',
  depAirportIcao: 'LFPB',
  price: 402050,
  currency: 'HKD',
  amenities: [{ amenityType: 'wifi', amenityName: 'Wi-Fi', amenityDesc: 'Onboard Wi-Fi' }],
  depTimezone: 'Europe/Paris',
});

beforeEach(() => {
  ddb.reset();
  now = new Date('2026-11-21T12:00:00Z');
});

describe('get-empty-leg handler', () => {
  it('answers 200 with the leg in the envelope: the listing record, its fields in order, a weak ETag', async () => {
    serve([LEG]);
    const { res, body, context } = await call('EL-000288');
    expect(res.statusCode).toBe(200);
    expect(body).toEqual({ code: 'OK', message: 'success', data: toApiRecord(toStorageItem(LEG)), traceId: context.awsRequestId });
    expect(Object.keys(body!.data!)).toEqual([...EMPTY_LEG_FIELDS]);
    expect(body!.data!.depAirportIata).toBeNull();
    expect(res.headers?.['x-trace-id']).toBe(context.awsRequestId);
    expect(res.headers?.etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    expect(res.body).not.toMatch(/"(lb|ls|lf|listed|blocked|depTimezone|source)"/);
  });

  it('reads the leg with one strongly consistent GetItem by its key, and nothing else', async () => {
    serve([LEG]);
    await call('EL-000288');
    expect(ddb.calls()).toHaveLength(1);
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toEqual({ TableName: config.legsTableName, Key: { id: 'EL-000288' }, ConsistentRead: true });
  });

  it.each<[string, StoredLeg[]]>([
    ['unknown', []],
    ['unlisted', [{ ...LEG, listed: false }]],
    ['blocked', [{ ...LEG, blocked: true }]],
    ['expired (endDate yesterday at the departure)', [{ ...LEG, startDate: '2026-11-18', endDate: '2026-11-20' }]],
  ])('answers 404 NOT_FOUND for a leg that is %s, with the one message of every case', async (_name, legs) => {
    serve(legs);
    const { res, body } = await call('EL-000288');
    expect(res.statusCode).toBe(404);
    expect(body).toMatchObject({ code: 'NOT_FOUND', message: 'No empty leg with this id is listed', data: null });
    expect(res.headers?.etag).toBeUndefined();
  });

  it("decides expiry in the leg's departure zone: ended yesterday at Kiritimati (UTC+14) is gone, in UTC still served", async () => {
    // 12:00 UTC on 21 November is 02:00 on 22 November at Kiritimati.
    serve([
      { ...LEG, id: 'kiritimati', startDate: '2026-11-20', endDate: '2026-11-21', depTimezone: 'Pacific/Kiritimati' },
      { ...LEG, id: 'utc', startDate: '2026-11-20', endDate: '2026-11-21', depTimezone: 'UTC' },
    ]);
    expect((await call('kiritimati')).res.statusCode).toBe(404);
    expect((await call('utc')).res.statusCode).toBe(200);
    now = new Date('2026-11-22T00:00:00Z');
    expect((await call('utc')).res.statusCode).toBe(404);
  });

  it.each([
    ['too long', 'a'.repeat(65)],
    ['a character outside the id alphabet', 'EL%2E1'],
    ['an encoded slash', 'EL%2F1'],
    ['a space', 'EL%201'],
    ['an accent', 'caf%C3%A9'],
    ['the change journal head', '~journal'],
  ])('answers 400 INVALID_PARAMETER naming id for %s, without reading the table', async (_name, rawId) => {
    serve([LEG]);
    const { res, body } = await call(rawId);
    expect(res.statusCode).toBe(400);
    expect(body).toMatchObject({ code: 'INVALID_PARAMETER', data: null });
    expect(body!.message).toBe("Invalid parameter 'id': must be 1-64 of A-Z a-z 0-9 _ -");
    expect(ddb.calls()).toHaveLength(0);
  });

  it('accepts an id of 64 characters of the whole alphabet', async () => {
    const id = `${'A-Za-z0-9_'.repeat(6)}x-_Z`;
    expect(id).toHaveLength(64);
    serve([{ ...LEG, id }]);
    expect((await call(id)).res.statusCode).toBe(200);
  });

  it.each<[string, AuthorizerContext | null, number, string]>([
    ['no key', null, 401, 'API_KEY_MISSING'],
    ['an invalid key', rejectedContext('API_KEY_INVALID', 'bad'), 401, 'API_KEY_INVALID'],
    ['a wrong-environment key', rejectedContext('API_KEY_WRONG_ENVIRONMENT', 'live'), 401, 'API_KEY_WRONG_ENVIRONMENT'],
    ['a key without the scope', verifiedContext({ ...TEST_KEY, scopes: ['other:read'] }), 403, 'PERMISSION_DENIED'],
  ])('refuses %s before reading anything', async (_name, authorizer, status, code) => {
    serve([LEG]);
    const { res, body } = await call('EL-000288', { authorizer });
    expect(res.statusCode).toBe(status);
    expect(body?.code).toBe(code);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answers 503 SERVICE_UNAVAILABLE when the table is throttled', async () => {
    ddb.on(GetCommand).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));
    const { res, body } = await call('EL-000288');
    expect(res.statusCode).toBe(503);
    expect(body?.code).toBe('SERVICE_UNAVAILABLE');
  });
});

describe('get-empty-leg handler: conditional requests', () => {
  it('answers 304 with no body, the ETag and the trace id when If-None-Match holds the current tag, weak or not', async () => {
    serve([LEG]);
    const etag = String((await call('EL-000288')).res.headers?.etag);
    for (const ifNoneMatch of [etag, etag.slice(2), `"other", ${etag}`, '*']) {
      const { res, body, context } = await call('EL-000288', { headers: { 'If-None-Match': ifNoneMatch, 'accept-encoding': 'gzip' } });
      expect(res.statusCode).toBe(304);
      expect(body).toBeUndefined();
      expect(res.headers?.etag).toBe(etag);
      expect(res.headers?.['x-trace-id']).toBe(context.awsRequestId);
      expect(res.headers?.['content-type']).toBeUndefined();
      expect(res.headers?.['content-encoding']).toBeUndefined();
    }
  });

  it('answers 200 with the new tag once the leg changed, and 404 (never 304) once it left the listing', async () => {
    serve([LEG]);
    const etag = String((await call('EL-000288')).res.headers?.etag);
    serve([{ ...LEG, price: 1 }]);
    const changed = await call('EL-000288', { headers: { 'if-none-match': etag } });
    expect(changed.res.statusCode).toBe(200);
    expect(changed.body?.data?.price).toBe(1);
    expect(changed.res.headers?.etag).not.toBe(etag);
    serve([{ ...LEG, blocked: true }]);
    expect((await call('EL-000288', { headers: { 'if-none-match': '*' } })).res.statusCode).toBe(404);
  });

  it('keeps the deprecation headers of a key in its grace period on a 304', async () => {
    serve([LEG]);
    const etag = String((await call('EL-000288')).res.headers?.etag);
    const deprecated = verifiedContext({ ...TEST_KEY, deprecated: true, deprecatedAt: '2026-11-20T00:00:00.000Z', sunsetAt: '2026-11-27T00:00:00.000Z' });
    const { res } = await call('EL-000288', { authorizer: deprecated, headers: { 'if-none-match': etag } });
    expect(res.statusCode).toBe(304);
    expect(res.headers).toMatchObject({ 'x-api-key-deprecated': 'true', deprecation: `@${Date.parse('2026-11-20T00:00:00Z') / 1000}`, sunset: 'Fri, 27 Nov 2026 00:00:00 GMT' });
  });
});
