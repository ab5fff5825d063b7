import type { APIGatewayProxyEventV2, APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import { lambdaContext as localLambdaContext } from '../../local/lambda-context.js';
import { verifiedContext, type AuthorizerContext, type VerifiedKey } from '../../src/auth/verdict.js';

/** API Gateway HTTP API v2 events and Lambda contexts for handler tests. */
export const TEST_KEY: VerifiedKey = {
  keyId: 'key_test0000000000000001',
  scopes: ['empty_leg:read'],
  environment: 'test',
  deprecated: false,
};

export function listEvent(
  params: Record<string, string> | undefined,
  authorizer: AuthorizerContext | null = verifiedContext(TEST_KEY),
): APIGatewayProxyEventV2 {
  const rawQueryString = params ? new URLSearchParams(params).toString() : '';
  const event: APIGatewayProxyEventV2 & { requestContext: { authorizer?: { lambda: AuthorizerContext } } } = {
    version: '2.0',
    routeKey: 'GET /open/v1/empty-legs',
    rawPath: '/open/v1/empty-legs',
    rawQueryString,
    headers: { host: 'api.example.com', 'user-agent': 'jest' },
    ...(params ? { queryStringParameters: params } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method: 'GET', path: '/open/v1/empty-legs', protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'jest' },
      requestId: 'req',
      routeKey: 'GET /open/v1/empty-legs',
      stage: '$default',
      time: '21/Nov/2026:12:00:00 +0000',
      timeEpoch: 1_795_262_400_000,
      ...(authorizer ? { authorizer: { lambda: authorizer } } : {}),
    },
    isBase64Encoded: false,
  };
  return event;
}

/**
 * The event of `GET /open/v1/empty-legs/{id}` for `rawId` (as it appears in the path; API Gateway
 * gives the decoded value in `pathParameters`), with extra request headers.
 */
export function legEvent(
  rawId: string,
  authorizer: AuthorizerContext | null = verifiedContext(TEST_KEY),
  headers: Record<string, string> = {},
): APIGatewayProxyEventV2 {
  const base = listEvent(undefined, authorizer);
  const path = `/open/v1/empty-legs/${rawId}`;
  let id: string;
  try {
    id = decodeURIComponent(rawId);
  } catch {
    id = rawId;
  }
  const routeKey = 'GET /open/v1/empty-legs/{id}';
  return {
    ...base,
    routeKey,
    rawPath: path,
    headers: { ...base.headers, ...headers },
    pathParameters: { id },
    requestContext: { ...base.requestContext, routeKey, http: { ...base.requestContext.http, path } },
  };
}

/** The list event with extra request headers. */
export function listEventWith(params: Record<string, string> | undefined, headers: Record<string, string>, authorizer?: AuthorizerContext): APIGatewayProxyEventV2 {
  const base = listEvent(params, authorizer);
  return { ...base, headers: { ...base.headers, ...headers } };
}

/** The authorizer's v2 REQUEST event for the listing route, carrying `key` in X-API-Key. */
export function authorizerEvent(key: string): APIGatewayRequestAuthorizerEventV2 {
  const base = listEvent(undefined, null);
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: 'arn:aws:execute-api:us-east-1:123456789012:api/$default/GET/open/v1/empty-legs',
    identitySource: [],
    routeKey: base.routeKey,
    rawPath: base.rawPath,
    rawQueryString: '',
    cookies: [],
    headers: { ...base.headers, 'x-api-key': key },
    requestContext: base.requestContext,
  };
}

export function lambdaContext(): Context {
  return localLambdaContext('list-empty-legs');
}
