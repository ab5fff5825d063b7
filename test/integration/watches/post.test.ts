import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from '../../../src/watches/post.js';

/** One webhook POST against servers on 127.0.0.1 that misbehave: it ends, whatever they do. */
const servers: Server[] = [];
async function serve(handler: Parameters<typeof createServer>[1]): Promise<URL> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
}
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});
const loopback = { address: '127.0.0.1', family: 4 as const };

describe('postWebhook', () => {
  it('a peer that never answers is cut at the timeout (no answer, an error)', async () => {
    const url = await serve(() => undefined);
    const outcome = await postWebhook(url, loopback, {}, '{}', { timeoutMs: 300, maxResponseBytes: 4096 });
    expect(outcome).toEqual({ error: 'no answer within 300 ms' });
  });

  it('a peer that sends headers then stalls the body is cut at the timeout too', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write('x');
    });
    const outcome = await postWebhook(url, loopback, {}, '{}', { timeoutMs: 300, maxResponseBytes: 4096 });
    expect(outcome.error).toBe('no answer within 300 ms');
  });

  it('does not follow a redirect: the 302 is the answer, and its target gets nothing', async () => {
    let followed = 0;
    const target = await serve((_req, res) => {
      followed++;
      res.end();
    });
    const url = await serve((_req, res) => {
      res.writeHead(302, { location: target.href });
      res.end();
    });
    expect(await postWebhook(url, loopback, {}, '{}', { timeoutMs: 2000, maxResponseBytes: 4096 })).toEqual({ status: 302 });
    expect(followed).toBe(0);
  });

  it('reads an endless answer only to its bound', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(16_384, 120);
      const pump = () => {
        while (res.write(chunk));
        res.once('drain', pump);
      };
      pump();
    });
    expect(await postWebhook(url, loopback, {}, '{}', { timeoutMs: 10_000, maxResponseBytes: 4096 })).toEqual({ status: 200 });
  });

  it('connects to the checked address, whatever the URL names (no second DNS lookup)', async () => {
    const url = await serve((req, res) => {
      res.writeHead(201);
      res.end(req.headers.host);
    });
    const named = new URL(url.href.replace('127.0.0.1', 'hooks.invalid'));
    expect(await postWebhook(named, loopback, {}, '{}', { timeoutMs: 2000, maxResponseBytes: 4096 })).toEqual({ status: 201 });
  });

  it('a refused connection is an error, not an answer', async () => {
    const url = await serve(() => undefined);
    const port = url.port;
    servers.pop()!.close();
    const outcome = await postWebhook(new URL(`http://127.0.0.1:${port}/`), loopback, {}, '{}', { timeoutMs: 2000, maxResponseBytes: 4096 });
    expect(outcome.error).toBe('ECONNREFUSED');
  });
});
