import { createHash } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import type { Clock } from '../clock.js';
import type { Stage } from '../config.js';
import { logger } from '../logger.js';
import { emfLine, MATCH_METRICS, toStdout } from '../metrics.js';
import type { WatchEventType } from './matching.js';
import { attemptWatch } from './attempt.js';
import type { PostOptions, WebhookPoster } from './post.js';
import { MAX_DELAY_SECONDS, type DeliveryQueue } from './queue.js';
import { getDelivery, getWatch, recordWatchFailure, recordWatchSuccess, updateDelivery, type WatchRecord, type WatchTables } from './store.js';
import type { Resolver, TargetPolicy } from './target.js';
import type { ListingTransition, WithdrawReason } from '../changes/index.js';
import { withConvertedPrice, type RateSet } from '../rates/index.js';
import { factsOfItem, withBlocks, type Include, type LegFacts, type SourceFacts } from '../kernel/leg/blocks.js';
import type { ActiveClients } from './match/active-clients.js';
import { isSlow, markWatchSlow, slowUntilAfter } from './lane/slow.js';

/**
 * Delivering one event to one watch's URL, at least once (docs/watches.md, "Queue, retries, dead
 * letters"): an attempt that gets no 2xx is retried by a new message delayed by the schedule, sent
 * before the attempt's message is let go, so a worker stopped at any point loses nothing.
 */
export interface WebhookPayload {
  type: WatchEventType;
  timestamp: string;
  data: { watchId: string; id: string; leg: ListingTransition['after']; reason?: WatchWithdrawReason };
}

/** Why a watch's leg was withdrawn: the change feed's reasons, or `no_longer_matching` (the leg is still listed, the watch's filters no longer take it). */
export type WatchWithdrawReason = WithdrawReason | 'no_longer_matching';

/** The reason of a withdrawn event of `transition`. */
export function withdrawReasonOfEvent(transition: ListingTransition): WatchWithdrawReason {
  return transition.after === null ? (transition.reason ?? 'unlisted') : 'no_longer_matching';
}

const MessageSchema = v.object({
  deliveryId: v.string(),
  clientId: v.string(),
  watchId: v.string(),
  deliveryKey: v.string(),
  payload: v.string(),
  /** Attempts made so far. */
  attempts: v.number(),
  /** Epoch ms before which the attempt is not made (a long delay is reached in SQS-sized hops). */
  dueAt: v.number(),
});
export type DeliveryMessage = v.InferOutput<typeof MessageSchema>;

/** The delivery id of an event: the same for the same watch, leg, change (`changeId`, else `changedAt`) and type (a batch read twice). */
export function deliveryIdOf(watchId: string, transition: ListingTransition, type: WatchEventType): string {
  const change = transition.changeId ?? transition.changedAt;
  const digest = createHash('sha256').update(`${watchId}\n${transition.id}\n${change}\n${type}`).digest('base64url');
  return `msg_${digest.slice(0, 27)}`;
}

/** The price a watch with `currency` converts into, with the rates it was matched with (docs/watches.md, "Prices"). */
export interface PayloadPrice {
  currency: string;
  rates: RateSet | undefined;
}

/** The blocks a watch's `include` asks for (docs/watches.md, "Provenance and departure"), with the registry's facts of a source. */
export interface PayloadBlocks {
  include: Include;
  sources: (id: string) => SourceFacts;
}

/** What the blocks of a transition's leg read: the log state's facts (else its source and confirmed instant), the leg's dates. */
export function legFactsOf(transition: ListingTransition, leg: { startDate: string; endDate: string }): LegFacts {
  const facts = transition.legFacts ?? factsOfItem({ source: transition.afterFacts?.source, confirmedAt: transition.afterFacts?.confirmedAt });
  return { ...facts, startDate: leg.startDate, endDate: leg.endDate };
}

/**
 * An event's body: the leg as listed, with `convertedPrice` when the watch names a currency, then
 * the blocks its `include` asks for (as the listing's record of the leg); null for withdrawn.
 */
export function payloadOf(watchId: string, transition: ListingTransition, type: WatchEventType, price?: PayloadPrice, blocks?: PayloadBlocks): WebhookPayload {
  const after = type === 'empty_leg.withdrawn' ? null : transition.after;
  const priced = after === null || price === undefined ? after : withConvertedPrice(after, price.currency, price.rates);
  const leg = priced === null || blocks === undefined || blocks.include.size === 0 ? priced : withBlocks(priced, blocks.include, legFactsOf(transition, priced), blocks.sources);
  const reason = type === 'empty_leg.withdrawn' ? { reason: withdrawReasonOfEvent(transition) } : {};
  return { type, timestamp: transition.changedAt, data: { watchId, id: transition.id, leg, ...reason } };
}

