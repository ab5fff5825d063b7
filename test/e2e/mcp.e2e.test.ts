import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { writeSeller } from '../../src/enquiries/index.js';
import { ROOT, runScript } from '../support/commands.js';
import { callApi } from '../support/contract.js';
import { clockEnv } from '../support/clock.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';

/**
 * /open/v1/mcp with the official SDK's client and its Streamable HTTP transport against the local
 * server, and `npm run mcp` with its stdio transport: the tools by scope, every tool called and
 * compared with its REST route's answer, refusals as isError with the API's code, JSON-RPC errors.
 */
jest.setTimeout(120_000);

let service: RunningService;
let mcpUrl: URL;
let readOnlyKey: string;
let enquiringKey: string;

async function keyWith(scopes: string): Promise<string> {
  const made = await runScript('keys', ['create', '--env', 'test', '--scopes', scopes, '--json'], {
    DYNAMODB_ENDPOINT: service.dynamodbEndpoint,
    KEYS_TABLE_NAME: service.keysTableName,
    LEGS_TABLE_NAME: service.legsTableName,
  });
  return (JSON.parse(made.stdout) as { key: string }).key;
}

async function httpClient(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers } }));
  return client;
}

async function rest<T>(path: string, init: RequestInit = {}): Promise<T> {
  const r = await callApi<{ data: T }>(`${service.baseUrl}${path}`, { ...init, headers: { 'x-api-key': service.apiKey, ...init.headers } });
  return r.body.data;
}

const text = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

beforeAll(async () => {
  service = await startLocalServer({ fewLegs: true });
  mcpUrl = new URL('/open/v1/mcp', service.baseUrl);
  readOnlyKey = await keyWith('empty_leg:read');
  enquiringKey = await keyWith('empty_leg:read,enquiry:write');
  // The demo source's seller takes enquiries (docs/enquiries.md): the seller is any client here.
  const client = createDocumentClient({ endpoint: service.dynamodbEndpoint, region: 'local' });
  try {
    await writeSeller(client, service.legsTableName, { source: 'default', clientId: 'cli_mcp_e2e_seller', enquiryUrl: null, secret: null, setAt: 0 });
  } finally {
    client.destroy();
  }
});

const ASK = { passengers: 2, contact: { name: 'Ada Broker', email: 'ada@example.com' }, reference: 'MCP-1' };

/** enquire through `client`: an enquiry, its replay with the same key, refusals as the REST route's. */
async function enquireTwice(client: Client, key: string): Promise<void> {
  const id = ((await rest<{ records: { id: string }[] }>('/open/v1/empty-legs?size=1&depCityName=London')).records[0]!).id;
  const idempotencyKey = randomUUID();
  const first = (await client.callTool({ name: 'enquire', arguments: { id, idempotencyKey, ...ASK } })) as CallToolResult;
  expect(first.isError).toBeFalsy();
  const enquiry = first.structuredContent as { id: string; legId: string; status: string };
  expect(enquiry).toMatchObject({ legId: id, status: 'open', passengers: 2, reference: 'MCP-1' });
  expect(text(first)).toContain(enquiry.id);
  // The REST route's enquiry, read with the same key.
  const read = await callApi<{ data: unknown }>(`${service.baseUrl}/open/v1/enquiries/${enquiry.id}`, { headers: { 'x-api-key': key } });
  expect(read.body.data).toEqual(enquiry);
  const again = (await client.callTool({ name: 'enquire', arguments: { ...ASK, idempotencyKey, id } })) as CallToolResult;
  expect(again.structuredContent).toEqual(enquiry);
  expect(text(again)).toMatch(/first answer to this idempotencyKey again/);
  const reused = (await client.callTool({ name: 'enquire', arguments: { id, idempotencyKey, ...ASK, passengers: 3 } })) as CallToolResult;
  const restReused = await callApi<{ code: string; message: string }>(`${service.baseUrl}/open/v1/empty-legs/${id}/enquiries`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify({ ...ASK, passengers: 3 }),
  });
  expect([reused.isError, text(reused)]).toEqual([true, `IDEMPOTENCY_KEY_REUSED: ${restReused.body.message}`]);
  const refused = (await client.callTool({ name: 'enquire', arguments: { id, idempotencyKey: randomUUID(), ...ASK, passengers: 0 } })) as CallToolResult;
  expect(text(refused)).toMatch(/^INVALID_PARAMETER: Invalid parameter 'passengers'/);
  const noKey = (await client.callTool({ name: 'enquire', arguments: { id, ...ASK } })) as CallToolResult;
  expect(text(noKey)).toMatch(/^INVALID_PARAMETER: Invalid parameter 'idempotencyKey': is required/);
  const badKey = (await client.callTool({ name: 'enquire', arguments: { id, idempotencyKey: 'é', ...ASK } })) as CallToolResult;
  expect(text(badKey)).toBe("INVALID_PARAMETER: Invalid parameter 'idempotencyKey': must be 1-255 printable ASCII characters");
}

