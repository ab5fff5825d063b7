import { describe, expect, it } from '@jest/globals';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../../src/auth/edge.js';
import { apiKeyHeader, requestSource, viewerAddress } from '../../../src/keys/request-source.js';

function event(headers: Record<string, string>, sourceIp = '203.0.113.9'): APIGatewayRequestAuthorizerEventV2 {
  return { headers, requestContext: { http: { sourceIp } } } as unknown as APIGatewayRequestAuthorizerEventV2;
}

describe('viewerAddress: the address of CloudFront-Viewer-Address', () => {
  it.each([
    ['198.51.100.10:46532', '198.51.100.10'],
    ['2001:db8::1:443', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['', undefined],
    ['not an address', undefined],
    [undefined, undefined],
  ])('%s -> %s', (value, address) => {
    expect(viewerAddress(value)).toBe(address);
  });
});

describe('apiKeyHeader', () => {
  it('reads X-API-Key whatever its letter case', () => {
    expect(apiKeyHeader(event({ 'x-api-key': 'a' }))).toBe('a');
    expect(apiKeyHeader(event({ 'X-Api-Key': 'b' }))).toBe('b');
    expect(apiKeyHeader(event({}))).toBeUndefined();
  });

  it('on the MCP routes only, takes Authorization: Bearer when X-API-Key is absent', () => {
    const on = (routeKey: string, headers: Record<string, string>) => apiKeyHeader({ ...event(headers), routeKey });
    expect(on('POST /open/v1/mcp', { authorization: 'Bearer elk_test_x' })).toBe('elk_test_x');
    expect(on('GET /open/v1/mcp', { Authorization: 'bearer  elk_test_y ' })).toBe('elk_test_y');
    expect(on('POST /open/v1/mcp', { 'x-api-key': 'a', authorization: 'Bearer b' })).toBe('a');
    expect(on('POST /open/v1/mcp', { authorization: 'Basic abc' })).toBeUndefined();
    expect(on('POST /open/v1/mcp', { authorization: 'Bearer' })).toBeUndefined();
    // Every other route answers as before: no key without X-API-Key.
    expect(on('GET /open/v1/empty-legs', { authorization: 'Bearer elk_test_x' })).toBeUndefined();
    expect(apiKeyHeader(event({ authorization: 'Bearer elk_test_x' }))).toBeUndefined();
  });
});

describe('requestSource', () => {
  it("without an origin secret: API Gateway's source address", () => {
    expect(requestSource(event({ [VIEWER_ADDRESS_HEADER]: '198.51.100.1:443' }), undefined)).toEqual({ sourceAddress: '203.0.113.9' });
  });

  it("behind CloudFront: the viewer's address, only with the origin secret", () => {
    const secret = 's'.repeat(48);
    expect(requestSource(event({ [ORIGIN_SECRET_HEADER]: secret, [VIEWER_ADDRESS_HEADER]: '198.51.100.1:443' }), secret)).toEqual({
      sourceAddress: '198.51.100.1',
    });
    expect(requestSource(event({ [ORIGIN_SECRET_HEADER]: secret }), secret)).toEqual({ sourceAddress: '203.0.113.9' });
    expect(requestSource(event({ [ORIGIN_SECRET_HEADER]: `${secret}x` }), secret)).toBe('wrongOrigin');
    expect(requestSource(event({}), secret)).toBe('wrongOrigin');
  });
});
