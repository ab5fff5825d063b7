import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { BASE_HEADERS } from '../http/envelope.js';
import { httpFunction, requireApiKey, traceIdOf, verifiedKeyOf, type HttpHandler } from '../http/middleware.js';
import { clientIdOf } from '../keys/index.js';
import { MatchMemo } from '../listing/index.js';
import { ROUTES } from '../routes.js';
import { invocationDeadlineMs } from '../time-budget.js';
import { inProcessApi, type UseCaseDependencies } from './in-process-api.js';
import { answerToolCall, directToolCall } from './direct-call.js';
import { connectToolServer, createToolServer } from './server.js';

/**
 * /open/v1/mcp (docs/api.md, "MCP"): Streamable HTTP, stateless. A POST's JSON-RPC message is
 * answered with JSON by a server made for the request's key; GET and DELETE are 405. The key is
 * checked first, as on every route (its refusals in the API's envelope).
 */
export const MAX_MCP_BODY_BYTES = 65_536;

export interface McpHandlerDependencies extends UseCaseDependencies {
  /** The listing's warm memo of recent queries' matches: with a cached repository only (as the list function). */
  listingCacheTtlSeconds: number;
}

const METHOD_NOT_ALLOWED = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless, POST only' }, id: null });

function bodyText(event: APIGatewayProxyEventV2): string | undefined {
  return event.body === undefined || !event.isBase64Encoded ? event.body : Buffer.from(event.body, 'base64').toString('utf8');
}

/** The event as a web request (what the SDK's transport reads). */
function requestOf(event: APIGatewayProxyEventV2): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  const body = event.body === undefined ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body;
  const host = headers.get('host') ?? 'localhost';
  return new Request(`https://${host}${event.rawPath}`, { method: event.requestContext.http.method, headers, ...(body === undefined ? {} : { body }) });
}

async function resultOf(response: Response): Promise<APIGatewayProxyStructuredResultV2> {
  const headers: Record<string, string> = { ...BASE_HEADERS };
  response.headers.forEach((value, name) => {
    // The SDK's `application/json` is the envelope's JSON in UTF-8: said as every answer of the API says it.
    if (name.toLowerCase() !== 'content-type' || !value.startsWith('application/json')) headers[name.toLowerCase()] = value;
  });
  return { statusCode: response.status, headers, body: await response.text() };
}

function keyOf(event: APIGatewayProxyEventV2): { clientId: string; scopes: readonly string[] } {
  const key = verifiedKeyOf(event);
  return { clientId: clientIdOf(key), scopes: key.scopes };
}

export function createMcpHandler(deps: McpHandlerDependencies): HttpHandler {
  const memo = deps.listingCacheTtlSeconds > 0 ? new MatchMemo() : undefined;
  return httpFunction({ gzip: true })
    .use(requireApiKey(ROUTES.mcp.scope))
    .handler(async (event, context) => {
      if (event.requestContext.http.method !== 'POST') {
        return { statusCode: 405, headers: { ...BASE_HEADERS, allow: 'POST' }, body: METHOD_NOT_ALLOWED };
      }
      const { clientId, scopes } = keyOf(event);
      const api = inProcessApi(deps, memo, { clientId, deadlineMs: invocationDeadlineMs('mcp', context), traceId: traceIdOf({ context }) });
      const text = bodyText(event);
      const call = text === undefined ? undefined : directToolCall(event.headers ?? {}, text, MAX_MCP_BODY_BYTES);
      if (call !== undefined) return { statusCode: 200, headers: { ...BASE_HEADERS }, body: await answerToolCall(call, api, scopes) };
      const server = createToolServer(api, scopes);
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true, maxRequestBodySize: MAX_MCP_BODY_BYTES });
      try {
        await connectToolServer(server, transport);
        return await resultOf(await transport.handleRequest(requestOf(event)));
      } finally {
        await server.close();
      }
    });
}
