import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { AppError, ERROR_STATUS, type ErrorCode } from '../src/errors.js';
import { connectToolServer, createToolServer } from '../src/mcp/server.js';
import type { Enquiry } from '../src/mcp/summary.js';
import type { LegsApi } from '../src/mcp/tools.js';
import { ROUTES } from '../src/routes.js';
import { CommandError, parseCommandLine } from './command.js';

/** The tools' API over HTTP: each operation its REST route, with the key; an error envelope becomes its AppError. */
export function httpApi(baseUrl: string, key: string): LegsApi & { scopes(): Promise<readonly string[]> } {
  const base = baseUrl.replace(/\/+$/, '');
  async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    return (await exchange<T>(method, path, body, headers)).data;
  }
  async function exchange<T>(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<{ data: T; response: Response }> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: { 'x-api-key': key, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', `The API at ${base} did not answer; retry later`);
    }
    const text = await response.text();
    let envelope: { code?: unknown; message?: unknown; data?: unknown } = {};
    try {
      envelope = JSON.parse(text) as typeof envelope;
    } catch {
      // Not JSON: a proxy's page; said by its status below.
    }
    if (response.ok && envelope.code === 'OK') return { data: envelope.data as T, response };
    const code = typeof envelope.code === 'string' && envelope.code in ERROR_STATUS ? (envelope.code as ErrorCode) : statusCode(response.status);
    throw new AppError(code, typeof envelope.message === 'string' ? envelope.message : `The API answered ${response.status}`);
  }
  const query = (params: Readonly<Record<string, string>>) => {
    const q = new URLSearchParams(params).toString();
    return q === '' ? '' : `?${q}`;
  };
  return {
    scopes: async () => (await call<{ scopes: string[] }>('GET', ROUTES.readOwnApiKey.path)).scopes,
    search: (params) => call('GET', `${ROUTES.listEmptyLegs.path}${query(params)}`),
    getLeg: (id, params) => call('GET', `${ROUTES.listEmptyLegs.path}/${encodeURIComponent(id)}${query(params)}`),
    listSources: () => call('GET', ROUTES.listSources.path),
    listWatches: () => call('GET', ROUTES.listWatches.path),
    createWatch: (body) => call('POST', ROUTES.createWatch.path, body),
    deleteWatch: async (id) => {
      await call('DELETE', `${ROUTES.listWatches.path}/${encodeURIComponent(id)}`);
    },
    enquire: async (id, idempotencyKey, body) => {
      const path = ROUTES.postEnquiry.path.replace('{id}', encodeURIComponent(id));
      const { data, response } = await exchange<Enquiry>('POST', path, body, { 'idempotency-key': idempotencyKey });
      return { enquiry: data, replayed: response.headers.get('idempotent-replayed') === 'true' };
    },
  };
}

/** An answer outside the envelope (API Gateway's own 413 or 429, a proxy) by its status. */
function statusCode(status: number): ErrorCode {
  if (status === 429) return 'RATE_LIMITED';
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 404) return 'NOT_FOUND';
  return status >= 500 ? 'SERVICE_UNAVAILABLE' : 'INVALID_PARAMETER';
}

/** Reads the settings, learns the key's scopes (GET /open/v1/api-keys/self), then serves on stdio until stdin ends. */
export async function main(): Promise<void> {
  parseCommandLine(process.argv.slice(2), {}, false);
  const url = process.env.EMPTY_LEGS_URL;
  const key = process.env.EMPTY_LEGS_KEY;
  if (url === undefined || !URL.canParse(url)) throw CommandError.usage('EMPTY_LEGS_URL', 'must be the API\'s base URL, such as http://localhost:3000');
  if (key === undefined || key.trim() === '') throw CommandError.usage('EMPTY_LEGS_KEY', 'must be an API key (elk_test_... or elk_live_...)');
  const api = httpApi(url, key.trim());
  let scopes: readonly string[];
  try {
    scopes = await api.scopes();
  } catch (err) {
    throw CommandError.failure(`The key was not accepted at ${url}: ${(err as Error).message}`);
  }
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await connectToolServer(createToolServer(api, scopes), transport);
  await closed;
}
