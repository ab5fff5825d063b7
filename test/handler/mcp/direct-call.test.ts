// @dateIndependent: one fixed instant for the legs and the handlers' clock.
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { verifiedContext } from '../../../src/auth/verdict.js';
import { lambdaContext, listEvent, TEST_KEY } from '../../support/events.js';
import { listingHandlers, memoryListing } from '../../support/memory-listing.js';

/**
 * A `tools/call` POST is answered without the SDK's transport (src/mcp/direct-call.ts) exactly as the
 * SDK's transport and server answer it: the same message sent alone and as a batch of one (which
 * the SDK's transport takes) gives the same JSON-RPC response.
 */
const NOW = Date.parse('2026-11-27T12:00:00Z');
const clock = () => NOW;
const { list, mcp } = listingHandlers(memoryListing(300, '2026-11-27'), clock);

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

function post(body: unknown, headers: Record<string, string> = HEADERS): APIGatewayProxyEventV2 {
  const base = listEvent(undefined, verifiedContext(TEST_KEY));
  return {
    ...base,
    routeKey: 'POST /open/v1/mcp',
    rawPath: '/open/v1/mcp',
    headers: { ...base.headers, ...headers },
    requestContext: { ...base.requestContext, http: { ...base.requestContext.http, method: 'POST', path: '/open/v1/mcp' } },
    body: JSON.stringify(body),
  };
}

async function answer(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2 & { body: string }> {
  const res = (await mcp(event, lambdaContext())) as APIGatewayProxyStructuredResultV2 & { body: string };
  return res;
}

const call = (id: number | string, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

afterEach(() => {
  jest.restoreAllMocks();
});

describe('a tools/call answered directly', () => {
  it.each([
    ['a search', call(1, 'search_empty_legs', { depCityName: 'London', size: 5 })],
    ['a search with a string id and a page past the last', call('a-7', 'search_empty_legs', { page: 1000 })],
    ['a refused argument', call(2, 'search_empty_legs', { offsetDays: 3 })],
    ['a tool the key has no scope for', call(3, 'list_watches', {})],
    ['an unknown tool', call(4, 'book_a_flight', {})],
    ["get_empty_leg's group refused", call(5, 'get_empty_leg', { id: 'mem000001', group: 'aircraft' })],
    ['get_empty_leg with group "flight" and no flight lookup', call(6, 'get_empty_leg', { id: 'mem000001', group: 'flight' })],
  ])('%s: the same response as the SDK transport and server give, without them', async (_name, message) => {
    const handleRequest = jest.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    const direct = await answer(post(message));
    expect(handleRequest).not.toHaveBeenCalled();
    const viaSdk = await answer(post([message]));
    expect(handleRequest).toHaveBeenCalledTimes(1);
    const headers = (r: typeof direct) => ({ ...r.headers, 'x-trace-id': typeof r.headers?.['x-trace-id'] });
    expect([direct.statusCode, headers(direct)]).toEqual([viaSdk.statusCode, headers(viaSdk)]);
    expect(JSON.parse(direct.body)).toEqual(JSON.parse(viaSdk.body));
  });

  it("gives the listing's page as the structured content, written as the REST listing writes its data", async () => {
    const restBody = ((await list(listEvent({ arrCityName: 'Nice', size: '20' }), lambdaContext())) as { body: string }).body;
    const data = restBody.slice(restBody.indexOf('"data":') + '"data":'.length, restBody.lastIndexOf(',"traceId":'));
    expect((JSON.parse(data) as { records: unknown[] }).records).toHaveLength(20);
    const direct = await answer(post(call(9, 'search_empty_legs', { arrCityName: 'Nice', size: 20 })));
    expect(direct.body).toContain(`"structuredContent":${data}}`);
  });

  it('leaves to the SDK what its transport would refuse or treat otherwise', async () => {
    const handleRequest = jest.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    const search = call(1, 'search_empty_legs', {});
    const notAcceptable = await answer(post(search, { ...HEADERS, accept: 'application/json' }));
    expect(notAcceptable.statusCode).toBe(406);
    const notJson = await answer(post(search, { ...HEADERS, 'content-type': 'text/plain' }));
    expect(notJson.statusCode).toBe(415);
    const badVersion = await answer(post(search, { ...HEADERS, 'mcp-protocol-version': '1999-01-01' }));
    expect(badVersion.statusCode).toBe(400);
    const badParams = await answer(post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { arguments: {} } }));
    expect(JSON.parse(badParams.body)).toEqual({ jsonrpc: '2.0', id: 5, error: { code: expect.any(Number), message: expect.stringMatching(/^(Invalid params|Internal error)$/) } });
    const extraMember = await answer(post({ ...search, extra: true }));
    expect(extraMember.statusCode).toBe(400);
    expect(handleRequest).toHaveBeenCalledTimes(5);
  });
});
