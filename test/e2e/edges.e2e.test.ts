import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createEdgeServer, MAX_REQUEST_HEAD_BYTES } from '../../local/edges.js';
import { createGateway, type AuthorizerHandler, type HttpHandler } from '../../local/gateway.js';
import { rawRequest, type RawResponse } from '../support/raw-http.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';
import type { Envelope as ApiEnvelope } from '../../src/http/envelope.js';

/**
 * The edges of `npm start`, spoken to over raw sockets (fetch would normalise or refuse these
 * requests): whatever arrives, the answer is the envelope with the edge headers, never an empty
 * body or a closed socket, and the server keeps serving.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PATH = '/open/v1/empty-legs';

/** The response envelope (src/http/envelope.ts) as these tests read it. */
type Envelope = ApiEnvelope<unknown>;

/** The edge headers, and the body parsed as the envelope whose traceId is the X-Trace-Id header. */
function expectEnvelope(res: RawResponse, status: number, code: string): Envelope {
  expect({ status: res.status, code: (JSON.parse(res.body || '{}') as Envelope).code }).toEqual({ status, code });
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['x-trace-id']).toMatch(UUID);
  const body = JSON.parse(res.body) as Envelope;
  expect(Object.keys(body)).toEqual(['code', 'message', 'data', 'traceId']);
  expect(body.traceId).toBe(res.headers['x-trace-id']);
  if (code !== 'OK') expect(body.data).toBeNull();
  return body;
}

let service: RunningService;
let port: number;

function get(target: string | Buffer, headers: string[] = []): Buffer {
  const head = ['Host: 127.0.0.1', `X-API-Key: ${service.apiKey}`, 'Connection: close', ...headers].join('\r\n');
  return Buffer.concat([Buffer.from('GET '), Buffer.isBuffer(target) ? target : Buffer.from(target, 'latin1'), Buffer.from(` HTTP/1.1\r\n${head}\r\n\r\n`)]);
}

beforeAll(async () => {
  service = await startLocalServer();
  port = Number(new URL(service.baseUrl).port);
}, 120_000);

afterAll(async () => service?.stop());

