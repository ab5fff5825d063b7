import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { atClockInstant } from '../../src/clock.js';
import { testClock } from './clock.js';

/**
 * A webhook receiver on 127.0.0.1 for tests: every request is recorded with whether its signature
 * verifies with the secret of its path (`/<name>`), checked by the standardwebhooks verifier, not
 * by our code, at the tests' clock (the one the service signs with under `--at`). `respond`
 * decides each answer (default 204); it may return 'stall' to hold the request,
 * or `{ status, afterMs }` to answer late.
 */
export interface Received {
  path: string;
  webhookId: string;
  verified: boolean;
  body: { type: string; timestamp: string; data: { watchId: string; id: string; leg: { id: string } | null } };
  at: number;
  /** The body as received and the headers, to verify with another secret. */
  raw: string;
  headers: Record<string, string>;
}

export interface Receiver {
  url(name: string): string;
  secrets: Map<string, string>;
  received: Received[];
  respond: (path: string, attempt: number) => number | 'stall' | { status: number; afterMs: number };
  waitFor(predicate: (r: Received) => boolean, timeoutMs: number): Promise<Received | undefined>;
  close(): Promise<void>;
}

/** Whether a received request verifies with `secret` (the standardwebhooks verifier: any of its signatures, a timestamp within 5 minutes). */
export function verifiesWith(secret: string, r: Pick<Received, 'raw' | 'headers'>): boolean {
  try {
    atClockInstant(testClock, () => new Webhook(secret).verify(r.raw, r.headers));
    return true;
  } catch {
    return false;
  }
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
      received.push({ path, webhookId, verified, body: JSON.parse(text) as Received['body'], at: performance.now(), raw: text, headers: req.headers as Record<string, string> });
      const answer = receiver.respond(path, n);
      if (answer === 'stall') return;
      const [status, afterMs] = typeof answer === 'number' ? [answer, 0] : [answer.status, answer.afterMs];
      const timer = setTimeout(() => {
        res.writeHead(status);
        res.end();
      }, afterMs);
      res.on('close', () => clearTimeout(timer));
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
