import type { Clock } from '../clock.js';
import {
  attemptWatch,
  type PostOptions,
  type Resolver,
  type TargetPolicy,
  type WatchRecord,
  type WebhookPoster,
} from '../watches/index.js';

/**
 * One attempt made now at the owner's request (a test event, a replay), through the same target
 * check, signing and POST as the queue's attempts; the only module of this folder that sends.
 */
export interface AttemptDependencies {
  targets: TargetPolicy;
  resolver: Resolver;
  clock: Clock;
  post?: WebhookPoster;
  postOptions?: PostOptions;
}

/** How an attempt ended: a 2xx, another status, or no answer and why. */
export type AttemptResult = 'delivered' | 'rejected' | 'timeout' | 'refused' | 'unsafe_target' | 'network_error';

export interface AttemptReport {
  webhookId: string;
  result: AttemptResult;
  /** The receiver's status; null when none came. */
  responseCode: number | null;
  /** From the target check to the end of the answer, whole milliseconds. */
  durationMs: number;
  /** Why it failed, in words; null when delivered. */
  error: string | null;
  attemptedAt: string;
}

/** The result of an outcome: pure, and the one place the poster's error texts are read. */
export function resultOf(outcome: { status?: number; error?: string; refused?: boolean }): AttemptResult {
  if (outcome.refused) return 'unsafe_target';
  if (outcome.status !== undefined) return outcome.status >= 200 && outcome.status < 300 ? 'delivered' : 'rejected';
  if (outcome.error === 'ECONNREFUSED') return 'refused';
  if (outcome.error?.includes('no answer within') || outcome.error === 'ETIMEDOUT') return 'timeout';
  return 'network_error';
}

function describe(result: AttemptResult, status: number | undefined, error: string | undefined): string | null {
  if (result === 'delivered') return null;
  if (result === 'rejected') return `the receiver answered ${status}`;
  if (result === 'refused') return 'connection refused';
  return error ?? result;
}

export async function attemptNow(watch: WatchRecord, webhookId: string, body: string, deps: AttemptDependencies): Promise<AttemptReport> {
  const attemptedAt = new Date(deps.clock()).toISOString();
  const outcome = await attemptWatch(watch, webhookId, body, deps);
  const result = resultOf(outcome);
  return {
    webhookId,
    result,
    responseCode: outcome.status ?? null,
    durationMs: outcome.durationMs,
    error: describe(result, outcome.status, outcome.error),
    attemptedAt,
  };
}