describe('npm start answers every request in the envelope, with the edge headers', () => {
  it('a normal request: 200 OK', async () => {
    expectEnvelope(await rawRequest(port, get(`${PATH}?size=2`)), 200, 'OK');
  });

  it(`a request line over ${MAX_REQUEST_HEAD_BYTES} bytes: 400 INVALID_PARAMETER naming the limit`, async () => {
    const body = expectEnvelope(await rawRequest(port, get(`${PATH}?depCityName=${'a'.repeat(MAX_REQUEST_HEAD_BYTES + 100)}`)), 400, 'INVALID_PARAMETER');
    expect(body.message).toContain(String(MAX_REQUEST_HEAD_BYTES));
  });

  it('headers over the limit in all: 400 INVALID_PARAMETER naming the limit', async () => {
    const many = Array.from({ length: 40 }, (_, i) => `X-Filler-${i}: ${'b'.repeat(400)}`);
    const body = expectEnvelope(await rawRequest(port, get(PATH, many)), 400, 'INVALID_PARAMETER');
    expect(body.message).toContain(String(MAX_REQUEST_HEAD_BYTES));
  });

  it.each([
    ['raw UTF-8 in the query', Buffer.concat([Buffer.from(`${PATH}?depCityName=`), Buffer.from('上海', 'utf8')])],
    ['a raw latin1 byte in the path', Buffer.concat([Buffer.from('/open/v1/caf'), Buffer.from([0xe9])])],
    ['a control character in the path', Buffer.from('/open/\x01')],
    ['a space-free garbage target', Buffer.from('nonsense')],
  ])('%s: 400 INVALID_PARAMETER', async (_name, target) => {
    const body = expectEnvelope(await rawRequest(port, get(target)), 400, 'INVALID_PARAMETER');
    expect(body.message).toMatch(/URL/);
  });

  it('a target that is no URL (`http://[::1`): 400 INVALID_PARAMETER; `//[` is a path: 404 NOT_FOUND', async () => {
    expectEnvelope(await rawRequest(port, get('http://[::1')), 400, 'INVALID_PARAMETER');
    // Read as a URL relative to the server, `//[` would be a host: it made the gateway throw
    // outside its error handling and took the whole server down.
    expectEnvelope(await rawRequest(port, get('//[')), 404, 'NOT_FOUND');
    expectEnvelope(await rawRequest(port, get(`/${PATH}`)), 404, 'NOT_FOUND');
  });

  it('malformed percent-encoding reaches the function and gets its answer', async () => {
    // A truncated UTF-8 sequence decodes to U+FFFD: a city name that matches nothing.
    const city = expectEnvelope(await rawRequest(port, get(`${PATH}?depCityName=%E0%A4%A`)), 200, 'OK');
    expect(city.data).toMatchObject({ total: 0, records: [] });
    // Not an integer.
    expectEnvelope(await rawRequest(port, get(`${PATH}?page=%zz`)), 400, 'INVALID_PARAMETER');
    expectEnvelope(await rawRequest(port, get(`${PATH}?depDate=%E0%A4%A`)), 400, 'INVALID_PARAMETER');
    // No such route.
    expectEnvelope(await rawRequest(port, get(`${PATH}%zz`)), 404, 'NOT_FOUND');
    expectEnvelope(await rawRequest(port, get(`/%E0%A4%A`)), 404, 'NOT_FOUND');
  });

  it('bytes that are not HTTP: 400 INVALID_PARAMETER', async () => {
    expectEnvelope(await rawRequest(port, 'HELLO\r\n\r\n'), 400, 'INVALID_PARAMETER');
    expectEnvelope(await rawRequest(port, `GET ${PATH} HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n`), 400, 'INVALID_PARAMETER');
  });

  it('HTTP/1.1 without Host, and HTTP/1.0, are served', async () => {
    expectEnvelope(await rawRequest(port, `GET ${PATH}?size=1 HTTP/1.1\r\nX-API-Key: ${service.apiKey}\r\nConnection: close\r\n\r\n`), 200, 'OK');
    expectEnvelope(await rawRequest(port, `GET ${PATH} HTTP/1.0\r\n\r\n`), 401, 'API_KEY_MISSING');
  });

  it('an unusual Expect header is served, not refused with an empty 417', async () => {
    expectEnvelope(await rawRequest(port, get(`${PATH}?size=1`, ['Expect: something-else'])), 200, 'OK');
  });

  it('CONNECT: 404 NOT_FOUND', async () => {
    expectEnvelope(await rawRequest(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'), 404, 'NOT_FOUND');
  });

  it('still serves after all of the above', async () => {
    const res = await fetch(`${service.baseUrl}${PATH}?size=1`, { headers: { 'X-API-Key': service.apiKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('the local gateway’s own answers carry the edge headers', () => {
  let server: Server;
  let gatewayPort: number;
  const ok: HttpHandler = () => Promise.resolve<APIGatewayProxyStructuredResultV2>({ statusCode: 200, body: '{}' });
  const throwing: AuthorizerHandler = () => Promise.reject(new Error('authorizer crashed'));
  const denying: AuthorizerHandler = () => Promise.resolve({ isAuthorized: false });

  beforeAll(async () => {
    const gateway = createGateway({
      routes: [
        { method: 'GET', path: '/throwing-authorizer', handler: ok, authorizer: throwing },
        { method: 'GET', path: '/denying-authorizer', handler: ok, authorizer: denying },
        { method: 'GET', path: '/throwing-function', handler: () => Promise.reject(new Error('function crashed')) },
      ],
      defaultRoute: ok,
    });
    server = createEdgeServer((req, res) => void gateway(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    gatewayPort = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([
    ['/throwing-authorizer', 500],
    ['/denying-authorizer', 403],
    ['/throwing-function', 500],
  ])('%s', async (path, status) => {
    const res = await rawRequest(gatewayPort, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-trace-id']).toMatch(UUID);
    expect(() => JSON.parse(res.body) as unknown).not.toThrow();
  });

  it('a body over the limit', async () => {
    // Over API Gateway's 10 MB: answered from the Content-Length, before the body is read.
    const res = await rawRequest(gatewayPort, `POST /anything HTTP/1.1\r\nHost: x\r\nContent-Length: ${10 * 1024 * 1024 + 1}\r\nConnection: close\r\n\r\nxxxx`);
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-trace-id']).toMatch(UUID);
  });
});
