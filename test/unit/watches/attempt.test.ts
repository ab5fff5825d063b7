// @dateIndependent: signs at instants it fixes and verifies at the same
import { describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { attemptDelivery, type AttemptPorts } from '../../../src/watches/attempt.js';
import type { WebhookPoster } from '../../../src/watches/post.js';
import type { Resolver } from '../../../src/watches/target.js';

/**
 * One attempt (src/watches/attempt.ts): its budget covers the DNS lookup, a slow answer is flagged,
 * each secret signs. DNS and the POST are injected: no traffic leaves the process.
 */
const T0 = Date.parse('2026-11-21T12:00:00Z');
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const request = { url: 'https://hooks.example.com/x', secrets: [secret], id: 'msg_1', payload: '{"a":1}' };
const publicResolver: Resolver = () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]);
const answer = (status: number, afterMs = 0): WebhookPoster => () => new Promise((r) => setTimeout(() => r({ status }), afterMs));
const ports = (over: Partial<AttemptPorts> = {}): AttemptPorts => ({ targets: 'public', resolver: publicResolver, clock: () => T0, post: answer(204), ...over });

describe('attemptDelivery', () => {
  it('a lookup that never answers ends the attempt at its budget, with no POST', async () => {
    let posted = false;
    const started = performance.now();
    const outcome = await attemptDelivery(request, ports({
      resolver: () => new Promise(() => undefined),
      post: () => Promise.resolve(void (posted = true)).then(() => ({ status: 204 })),
      budgetMs: 300,
    }));
    const took = performance.now() - started;
    expect(outcome).toMatchObject({ delivered: false, error: 'DNS lookup: no answer within 300 ms' });
    expect(posted).toBe(false);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2_000);
  });

  it('the POST gets what the lookup left of the budget', async () => {
    let timeoutMs = 0;
    const slowLookup: Resolver = () => new Promise((r) => setTimeout(() => r([{ address: '93.184.216.34', family: 4 }]), 200));
    await attemptDelivery(request, ports({ resolver: slowLookup, budgetMs: 1_000, post: (_u, _a, _h, _b, o) => Promise.resolve(void (timeoutMs = o.timeoutMs)).then(() => ({ status: 204 })) }));
    expect(timeoutMs).toBeGreaterThan(0);
    expect(timeoutMs).toBeLessThanOrEqual(810);
  });

  it('a 2xx slower than the bound is delivered and flagged slow; a quick one is not', async () => {
    expect(await attemptDelivery(request, ports({ post: answer(204, 150), slowAfterMs: 100 }))).toMatchObject({ delivered: true, status: 204, slow: true });
    expect(await attemptDelivery(request, ports({ post: answer(204), slowAfterMs: 100 }))).toMatchObject({ delivered: true, slow: false });
    expect(await attemptDelivery(request, ports({ post: answer(503) }))).toMatchObject({ delivered: false, status: 503 });
  });

  it('a refused target is an outcome, not a throw', async () => {
    const outcome = await attemptDelivery({ ...request, url: 'https://10.0.0.1/x' }, ports());
    expect(outcome).toMatchObject({ delivered: false, error: 'target refused: must be a public address' });
  });

  it('signs with every secret given, each verifiable alone', async () => {
    const other = 'whsec_QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=';
    let headers: Record<string, string> = {};
    await attemptDelivery({ ...request, secrets: [secret, other] }, ports({ post: (_u, _a, h) => Promise.resolve(void (headers = h)).then(() => ({ status: 204 })) }));
    const signatures = headers['webhook-signature']!.split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures[0]).toBe(new Webhook(secret).sign('msg_1', new Date(T0), request.payload));
    expect(signatures[1]).toBe(new Webhook(other).sign('msg_1', new Date(T0), request.payload));
    expect(headers['webhook-timestamp']).toBe(String(T0 / 1000));
  });
});
