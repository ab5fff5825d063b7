import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';

/** The v2 events of the benchmark's requests: the authorizer's, then the list function's. */

const ROUTE = 'GET /open/v1/empty-legs';

function requestContext() {
  return {
    accountId: '123456789012',
    apiId: 'bench',
    domainName: 'bench.example.com',
    domainPrefix: 'bench',
    http: { method: 'GET', path: '/open/v1/empty-legs', protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'bench' },
    requestId: randomUUID(),
    routeKey: ROUTE,
    stage: '$default',
    time: new Date().toUTCString(),
    timeEpoch: Date.now(),
  };
}

export function authorizerEvent(key: string, params: Record<string, string>): APIGatewayRequestAuthorizerEventV2 {
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: 'arn:aws:execute-api:us-east-1:123456789012:bench/$default/GET/open/v1/empty-legs',
    identitySource: [],
    routeKey: ROUTE,
    rawPath: '/open/v1/empty-legs',
    rawQueryString: new URLSearchParams(params).toString(),
    cookies: [],
    headers: { host: 'bench.example.com', 'user-agent': 'bench', 'x-api-key': key },
    queryStringParameters: params,
    requestContext: requestContext(),
    pathParameters: {},
    stageVariables: {},
  } as unknown as APIGatewayRequestAuthorizerEventV2;
}

export function listEvent(params: Record<string, string>, authorizer: unknown): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: ROUTE,
    rawPath: '/open/v1/empty-legs',
    rawQueryString: new URLSearchParams(params).toString(),
    headers: { host: 'bench.example.com', 'user-agent': 'bench' },
    ...(Object.keys(params).length > 0 ? { queryStringParameters: params } : {}),
    requestContext: { ...requestContext(), authorizer: { lambda: authorizer } },
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}