/**
 * The delay before retry number `attempts` (1 = the first retry), lengthened by up to 20 % of jitter
 * (never shortened: the schedule's whole span is a floor); undefined after the last.
 */
export function retryDelaySeconds(schedule: readonly number[], attempts: number, random: () => number): number | undefined {
  const base = schedule[attempts - 1];
  if (base === undefined) return undefined;
  return Math.max(0, Math.round(base * (1 + 0.2 * random())));
}

export interface DeliveryDependencies {
  tables: WatchTables;
  queue: DeliveryQueue;
  targets: TargetPolicy;
  resolver: Resolver;
  clock: Clock;
  retryScheduleSeconds: readonly number[];
  disableAfterSeconds: number;
  post?: WebhookPoster;
  /** The attempt's budget (`timeoutMs`, the DNS lookup included) and read limit. */
  postOptions?: PostOptions;
  /** Which clients have a key: a delivery of a client without one is dropped (docs/watches.md, "A client without a key"). */
  activeClients?: (clientIds: Iterable<string>) => Promise<ActiveClients>;
  /** An answer slower than this counts as a failing endpoint (default SLOW_ANSWER_MS). */
  slowAfterMs?: number;
  /** The shared lane's: where a slow watch's deliveries go instead of being attempted (absent in the slow lane itself). */
  slowLane?: DeliveryQueue;
  /** An answer slower than this makes the watch slow (default SLOW_LANE_ANSWER_MS). */
  slowLaneAnswerMs?: number;
  random?: () => number;
  /** The stage of the batch's metric line (MalformedWatchItems, when a batch met any), and where it goes (default stdout). */
  stage?: Stage;
  emit?: (line: string) => void;
  /** Other messages of the queue, by their `kind` (an enquiry's event: src/enquiries/); a throw brings the message back. */
  kinds?: Readonly<Record<string, (message: unknown) => Promise<unknown>>>;
}

export type AttemptResult = 'delivered' | 'retry' | 'failed' | 'dropped' | 'waiting' | 'malformed' | 'forwarded';

const iso = (ms: number) => new Date(ms).toISOString();

function message(m: DeliveryMessage, delaySeconds: number): { body: string; delaySeconds: number } {
  return { body: JSON.stringify(m), delaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds))) };
}

