import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { SEARCH_TYPES } from '../src/mcp/arguments.js';
import { listEvent } from './events.js';
import { summarize, type LatencySummary } from './stats.js';

/**
 * The MCP search against the REST listing (docs/performance.md, "MCP"): the same queries of the mix
 * as a JSON-RPC `tools/call` of `search_empty_legs` through the MCP handler and as a REST request
 * through the list function, both built on the same repository, rates and clock, in the same run:
 * read units of each with an empty cache, and warm CPU, the two interleaved.
 */

/** The queries of the mix compared (bench/mix.ts names them): the plain listing, a filtered search, a price search. */
export const MCP_QUERIES = ['no filter, page 1', 'seats and category, depDate (minSeats=8, aircraftType=light jet)', 'price (currency=USD), converted'] as const;

export interface McpSideFigures {
  /** Read units of each empty-cache request. */
  readUnits: number[];
  /** Warm-cache handler CPU per request, ms. */
  cpuMs: LatencySummary;
}

export interface McpQueryFigures {
  name: string;
  params: Record<string, string>;
  rest: McpSideFigures;
  mcp: McpSideFigures;
}

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** A container's cached source (its rates, its sources registry) that starts again from nothing on `reset()`, around `make()`'s. */
export function resettable<T>(make: () => () => Promise<T>): { source: () => Promise<T>; reset: () => void } {
  let source = make();
  return {
    source: () => source(),
    reset: () => {
      source = make();
    },
  };
}

/** The listing's query texts as the search tool's JSON arguments (each of its schema's type). */
export function searchArguments(params: Readonly<Record<string, string>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(params).map(([name, text]) => {
      const type = SEARCH_TYPES[name];
      return [name, type === 'integer' || type === 'number' ? Number(text) : type === 'boolean' ? text === 'true' : text];
    }),
  );
}

/** A Streamable HTTP POST of one `tools/call` of `search_empty_legs`, after the authorizer's verdict. */
export function mcpSearchEvent(params: Readonly<Record<string, string>>, authorizer: unknown): APIGatewayProxyEventV2 {
  const base = listEvent({}, authorizer);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_empty_legs', arguments: searchArguments(params) } });
  return {
    ...base,
    routeKey: 'POST /open/v1/mcp',
    rawPath: '/open/v1/mcp',
    rawQueryString: '',
    headers: { ...base.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    requestContext: { ...base.requestContext, http: { ...base.requestContext.http, method: 'POST', path: '/open/v1/mcp' }, requestId: randomUUID() },
    body,
  };
}

/** A page's total and record ids: of the REST envelope, or of the tool's structured content. */
export function pageOf(body: string, mcp: boolean): string {
  const parsed = JSON.parse(body) as { data?: unknown; result?: { structuredContent?: unknown; isError?: boolean } };
  const page = (mcp ? parsed.result?.structuredContent : parsed.data) as { total?: number; records?: { id?: string }[] } | undefined;
  if (page === undefined || !Array.isArray(page.records)) return mcp ? `no structured content: ${body.slice(0, 200)}` : `no page: ${body.slice(0, 200)}`;
  return `${page.total} ${page.records.map((r) => r.id).join(',')}`;
}

export interface McpRunInputs {
  queries: readonly { name: string; params: Record<string, string> }[];
  list: Handler;
  mcp: Handler;
  /** The authorizer's verdict for a request of `params` (its context). */
  authorize(params: Record<string, string>): Promise<unknown>;
  /** Empties the repository's cache and the rates source: a new container's state. */
  clear(): void;
  /** Read units of the DynamoDB calls since the last call. */
  readUnits(): number;
  context(): Context;
  /** A minor collection before a measured warm request. */
  collectYoung(): void;
  coldRounds: number;
  warmUpRounds: number;
  runs: number;
  fail(message: string): void;
}

/** Both sides of each query: empty-cache read units (rounds alternating which side goes first), then warm CPU interleaved. */
export async function compareMcp(input: McpRunInputs): Promise<McpQueryFigures[]> {
  const out: McpQueryFigures[] = [];
  for (const q of input.queries) {
    const verdict = await input.authorize(q.params);
    const restEvent = () => listEvent(q.params, verdict);
    const mcpEvent = () => mcpSearchEvent(q.params, verdict);
    const call = async (side: 'rest' | 'mcp', measure: boolean): Promise<{ body: string; cpuMs: number }> => {
      const event = side === 'rest' ? restEvent() : mcpEvent();
      const handler = side === 'rest' ? input.list : input.mcp;
      const context = input.context();
      if (measure) input.collectYoung();
      const cpu0 = process.cpuUsage();
      const res = await handler(event, context);
      const cpu = process.cpuUsage(cpu0);
      const body = typeof res.body === 'string' ? res.body : '';
      if (res.statusCode !== 200) input.fail(`mcp comparison, ${q.name}: the ${side} request answered ${res.statusCode}: ${body.slice(0, 200)}`);
      return { body, cpuMs: (cpu.user + cpu.system) / 1000 };
    };
    const units = { rest: [] as number[], mcp: [] as number[] };
    for (let round = 0; round < input.coldRounds; round++) {
      const pages: Partial<Record<'rest' | 'mcp', string>> = {};
      for (const side of round % 2 === 0 ? (['rest', 'mcp'] as const) : (['mcp', 'rest'] as const)) {
        input.clear();
        input.readUnits();
        const { body } = await call(side, false);
        units[side].push(input.readUnits());
        pages[side] = pageOf(body, side === 'mcp');
      }
      if (pages.rest !== pages.mcp) input.fail(`mcp comparison, ${q.name}: the tool's page differs from the listing's (${pages.mcp} against ${pages.rest})`);
    }
    for (let round = 0; round < input.warmUpRounds; round++) {
      await call('rest', false);
      await call('mcp', false);
    }
    const cpu = { rest: [] as number[], mcp: [] as number[] };
    for (let round = 0; round < input.runs; round++) {
      for (const side of round % 2 === 0 ? (['rest', 'mcp'] as const) : (['mcp', 'rest'] as const)) cpu[side].push((await call(side, true)).cpuMs);
    }
    out.push({
      name: q.name,
      params: q.params,
      rest: { readUnits: units.rest, cpuMs: summarize(cpu.rest) },
      mcp: { readUnits: units.mcp, cpuMs: summarize(cpu.mcp) },
    });
  }
  return out;
}
