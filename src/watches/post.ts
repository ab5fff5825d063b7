import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './target.js';

/**
 * One webhook POST (docs/watches.md, "Delivery"): to the address already checked (the request's
 * lookup answers it, so DNS is not asked again), no redirect followed, at most `maxResponseBytes`
 * of the answer read, and the whole exchange ended at `timeoutMs` whatever the peer does.
 */
export interface PostOutcome {
  /** The response status; undefined when no response came (timeout, connection refused, reset). */
  status?: number;
  /** Why there was no response. */
  error?: string;
}

export interface PostOptions {
  timeoutMs: number;
  maxResponseBytes: number;
}

export type WebhookPoster = (url: URL, address: ResolvedAddress, headers: Record<string, string>, body: string, options: PostOptions) => Promise<PostOutcome>;

export const DEFAULT_POST_OPTIONS: PostOptions = { timeoutMs: 10_000, maxResponseBytes: 4_096 };

export const postWebhook: WebhookPoster = (url, address, headers, body, options) =>
  new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    const lookup: LookupFunction = (_host, opts, callback) => {
      if ((opts as { all?: boolean }).all) (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [address]);
      else callback(null, address.address, address.family);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'empty-legs-webhooks/1' },
      lookup,
      agent: false,
    });
    const timer = setTimeout(() => finish({ error: `no answer within ${options.timeoutMs} ms` }), options.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish({ error: err.code ?? err.message }));
    req.on('response', (res: IncomingMessage) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= options.maxResponseBytes) finish({ status: res.statusCode ?? 0 });
      });
      res.on('end', () => finish({ status: res.statusCode ?? 0 }));
      res.on('error', () => finish({ status: res.statusCode ?? 0 }));
    });
    req.end(body);
  });