/** One received message: waits on, drops (watch gone or disabled), or makes an attempt and its follow-up. */
export async function processDelivery(m: DeliveryMessage, deps: DeliveryDependencies): Promise<AttemptResult> {
  const now = deps.clock();
  if (m.dueAt > now + 500) {
    await deps.queue.send([message(m, (m.dueAt - now) / 1000)]);
    return 'waiting';
  }
  const keyed = deps.activeClients === undefined || (await deps.activeClients([m.clientId])).has(m.clientId, now);
  let watch: WatchRecord | undefined;
  try {
    watch = keyed ? await getWatch(deps.tables, m.clientId, m.watchId) : undefined;
  } catch (err) {
    if (!(err instanceof v.ValiError)) throw err;
    const issue = (err as v.ValiError<v.GenericSchema>).issues[0];
    logger.error('malformed watch item: its delivery dropped', { clientId: m.clientId, watchId: m.watchId, field: v.getDotPath(issue) ?? 'item', problem: issue.message });
    await updateDelivery(deps.tables, m.watchId, m.deliveryKey, { status: 'dropped', nextAttemptAt: null });
    return 'malformed';
  }
  if (watch === undefined || watch.status !== 'active') {
    await updateDelivery(deps.tables, m.watchId, m.deliveryKey, { status: 'dropped', nextAttemptAt: null });
    return 'dropped';
  }
  const current = await getDelivery(deps.tables, m.watchId, m.deliveryKey);
  if (current !== undefined && current.status !== 'pending') return current.status === 'delivered' ? 'delivered' : 'dropped';
  if (deps.slowLane !== undefined && isSlow(watch, now)) {
    // The slow lane attempts it, as it is: this lane's concurrency is never held by a slow receiver.
    await deps.slowLane.send([message(m, 0)]);
    return 'forwarded';
  }
  const attempts = Math.max(m.attempts, current?.attempts ?? 0) + 1;

  const outcome = await attemptWatch(watch, m.deliveryId, m.payload, deps);
  const { status, error } = outcome;
  const at = deps.clock();
  const slowUntil = slowUntilAfter(watch, outcome.durationMs, at, deps.slowLaneAnswerMs);
  if (slowUntil !== undefined) await markWatchSlow(deps.tables, watch, slowUntil);
  if (outcome.delivered) {
    await updateDelivery(deps.tables, m.watchId, m.deliveryKey, { status: 'delivered', attempts, responseCode: status ?? null, lastAttemptAt: iso(at), nextAttemptAt: null });
    // A slow answer is delivered, but the endpoint counts as failing (docs/watches.md, "Slow receivers").
    if (outcome.slow) await recordWatchFailure(deps.tables, watch, at, deps.disableAfterSeconds * 1000);
    else await recordWatchSuccess(deps.tables, watch);
    logger.info('webhook delivered', { deliveryId: m.deliveryId, watchId: m.watchId, attempts, status, durationMs: outcome.durationMs, slow: outcome.slow });
    return 'delivered';
  }
  const watchStatus = await recordWatchFailure(deps.tables, watch, at, deps.disableAfterSeconds * 1000);
  const delay = watchStatus === 'active' ? retryDelaySeconds(deps.retryScheduleSeconds, attempts, deps.random ?? Math.random) : undefined;
  logger.info('webhook attempt failed', { deliveryId: m.deliveryId, watchId: m.watchId, attempts, status, error, retryInSeconds: delay });
  if (delay === undefined) {
    await updateDelivery(deps.tables, m.watchId, m.deliveryKey, {
      status: watchStatus === 'active' ? 'failed' : 'dropped',
      attempts,
      responseCode: status ?? null,
      lastAttemptAt: iso(at),
      nextAttemptAt: null,
    });
    return 'failed';
  }
  const dueAt = at + delay * 1000;
  // The retry is queued before this message is let go: a worker stopped now leaves both, never neither.
  await deps.queue.send([message({ ...m, attempts, dueAt }, delay)]);
  await updateDelivery(deps.tables, m.watchId, m.deliveryKey, { attempts, responseCode: status ?? null, lastAttemptAt: iso(at), nextAttemptAt: iso(dueAt) });
  return 'retry';
}

/** A message another capability handles (`kind` names it), or undefined for a watch's delivery. */
function kindOf(body: string, kinds: DeliveryDependencies['kinds']): { message: unknown; process: (message: unknown) => Promise<unknown> } | undefined {
  if (kinds === undefined) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  const kind = (message as { kind?: unknown } | null)?.kind;
  const process = typeof kind === 'string' && Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
  return process === undefined ? undefined : { message, process };
}

/**
 * The queue's handler (SQS event source with ReportBatchItemFailures): the batch's messages are
 * processed concurrently, so one slow receiver holds none of the others; a message whose processing
 * throws (the database unreachable) is reported alone and comes back; after the queue's receive
 * limit it goes to the dead-letter queue, which alarms.
 */
export function createDeliveryHandler(deps: DeliveryDependencies): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const one = async (record: SQSRecord, seen: { malformed: number }): Promise<string | undefined> => {
    let parsed: DeliveryMessage;
    const other = kindOf(record.body, deps.kinds);
    if (other !== undefined) {
      try {
        await other.process(other.message);
        return undefined;
      } catch (err) {
        logger.error('queue message failed; it comes back', { messageId: record.messageId, error: err as Error });
        return record.messageId;
      }
    }
    try {
      parsed = v.parse(MessageSchema, JSON.parse(record.body));
    } catch {
      logger.error('malformed webhook message dropped', { messageId: record.messageId });
      return undefined;
    }
    try {
      if ((await processDelivery(parsed, deps)) === 'malformed') seen.malformed++;
      return undefined;
    } catch (err) {
      logger.error('webhook message failed; it comes back', { messageId: record.messageId, deliveryId: parsed.deliveryId, error: err as Error });
      return record.messageId;
    }
  };
  return async (event) => {
    const seen = { malformed: 0 };
    const failed = await Promise.all(event.Records.map((record) => one(record, seen)));
    if (seen.malformed > 0) {
      const m = MATCH_METRICS;
      (deps.emit ?? toStdout)(emfLine(m.namespace, { [m.dimension]: deps.stage ?? 'sandbox' }, { [m.malformed]: seen.malformed }, new Date(deps.clock())));
    }
    return { batchItemFailures: failed.filter((id): id is string => id !== undefined).map((itemIdentifier) => ({ itemIdentifier })) };
  };
}
