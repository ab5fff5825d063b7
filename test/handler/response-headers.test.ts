import { beforeEach, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as listHandler, repository } from '../../functions/list-empty-legs/handler.js';
import { handler as notFoundHandler } from '../../functions/not-found/handler.js';
import { rejectedContext, verifiedContext, type AuthorizerContext } from '../../src/auth/verdict.js';
import { TEST_KEY, lambdaContext, listEvent } from '../support/events.js';

/**
 * What the functions answer on AWS carries the edge headers on every path: success, every error
 * code the list function can give, and the `$default` NOT_FOUND. Checked at handler level, where
 * API Gateway passes the functions' headers through unchanged.
 */
const ddb = mockClient(DynamoDBDocumentClient);
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
  // The change journal's head (src/legs/journal.ts): no change set yet.
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

  it('not-found function ($default route)', async () => {
    const event = JSON.parse(readFileSync(new URL('../../events/not-found.json', import.meta.url), 'utf8')) as APIGatewayProxyEventV2;
    const context = lambdaContext();
    const res = await notFoundHandler(event, context);
    expectEdgeHeaders(res, context.awsRequestId, 404, 'NOT_FOUND');
  });
});