afterAll(async () => {
  await service?.stop();
});

describe('/open/v1/mcp over Streamable HTTP (official SDK client)', () => {
  it('initializes, lists the tools of the key with their schemas and annotations, and calls every one', async () => {
    const client = await httpClient({ authorization: `Bearer ${service.apiKey}` });
    expect(client.getServerVersion()?.name).toBe('empty-legs');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_empty_legs', 'get_empty_leg', 'list_sources', 'list_watches', 'create_watch', 'delete_watch', 'enquire']);
    for (const tool of tools) {
      expect(tool.title).toEqual(expect.any(String));
      expect(tool.description!.length).toBeGreaterThan(40);
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toMatchObject({ openWorldHint: false, readOnlyHint: expect.any(Boolean), destructiveHint: expect.any(Boolean), idempotentHint: expect.any(Boolean) });
    }
    const search = tools.find((t) => t.name === 'search_empty_legs')!;
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['depDate', 'depNear', 'minSeats', 'currency', 'pricedOnly', 'page', 'size', 'include', 'source', 'kind', 'verifiedOnly', 'maxAgeHours']));
    const enquire = tools.find((t) => t.name === 'enquire')!;
    expect(enquire.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(enquire.inputSchema.required).toEqual(expect.arrayContaining(['id', 'idempotencyKey', 'passengers', 'contact']));

    // The search reads what the REST listing reads (the client validates each answer against its outputSchema).
    const params = { depCityName: 'London', size: 2, sort: 'startDate' };
    const found = (await client.callTool({ name: 'search_empty_legs', arguments: params })) as CallToolResult;
    const listed = await rest<{ records: { id: string }[]; total: number }>('/open/v1/empty-legs?depCityName=London&size=2&sort=startDate');
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent).toEqual(listed);
    expect(listed.records.length).toBeGreaterThan(0);
    for (const leg of listed.records) expect(text(found)).toContain(leg.id);

    const id = listed.records[0]!.id;
    const one = (await client.callTool({ name: 'get_empty_leg', arguments: { id, currency: 'EUR' } })) as CallToolResult;
    expect(one.structuredContent).toEqual(await rest(`/open/v1/empty-legs/${id}?currency=EUR`));
    expect(text(one)).toContain(id);
    // `include` as the by-id route and the listing take it.
    const blocks = (await client.callTool({ name: 'get_empty_leg', arguments: { id, include: 'provenance,departure' } })) as CallToolResult;
    expect(blocks.structuredContent).toEqual(await rest(`/open/v1/empty-legs/${id}?include=provenance,departure`));
    expect(blocks.structuredContent).toHaveProperty('provenance');
    expect(((await client.callTool({ name: 'get_empty_leg', arguments: { id, group: 'flight' } })) as CallToolResult).structuredContent).toEqual(await rest(`/open/v1/empty-legs/${id}?group=flight`));
    const foundWith = (await client.callTool({ name: 'search_empty_legs', arguments: { ...params, include: 'departure' } })) as CallToolResult;
    expect(foundWith.structuredContent).toEqual(await rest('/open/v1/empty-legs?depCityName=London&size=2&sort=startDate&include=departure'));
    const badInclude = (await client.callTool({ name: 'get_empty_leg', arguments: { id, include: 'provenance,provenance' } })) as CallToolResult;
    expect(text(badInclude)).toMatch(/^INVALID_PARAMETER: Invalid parameter 'include'/);

    const sources = (await client.callTool({ name: 'list_sources', arguments: {} })) as CallToolResult;
    const sourcesListed = await rest<{ records: { id: string }[] }>('/open/v1/sources');
    expect(sources.structuredContent).toEqual(sourcesListed);
    expect(sourcesListed.records.length).toBeGreaterThan(0);
    for (const source of sourcesListed.records) expect(text(sources)).toContain(source.id);

    const created = (await client.callTool({ name: 'create_watch', arguments: { url: 'http://127.0.0.1:9/hook', filters: { depAirportCode: 'EGLF', minSeats: 4 } } })) as CallToolResult;
    expect(created.isError).toBeFalsy();
    const watch = created.structuredContent as { id: string; secret: string; filters: Record<string, unknown> };
    expect(watch.secret).toMatch(/^whsec_/);
    expect(watch.filters).toEqual({ depAirportCode: 'EGLF', minSeats: 4 });
    const listedWatches = (await client.callTool({ name: 'list_watches', arguments: {} })) as CallToolResult;
    expect(listedWatches.structuredContent).toEqual(await rest('/open/v1/watches'));
    expect(text(listedWatches)).toContain(watch.id);
    const deleted = (await client.callTool({ name: 'delete_watch', arguments: { id: watch.id } })) as CallToolResult;
    expect(deleted.structuredContent).toEqual({ id: watch.id, deleted: true });
    const again = (await client.callTool({ name: 'delete_watch', arguments: { id: watch.id } })) as CallToolResult;
    expect(again.isError).toBe(true);
    expect(text(again)).toBe('NOT_FOUND: No watch with this id');
    await client.close();
  });

  it('a refused argument is a result with isError and the API code and message; an unknown tool is a JSON-RPC error', async () => {
    const client = await httpClient({ 'x-api-key': service.apiKey });
    for (const [name, args, query] of [
      ['search_empty_legs', { minSeats: 0 }, '?minSeats=0'],
      ['search_empty_legs', { depDate: '2026-02-30' }, '?depDate=2026-02-30'],
      ['search_empty_legs', { tripFrom: 'LFPB' }, '?tripFrom=LFPB'],
      ['search_empty_legs', { currency: 'eur' }, '?currency=eur'],
      ['get_empty_leg', { id: 'FEW-0', group: 'aircraft' }, '/FEW-0?group=aircraft'],
    ] as const) {
      const refused = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const rest = await callApi<{ code: string; message: string }>(`${service.baseUrl}/open/v1/empty-legs${query}`, { headers: { 'x-api-key': service.apiKey } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toBe(`${rest.body.code}: ${rest.body.message}`);
    }
    const typed = (await client.callTool({ name: 'search_empty_legs', arguments: { minSeats: '4' } })) as CallToolResult;
    expect(text(typed)).toBe("INVALID_PARAMETER: Invalid parameter 'minSeats': must be an integer (a JSON number)");
    const unknownArgument = (await client.callTool({ name: 'search_empty_legs', arguments: { depCity: 'Paris' } })) as CallToolResult;
    expect(text(unknownArgument)).toMatch(/^INVALID_PARAMETER: Invalid parameter 'depCity': is not an argument of this tool/);
    const badId = (await client.callTool({ name: 'get_empty_leg', arguments: { id: 'no such/leg' } })) as CallToolResult;
    expect(text(badId)).toMatch(/^INVALID_PARAMETER: Invalid parameter 'id'/);
    await expect(client.callTool({ name: 'book_a_flight', arguments: {} })).rejects.toThrow(/-32602.*Unknown tool: book_a_flight$/);
    await client.close();
  });

  it('a key without a scope sees and runs only the tools of its scopes', async () => {
    const client = await httpClient({ authorization: `Bearer ${readOnlyKey}` });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search_empty_legs', 'get_empty_leg', 'list_sources']);
    const refused = (await client.callTool({ name: 'create_watch', arguments: { url: 'http://127.0.0.1:9/hook' } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe("PERMISSION_DENIED: This API key lacks the scope 'watch:write' that the tool create_watch requires");
    await client.close();
  });

  it("enquire: the REST route's enquiry, its key replayed, its refusals with their codes", async () => {
    const client = await httpClient({ 'x-api-key': enquiringKey });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search_empty_legs', 'get_empty_leg', 'list_sources', 'enquire']);
    await enquireTwice(client, enquiringKey);
    await client.close();
  });

  it('HTTP: no key is 401 in the envelope, GET and DELETE are 405, malformed JSON-RPC is a JSON-RPC error without library text', async () => {
    const post = (body: string, headers: Record<string, string> = { 'x-api-key': service.apiKey }) =>
      callApi<Record<string, unknown>>(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
    const anonymous = await post('{"jsonrpc":"2.0","id":1,"method":"ping"}', {});
    expect(anonymous.res.status).toBe(401);
    expect(anonymous.body.code).toBe('API_KEY_MISSING');
    for (const method of ['GET', 'DELETE']) {
      const r = await callApi<{ error: { code: number } }>(mcpUrl, { method, headers: { 'x-api-key': service.apiKey } });
      expect([r.res.status, r.res.headers.get('allow'), r.body.error.code]).toEqual([405, 'POST', -32000]);
    }
    const notJson = await post('{"jsonrpc":');
    expect([notJson.res.status, (notJson.body.error as { code: number }).code]).toEqual([400, -32700]);
    const badParams = await post('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{}}}', { 'x-api-key': service.apiKey, 'mcp-protocol-version': '2025-11-25' });
    // The SDK's own validation text (zod's) is replaced by JSON-RPC's text of its code.
    expect(badParams.body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: expect.any(Number), message: expect.stringMatching(/^(Invalid params|Internal error)$/) } });
    const unknownMethod = await post('{"jsonrpc":"2.0","id":8,"method":"resources/list"}', { 'x-api-key': service.apiKey, 'mcp-protocol-version': '2025-11-25' });
    expect(unknownMethod.body).toEqual({ jsonrpc: '2.0', id: 8, error: { code: -32601, message: 'Method not found' } });
  });
});

describe('npm run mcp (stdio, over the HTTP API)', () => {
  it('lists the tools of its key, searches as the listing does, and refuses as the API does', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'cli/mcp.ts'],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...clockEnv(), EMPTY_LEGS_URL: service.baseUrl, EMPTY_LEGS_KEY: readOnlyKey },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search_empty_legs', 'get_empty_leg', 'list_sources']);
    const found = (await client.callTool({ name: 'search_empty_legs', arguments: { arrCityName: 'Nice', size: 3 } })) as CallToolResult;
    expect(found.structuredContent).toEqual(await rest('/open/v1/empty-legs?arrCityName=Nice&size=3'));
    const id = (found.structuredContent as { records: { id: string }[] }).records[0]!.id;
    expect(((await client.callTool({ name: 'list_sources', arguments: {} })) as CallToolResult).structuredContent).toEqual(await rest('/open/v1/sources'));
    expect(((await client.callTool({ name: 'get_empty_leg', arguments: { id } })) as CallToolResult).structuredContent).toEqual(await rest(`/open/v1/empty-legs/${id}`));
    const refused = (await client.callTool({ name: 'search_empty_legs', arguments: { offsetDays: 3 } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe("INVALID_PARAMETER: Invalid parameter 'offsetDays': a non-zero value requires depDate");
    const denied = (await client.callTool({ name: 'list_watches', arguments: {} })) as CallToolResult;
    expect(text(denied)).toBe("PERMISSION_DENIED: This API key lacks the scope 'watch:read' that the tool list_watches requires");
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool: nope$/);
    await client.close();
  });
});

describe('npm run mcp: enquire', () => {
  it('asks over the HTTP API with the key as Idempotency-Key, replays and refuses as the route does', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'cli/mcp.ts'],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...clockEnv(), EMPTY_LEGS_URL: service.baseUrl, EMPTY_LEGS_KEY: enquiringKey },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
    await client.connect(transport);
    await enquireTwice(client, enquiringKey);
    await client.close();
  });
});

