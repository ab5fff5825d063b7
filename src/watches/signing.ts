import { Webhook } from 'standardwebhooks';
import type { WatchRecord } from './store.js';

/**
 * The Standard Webhooks headers of one attempt (docs/watches.md, "Signing secrets"): signed with the
 * watch's secret, and while a rotation's overlap lasts with the previous one too, the two signatures
 * space-separated in `webhook-signature`, the newest first.
 */
export type SigningSecrets = Pick<WatchRecord, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>;

/** The secrets that sign at `at` (epoch ms): the current one, then the previous one before its expiry. */
export function secretsInEffect(watch: SigningSecrets, at: number): string[] {
  const { previousSecret, previousSecretExpiresAt } = watch;
  const previousValid = previousSecret != null && previousSecretExpiresAt != null && at < Date.parse(previousSecretExpiresAt);
  return previousValid ? [watch.secret, previousSecret] : [watch.secret];
}

export function webhookHeaders(watch: SigningSecrets, webhookId: string, at: number, body: string): Record<string, string> {
  const signature = secretsInEffect(watch, at)
    .map((secret) => new Webhook(secret).sign(webhookId, new Date(at), body))
    .join(' ');
  return { 'webhook-id': webhookId, 'webhook-timestamp': String(Math.floor(at / 1000)), 'webhook-signature': signature };
}
