import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  isJSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequest,
  type CallToolResult,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { jsonWithRecords } from '../http/envelope.js';
import { callTool, publicMessage } from './server.js';
import type { LegsApi } from './tools.js';

/**
 * A `tools/call` answered without the SDK's web Request and Response (docs/performance.md, "MCP"):
 * a POST that the SDK's Streamable HTTP transport would hand to its server as it is, carrying one
 * `tools/call` its schemas accept, runs the tool as the SDK's server would (`callTool`) and is
 * answered with the same JSON-RPC response; every other POST goes through the SDK's transport.
 */
export type RequestHeaders = Readonly<Record<string, string | undefined>>;

export interface DirectToolCall {
  id: RequestId;
  params: CallToolRequest['params'];
}

/**
 * The body's `tools/call` when the SDK's transport and server would run it as it is (both media
 * types accepted, a JSON body within `maxBytes`, a supported protocol version, one JSON-RPC request
 * valid for the SDK's schemas, no task); undefined for anything else, which the SDK then judges.
 */
export function directToolCall(headers: RequestHeaders, body: string, maxBytes: number): DirectToolCall | undefined {
  const accept = headers.accept;
  if (accept === undefined || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(headers['content-type'] ?? null)) return undefined;
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  if (Buffer.byteLength(body) > maxBytes) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null || (message as { method?: unknown }).method !== 'tools/call') return undefined;
  return plainToolCall(message) ?? checkedToolCall(message);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const onlyKeys = (value: Record<string, unknown>, allowed: ReadonlySet<string>) => Object.keys(value).every((key) => allowed.has(key));
const REQUEST_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_KEYS: ReadonlySet<string> = new Set(['name', 'arguments']);

/**
 * The plain `tools/call` (no `_meta`, no task, no extra member), which the SDK's schemas accept as
 * it is, recognised without them (most of a call's CPU beyond the tool's: docs/performance.md,
 * "MCP"); undefined for any other message, which `checkedToolCall` judges.
 */
export function plainToolCall(message: object): DirectToolCall | undefined {
  const { jsonrpc, id, params } = message as Record<string, unknown>;
  if (jsonrpc !== '2.0' || !onlyKeys(message as Record<string, unknown>, REQUEST_KEYS)) return undefined;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (!isRecord(params) || typeof params.name !== 'string' || !onlyKeys(params, PARAMS_KEYS)) return undefined;
  if (params.arguments !== undefined && !isRecord(params.arguments)) return undefined;
  const call: DirectToolCall['params'] = { name: params.name };
  if (params.arguments !== undefined) call.arguments = params.arguments;
  return { id: id as RequestId, params: call };
}

/** Any other `tools/call`, judged by the SDK's schemas. */
export function checkedToolCall(message: object): DirectToolCall | undefined {
  if (!isJSONRPCRequest(message)) return undefined;
  const call = CallToolRequestSchema.safeParse(message);
  if (!call.success || call.data.params.task !== undefined) return undefined;
  return { id: message.id, params: call.data.params };
}

/**
 * A tool's result as a JSON-RPC response's text (UTF-8, as the SDK's transport writes it); a page
 * in the structured content (`records`) has each record's text made once per record, as the REST
 * listing's (src/http/envelope.ts).
 */
export function resultText(id: RequestId, result: CallToolResult): string {
  const { structuredContent: page, ...rest } = result;
  if (page === undefined || !Array.isArray(page.records)) return JSON.stringify({ result, jsonrpc: '2.0', id });
  const head = JSON.stringify(rest);
  const structured = jsonWithRecords(page as { records: object[] });
  return `{"result":${head.slice(0, -1)}${head === '{}' ? '' : ','}"structuredContent":${structured}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** The JSON-RPC response (its text) to a direct `tools/call`: the tool's result, or the error the SDK's server would answer. */
export async function answerToolCall(call: DirectToolCall, api: LegsApi, scopes: readonly string[]): Promise<string> {
  try {
    return resultText(call.id, await callTool(call.params.name, call.params.arguments, api, scopes));
  } catch (err) {
    const { code, message } = err as { code?: unknown; message?: unknown };
    const error = { code: Number.isSafeInteger(code) ? (code as number) : ErrorCode.InternalError, message: typeof message === 'string' ? message : 'Internal error' };
    return JSON.stringify(publicMessage({ jsonrpc: '2.0', id: call.id, error }));
  }
}
