import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { atClockInstant } from '../../src/clock.js';
import { testClock } from './clock.js';

/**
 * A webhook receiver on 127.0.0.1 for tests: every request is recorded with whether its signature
 * verifies with the secret of its path (`/<name>`), checked by the standardwebhooks verifier, not
 * by our code, at the tests' clock (the one the service signs with under `--at`). `respond`
 * decides each answer (default 204); it may return 'stall' to hold the request.
 */
export interface Received {
  path: string;
  webhookId: string;
  verified: boolean;
  body: { type: string; timestamp: string; data: { watchId: string; id: string; leg: { id: string } | null } };
  at: number;
}

export interface Receiver {
  url(name: string): string;
  secrets: Map<string, string>;
  received: Received[];
  respond: (path: string, attempt: number) => number | 'stall';
  waitFor(predicate: (r: Received) => boolean, timeoutMs: number): Promise<Received | undefined>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const secrets = new Map<string, string>();
  const attempts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const path = req.url ?? '/';
      const secret = secrets.get(path.slice(1));
      let verified = false;
      try {
        if (secret !== undefined) {
          atClockInstant(testClock, () => new Webhook(secret).verify(text, req.headers as Record<string, string>));
          verified = true;
        }
      } catch {
        verified = false;
      }
      const webhookId = String(req.headers['webhook-id'] ?? '');
      const n = (attempts.get(webhookId) ?? 0) + 1;
      attempts.set(webhookId, n);
      received.push({ path, webhookId, verified, body: JSON.parse(text) as Received['body'], at: performance.now() });
      const answer = receiver.respond(path, n);
      if (answer === 'stall') return;
      res.writeHead(answer);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    secrets,
    received,
    respond: () => 204,
    async waitFor(predicate, timeoutMs) {
      const until = performance.now() + timeoutMs;
      for (;;) {
        const found = received.find(predicate);
        if (found || performance.now() > until) return found;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