/** The conformance scenarios that apply to this server (docs/mcp-conformance.md lists the others, with the reason). */
export const CONFORMANCE_SCENARIOS = ['server-initialize', 'ping', 'tools-list'];

describe('npx @modelcontextprotocol/conformance server (the pinned devDependency, offline)', () => {
  it.each(CONFORMANCE_SCENARIOS)('%s passes against the local endpoint', async (scenario) => {
    // The conformance client sends no key: a loopback proxy adds it, as a configured client would.
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k))) as Record<string, string>;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        void fetch(mcpUrl, { method: req.method ?? 'GET', headers: { ...headers, 'x-api-key': service.apiKey }, ...(body ? { body } : {}) }).then(async (r) => {
          res.writeHead(r.status, Object.fromEntries([...r.headers].filter(([k]) => k !== 'content-encoding' && k !== 'content-length')));
          res.end(Buffer.from(await r.arrayBuffer()));
        });
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as AddressInfo;
    try {
      const args = ['--import', './test/support/conformance-node20.mjs', 'node_modules/@modelcontextprotocol/conformance/dist/index.js', 'server'];
      const run = await promisify(execFile)(process.execPath, [...args, '--url', `http://127.0.0.1:${port}/mcp`, '--scenario', scenario], { cwd: ROOT, timeout: 60_000 })
        .then(({ stdout }) => ({ status: 0, stdout }))
        .catch((err: { code?: number; stdout?: string; stderr?: string }) => ({ status: err.code ?? -1, stdout: `${err.stdout ?? ''}${err.stderr ?? ''}` }));
      expect({ status: run.status, out: run.status === 0 ? '' : run.stdout }).toEqual({ status: 0, out: '' });
      expect(run.stdout).toMatch(/Passed: [1-9]\d*\/\d+, 0 failed/);
    } finally {
      proxy.close();
    }
  });
});
