import { beforeEach, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as notFoundHandler } from '../../functions/not-found/handler.js';
import { rejectedContext, verifiedContext, withRateLimit, type AuthorizerContext } from '../../src/auth/verdict.js';
import { TEST_KEY, lambdaContext, listEvent } from '../support/events.js';
import { buildListHandler } from '../support/handlers.js';

/**
 * What the functions answer on AWS carries the edge headers on every path: success, every error
 * code the list function can give, and the `$default` NOT_FOUND. Checked at handler level, where
 * API Gateway passes the functions' headers through unchanged.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const { handler: listHandler, repository } = buildListHandler();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectEdgeHeaders(res: APIGatewayProxyStructuredResultV2, awsRequestId: string, status: number, code: string): void {
  expect(res.statusCode).toBe(status);
  const headers = Object.fromEntries(Object.entries(res.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  expect(headers['content-type']).toBe('application/json; charset=utf-8');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-trace-id']).toMatch(UUID);
  expect(headers['x-trace-id']).toBe(awsRequestId);
  const body = JSON.parse(res.body ?? '') as { code: string; traceId: string };
  expect(body.code).toBe(code);
  expect(body.traceId).toBe(awsRequestId);
}

async function list(params: Record<string, string> | undefined, authorizer: AuthorizerContext | null) {
  const context = lambdaContext();
  const res = await listHandler(listEvent(params, authorizer), context);
  return { res, id: context.awsRequestId };
}

beforeEach(() => {
  ddb.reset();
  // The change log's head: no entry yet.
  ddb.on(GetCommand).resolves({});
  repository.clear();
  ddb.on(QueryCommand).resolves({ Items: [] });
  ddb.on(BatchGetCommand).resolves({ Responses: {} });
});

describe('response headers of the functions', () => {
  const ok = verifiedContext(TEST_KEY);
  it.each<[string, Record<string, string> | undefined, AuthorizerContext | null, number, string]>([
    ['success', { size: '5' }, ok, 200, 'OK'],
    ['a bad parameter', { page: 'x' }, ok, 400, 'INVALID_PARAMETER'],
    ['no authorizer context', undefined, null, 401, 'API_KEY_MISSING'],
    ['an invalid key', undefined, rejectedContext('API_KEY_INVALID', 'bad'), 401, 'API_KEY_INVALID'],
    ['an expired key', undefined, rejectedContext('API_KEY_EXPIRED', 'old'), 401, 'API_KEY_EXPIRED'],
    ['a wrong-environment key', undefined, rejectedContext('API_KEY_WRONG_ENVIRONMENT', 'live'), 401, 'API_KEY_WRONG_ENVIRONMENT'],
    ['a key without the scope', undefined, verifiedContext({ ...TEST_KEY, scopes: ['other:read'] }), 403, 'PERMISSION_DENIED'],
    ['an unavailable key table', undefined, rejectedContext('SERVICE_UNAVAILABLE', 'later'), 503, 'SERVICE_UNAVAILABLE'],
    ['a deprecated key', { size: '1' }, verifiedContext({ ...TEST_KEY, deprecated: true }), 200, 'OK'],
  ])('list function, %s', async (_name, params, authorizer, status, code) => {
    const { res, id } = await list(params, authorizer);
    expectEdgeHeaders(res, id, status, code);
  });

  it('list function, a throttled table (503) and an unexpected failure (500)', async () => {
    ddb.on(QueryCommand).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));
    const throttled = await list({ size: '3' }, ok);
    expectEdgeHeaders(throttled.res, throttled.id, 503, 'SERVICE_UNAVAILABLE');
    repository.clear();
    ddb.on(QueryCommand).rejects(new Error('boom'));
    const failed = await list({ size: '4' }, ok);
    expectEdgeHeaders(failed.res, failed.id, 500, 'INTERNAL_ERROR');
  });

  const fields = { rateLimitPolicy: '"per-key";q=20;w=2', rateLimit: '"per-key";r=0;t=2' };
  it('list function, a key over its rate limit: 429 RATE_LIMITED with Retry-After, RateLimit-Policy and RateLimit', async () => {
    const { res, id } = await list({ size: '2' }, withRateLimit(rejectedContext('RATE_LIMITED', 'slow down'), { ...fields, retryAfter: '2' }));
    expectEdgeHeaders(res, id, 429, 'RATE_LIMITED');
    expect(res.headers).toMatchObject({ 'retry-after': '2', 'ratelimit-policy': fields.rateLimitPolicy, ratelimit: fields.rateLimit });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0); // the listing never ran
  });

  it('list function: every answer to a key carries its RateLimit fields (success and errors), and no Retry-After', async () => {
    for (const [params, status] of [[{ size: '2' }, 200], [{ page: 'x' }, 400]] as const) {
      const { res } = await list(params, withRateLimit(ok, fields));
      expect(res.statusCode).toBe(status);
      expect(res.headers).toMatchObject({ 'ratelimit-policy': fields.rateLimitPolicy, ratelimit: fields.rateLimit });
      expect(res.headers?.['retry-after']).toBeUndefined();
    }
  });

  it('list function: a rate-limit field that is not what the authorizer writes is no verdict (API_KEY_MISSING), never a header', async () => {
    const forged = { ...ok, rateLimit: '"per-key";r=1;t=1\r\nset-cookie: x=y' } as AuthorizerContext;
    const { res } = await list({ size: '2' }, forged);
    expect(res.statusCode).toBe(401);
    expect(res.headers?.ratelimit).toBeUndefined();
  });

  it('not-found function ($default route)', async () => {
    const event = JSON.parse(readFileSync(new URL('../../events/not-found.json', import.meta.url), 'utf8')) as APIGatewayProxyEventV2;
    const context = lambdaContext();
    const res = await notFoundHandler(event, context);
    expectEdgeHeaders(res, context.awsRequestId, 404, 'NOT_FOUND');
  });
});
