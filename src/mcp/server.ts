import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult, type JSONRPCMessage, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../errors.js';
import { mapError } from '../http/envelope.js';
import { logger } from '../logger.js';
import { missingScopes, TOOLS, type LegsApi, type ToolDefinition } from './tools.js';

/**
 * The MCP server of one key: the tools its scopes allow, run against `api`. A tool's refusal (an
 * AppError, or any failure as the envelope maps it) is a result with `isError` and `CODE: message`;
 * an unknown tool is a JSON-RPC error. Never a stack trace or a library's text.
 */
export const SERVER_INFO = { name: 'empty-legs', title: 'Empty legs', version: '1.0.0' } as const;

export const INSTRUCTIONS =
  'Empty-leg private-jet flights (one-way repositioning flights, discounted): search them, read one, and (with the scopes) save a search as a watch that pushes matching legs to a webhook. ' +
  'Arguments follow the REST API\'s query parameters and rules; a refused argument comes back as an error result "CODE: message" naming it.';

const listings = new Map<string, Tool>();

/** A tool as tools/list gives it (made once per container). */
export function toolListing(tool: ToolDefinition): Tool {
  let listing = listings.get(tool.name);
  if (listing === undefined) listings.set(tool.name, (listing = listingOf(tool)));
  return listing;
}

function listingOf(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema() as Tool['inputSchema'],
    outputSchema: tool.outputSchema() as Tool['outputSchema'],
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly,
      destructiveHint: tool.destructive,
      idempotentHint: tool.idempotent,
      openWorldHint: false,
    },
  };
}

const UNKNOWN_TOOL = 'Unknown tool: ';

/** JSON-RPC's own texts of its error codes: what a JSON-RPC error says unless it is ours (an unknown tool). */
const RPC_TEXTS: Readonly<Record<number, string>> = {
  [ErrorCode.ParseError]: 'Parse error',
  [ErrorCode.InvalidRequest]: 'Invalid request',
  [ErrorCode.MethodNotFound]: 'Method not found',
  [ErrorCode.InvalidParams]: 'Invalid params',
  [ErrorCode.InternalError]: 'Internal error',
};

/** `message` with a JSON-RPC error's text replaced by its code's own, unless it is ours: no library's text goes out. */
export function publicMessage(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message)) return message;
  const { code, message: text } = message.error;
  if (text.startsWith(UNKNOWN_TOOL) || text === RPC_TEXTS[code]) return message;
  return { ...message, error: { code, message: RPC_TEXTS[code] ?? 'Server error' } };
}

function refusal(tool: string, error: unknown): CallToolResult {
  const mapped = mapError(error);
  if (mapped.internal) logger.error('tool failed', { tool, code: mapped.code, error: error as Error });
  else logger.info('tool refused', { tool, code: mapped.code, reason: mapped.message });
  return { isError: true, content: [{ type: 'text', text: `${mapped.code}: ${mapped.message}` }] };
}

/** Runs one tool call: its scopes, its arguments, its answer (or refusal). */
export async function callTool(name: string, args: Record<string, unknown> | undefined, api: LegsApi, scopes: readonly string[]): Promise<CallToolResult> {
  const tool = TOOLS.find((t) => t.name === name);
  if (tool === undefined) throw Object.assign(new Error(`${UNKNOWN_TOOL}${name}`), { code: ErrorCode.InvalidParams });
  const missing = missingScopes(tool, scopes);
  try {
    if (missing.length > 0) throw new AppError('PERMISSION_DENIED', `This API key lacks the scope '${missing[0]}' that the tool ${name} requires`);
    const answer = await tool.run(args, api);
    return { content: [{ type: 'text', text: answer.text }], structuredContent: answer.structured };
  } catch (err) {
    return refusal(name, err);
  }
}

/** `server` connected to `transport`, every message it sends passed through `publicMessage`. */
export async function connectToolServer(server: Server, transport: Transport): Promise<void> {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(publicMessage(message), options);
  await server.connect(transport);
}

let ajv: AjvJsonSchemaValidator | undefined;

/**
 * The servers' one JSON Schema validator, made on first use (the SDK makes a new Ajv per server
 * otherwise, most of a warm search's CPU: docs/performance.md, "MCP"); only elicitation uses it.
 */
export const SHARED_SCHEMA_VALIDATOR: jsonSchemaValidator = {
  getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema),
};

/** An SDK server with the tools `scopes` allow; connect it with `connectToolServer`. */
export function createToolServer(api: LegsApi, scopes: readonly string[]): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: SHARED_SCHEMA_VALIDATOR });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.filter((tool) => missingScopes(tool, scopes).length === 0).map(toolListing),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(request.params.name, request.params.arguments, api, scopes));
  return server;
}
