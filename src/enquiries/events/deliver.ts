import * as v from 'valibot';
import type { Clock } from '../../clock.js';
import { logger } from '../../logger.js';
import { attemptDelivery, type Resolver, type TargetPolicy, type WebhookPoster } from '../../watches/index.js';
import type { Seller } from '../store/sellers.js';
import { getEnquiry, type EnquiryTable } from '../store/enquiries.js';
import type { EnquiryEvent } from '../use-cases/ports.js';
import { eventIdOf, payloadOf } from './payload.js';

/**
 * An enquiry's event to its receiver, on the webhook queue beside the watches' deliveries (docs/enquiries.md,
 * "Events"): each message one event to one receiver, attempted within the watches' budget, signed
 * with the receiver's secret read at the attempt (never carried by the queue), retried by a delayed
 * message on the watches' schedule, then dropped and logged.
 */
export const ENQUIRY_MESSAGE_KIND = 'enquiry';

const MessageSchema = v.object({
  kind: v.literal(ENQUIRY_MESSAGE_KIND),
  eventId: v.string(),
  /** `seller`: the source's enquiry URL and secret; `broker`: the enquiry's notifyUrl and secret. */
  receiver: v.picklist(['seller', 'broker']),
  enquiryId: v.string(),
  source: v.string(),
  url: v.string(),
  payload: v.string(),
  attempts: v.number(),
  dueAt: v.number(),
});
export type EnquiryMessage = v.InferOutput<typeof MessageSchema>;

export interface Queue {
  send(messages: readonly { body: string; delaySeconds: number }[]): Promise<void>;
}

/** SQS's longest delay; a longer wait goes in hops. */
const MAX_DELAY_SECONDS = 900;

const messageOf = (m: EnquiryMessage, delaySeconds: number) => ({ body: JSON.stringify(m), delaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds))) });

/** The messages of events: those whose receiver has a URL (a seller with `--enquiry-url`, a broker with `notifyUrl`). */
export function messagesOf(events: readonly EnquiryEvent[], seller: (source: string) => Seller | undefined): EnquiryMessage[] {
  return events.flatMap((event) => {
    const toSeller = event.type === 'enquiry.created';
    const url = toSeller ? seller(event.enquiry.source)?.enquiryUrl : event.enquiry.notifyUrl;
    if (url === null || url === undefined) return [];
    const eventId = eventIdOf(event.enquiry.id, event.type);
    return [{ kind: ENQUIRY_MESSAGE_KIND, eventId, receiver: toSeller ? 'seller' : 'broker', enquiryId: event.enquiry.id, source: event.enquiry.source, url, payload: JSON.stringify(payloadOf(event)), attempts: 0, dueAt: 0 }];
  });
}

export interface EnquiryDeliveryDependencies {
  table: EnquiryTable;
  readSeller: (source: string) => Promise<Seller | undefined>;
  queue: Queue;
  targets: TargetPolicy;
  resolver: Resolver;
  clock: Clock;
  retryScheduleSeconds: readonly number[];
  post?: WebhookPoster;
  random?: () => number;
}

/** The receiver's secret now, if it still has this URL (a seller re-registered elsewhere, a gone enquiry: none). */
async function secretOf(m: EnquiryMessage, deps: EnquiryDeliveryDependencies): Promise<string | undefined> {
  if (m.receiver === 'seller') {
    const seller = await deps.readSeller(m.source);
    return seller?.enquiryUrl === m.url ? (seller.secret ?? undefined) : undefined;
  }
  const enquiry = await getEnquiry(deps.table, m.enquiryId);
  return enquiry?.notifyUrl === m.url ? (enquiry.secret ?? undefined) : undefined;
}

export type EnquiryDeliveryResult = 'delivered' | 'retry' | 'failed' | 'dropped' | 'waiting';

export async function processEnquiryMessage(body: unknown, deps: EnquiryDeliveryDependencies): Promise<EnquiryDeliveryResult> {
  const m = v.parse(MessageSchema, body);
  const now = deps.clock();
  if (m.dueAt > now + 500) {
    await deps.queue.send([messageOf(m, (m.dueAt - now) / 1000)]);
    return 'waiting';
  }
  const secret = await secretOf(m, deps);
  if (secret === undefined) {
    logger.info('enquiry event dropped: its receiver has no such URL now', { eventId: m.eventId, enquiryId: m.enquiryId, receiver: m.receiver });
    return 'dropped';
  }
  const outcome = await attemptDelivery({ url: m.url, secrets: [secret], id: m.eventId, payload: m.payload }, { targets: deps.targets, resolver: deps.resolver, clock: deps.clock, ...(deps.post ? { post: deps.post } : {}) });
  const attempts = m.attempts + 1;
  if (outcome.delivered) {
    logger.info('enquiry event delivered', { eventId: m.eventId, enquiryId: m.enquiryId, receiver: m.receiver, attempts, status: outcome.status, durationMs: outcome.durationMs });
    return 'delivered';
  }
  const base = deps.retryScheduleSeconds[attempts - 1];
  logger.info('enquiry event attempt failed', { eventId: m.eventId, enquiryId: m.enquiryId, receiver: m.receiver, attempts, status: outcome.status, error: outcome.error });
  if (base === undefined || outcome.refused === true) return 'failed';
  const delay = Math.round(base * (1 + 0.2 * (deps.random ?? Math.random)()));
  await deps.queue.send([messageOf({ ...m, attempts, dueAt: deps.clock() + delay * 1000 }, delay)]);
  return 'retry';
}

/** The notifier the use cases call: each event with a receiver queued as its own message. */
export function createEnquiryNotifier(deps: Pick<EnquiryDeliveryDependencies, 'queue' | 'readSeller'>): (events: readonly EnquiryEvent[]) => Promise<void> {
  return async (events) => {
    const sources = [...new Set(events.filter((e) => e.type === 'enquiry.created').map((e) => e.enquiry.source))];
    const sellers = new Map(await Promise.all(sources.map(async (s) => [s, await deps.readSeller(s)] as const)));
    const messages = messagesOf(events, (s) => sellers.get(s));
    if (messages.length > 0) await deps.queue.send(messages.map((m) => messageOf(m, 0)));
  };
}
