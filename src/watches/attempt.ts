import { Webhook } from 'standardwebhooks';
import type { Clock } from '../clock.js';
import type { WatchRecord } from './store.js';
import { DEFAULT_POST_OPTIONS, postWebhook, type WebhookPoster } from './post.js';
import { checkTargetUrl, LookupTimeout, resolveTargetWithin, TargetRefused, type Resolver, type TargetPolicy } from './target.js';

/**
 * One signed delivery to one URL within one time budget (docs/watches.md, "Delivery"): the target
 * checked, its name resolved and checked, the POST made to the checked address; the lookup and the
 * exchange together end by `budgetMs`. Never throws for anything the receiver or DNS does.
 */
export interface AttemptRequest {
  url: string;
  /** Signing secrets (`whsec_...`): one signature each in `webhook-signature`, space-separated. */
  secrets: readonly string[];
  /** `webhook-id`. */
  id: string;
  /** The body, signed as it is sent. */
  payload: string;
}

export interface AttemptPorts {
  targets: TargetPolicy;
  resolver: Resolver;
  clock: Clock;
  post?: WebhookPoster;
  /** The whole attempt, lookup included (default 10 s). */
  budgetMs?: number;
  /** An answer slower than this counts as a failing endpoint, even a 2xx (default 5 s). */
  slowAfterMs?: number;
  maxResponseBytes?: number;
}

export interface AttemptOutcome {
  /** A 2xx came back: the receiver has the delivery. */
  delivered: boolean;
  /** The response status; undefined when none came. */
  status?: number;
  /** Why there was no 2xx answer (timeout, refused target, connection error). */
  error?: string;
  durationMs: number;
  /** Slower than `slowAfterMs` (a 2xx included): the endpoint counts as failing. */
  slow: boolean;
  /** When the attempt was signed (epoch ms, the clock's). */
  sentAt?: number;
  /** The target was refused as unsafe (before or after DNS): nothing was sent. */
  refused?: boolean;
}

export const ATTEMPT_BUDGET_MS = DEFAULT_POST_OPTIONS.timeoutMs;
export const SLOW_ANSWER_MS = 5_000;

/** The `webhook-*` headers of one attempt, one signature per secret. */
export function signedHeaders(request: Pick<AttemptRequest, 'secrets' | 'id' | 'payload'>, sentAt: number): Record<string, string> {
  const signature = request.secrets.map((s) => new Webhook(s).sign(request.id, new Date(sentAt), request.payload)).join(' ');
  return { 'webhook-id': request.id, 'webhook-timestamp': String(Math.floor(sentAt / 1000)), 'webhook-signature': signature };
}

/** A watch's signing secrets (docs/watches.md, "Signing secrets"): the current one, and the previous one during a rotation's overlap. */
export type SigningSecrets = Pick<WatchRecord, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>;

/** The secrets that sign at `at` (epoch ms): the current one, then the previous one before its expiry. */
export function secretsInEffect(watch: SigningSecrets, at: number): string[] {
  const { previousSecret, previousSecretExpiresAt } = watch;
  const previousValid = previousSecret != null && previousSecretExpiresAt != null && at < Date.parse(previousSecretExpiresAt);
  return previousValid ? [watch.secret, previousSecret] : [watch.secret];
}

/** A watch's attempt now, with the dependencies its callers hold: signed with the secrets in effect. */
export function attemptWatch(
  watch: SigningSecrets & { url: string },
  id: string,
  payload: string,
  deps: Pick<AttemptPorts, 'targets' | 'resolver' | 'clock' | 'post' | 'slowAfterMs'> & { postOptions?: { timeoutMs?: number; maxResponseBytes?: number } | undefined },
): Promise<AttemptOutcome> {
  const { postOptions, ...ports } = deps;
  return attemptDelivery(
    { url: watch.url, secrets: secretsInEffect(watch, deps.clock()), id, payload },
    { ...ports, budgetMs: postOptions?.timeoutMs, maxResponseBytes: postOptions?.maxResponseBytes },
  );
}

/** The headers of one attempt of `watch` at `at`, signed with the secrets in effect then. */
export function webhookHeaders(watch: SigningSecrets, webhookId: string, at: number, body: string): Record<string, string> {
  return signedHeaders({ secrets: secretsInEffect(watch, at), id: webhookId, payload: body }, at);
}

export async function attemptDelivery(request: AttemptRequest, ports: AttemptPorts): Promise<AttemptOutcome> {
  const budgetMs = ports.budgetMs ?? ATTEMPT_BUDGET_MS;
  const slowAfterMs = ports.slowAfterMs ?? SLOW_ANSWER_MS;
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const outcome = (o: { status?: number; error?: string; sentAt?: number; refused?: boolean }): AttemptOutcome => {
    const durationMs = Math.round(elapsed());
    const delivered = o.status !== undefined && o.status >= 200 && o.status < 300;
    return { delivered, ...o, durationMs, slow: durationMs > slowAfterMs };
  };
  try {
    const url = checkTargetUrl(request.url, ports.targets);
    const address = await resolveTargetWithin(url, ports.targets, ports.resolver, budgetMs);
    const sentAt = ports.clock();
    const rest = Math.max(1, Math.round(budgetMs - elapsed()));
    const answer = await (ports.post ?? postWebhook)(url, address, signedHeaders(request, sentAt), request.payload, {
      timeoutMs: rest,
      maxResponseBytes: ports.maxResponseBytes ?? DEFAULT_POST_OPTIONS.maxResponseBytes,
    });
    const timedOut = answer.error?.startsWith('no answer within') === true;
    return outcome({ ...answer, ...(timedOut ? { error: `no answer within ${budgetMs} ms` } : {}), sentAt });
  } catch (err) {
    if (err instanceof TargetRefused) return outcome({ error: `target refused: ${err.message}`, refused: true });
    if (err instanceof LookupTimeout) return outcome({ error: err.message });
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== undefined) return outcome({ error: code });
    throw err;
  }
}
