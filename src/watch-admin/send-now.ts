import { randomBytes } from 'node:crypto';
import { AppError, invalidParameter } from '../errors.js';
import { logger } from '../logger.js';
import { publicDelivery, recordWatchSuccess, requireWatch, type Delivery, type WatchTables } from '../watches/index.js';
import { attemptNow, type AttemptDependencies, type AttemptReport } from './attempt.js';
import { findDelivery, recordReplay } from './store.js';
import { countSend } from './send-limit.js';

/**
 * A test event and a replay, sent now (docs/api.md, "Testing a watch", "Sending a delivery again"):
 * each answers with its attempt. A replay keeps the delivery's `webhook-id` and body and counts in
 * its history; a test event is recorded nowhere. Neither starts or extends the watch's failing period.
 * Each counts against its client's sends (src/watch-admin/send-limit.ts) before it is made.
 */
export type SendDependencies = AttemptDependencies & { tables: WatchTables };

export const TEST_EVENT_TYPE = 'watch.test';
export const DELIVERY_ID_PATTERN = /^msg_[A-Za-z0-9_-]{27}$/;

export type TestAttempt = AttemptReport & { type: typeof TEST_EVENT_TYPE };
export type ReplayAttempt = AttemptReport & { delivery: Delivery };

export function parseDeliveryId(raw: string | undefined): string {
  if (raw === undefined || !DELIVERY_ID_PATTERN.test(raw)) throw invalidParameter('deliveryId', 'must be a delivery id (msg_ followed by 27 letters, digits, - or _)');
  return raw;
}

/** A fresh `webhook-id` for a test event, of a delivery id's shape. */
export function testEventId(): string {
  return `msg_${randomBytes(21).toString('base64url').slice(0, 27)}`;
}

export async function sendTestEvent(clientId: string, watchId: string, deps: SendDependencies): Promise<TestAttempt> {
  const watch = await requireWatch(clientId, watchId, deps);
  await countSend(deps.tables, clientId, deps.clock());
  const body = JSON.stringify({ type: TEST_EVENT_TYPE, timestamp: new Date(deps.clock()).toISOString(), data: { watchId } });
  const report = await attemptNow(watch, testEventId(), body, deps);
  logger.info('watch test event sent', { watchId, webhookId: report.webhookId, result: report.result, responseCode: report.responseCode });
  return { type: TEST_EVENT_TYPE, ...report };
}

export async function replayDelivery(clientId: string, watchId: string, deliveryId: string, deps: SendDependencies): Promise<ReplayAttempt> {
  const watch = await requireWatch(clientId, watchId, deps);
  const delivery = await findDelivery(deps.tables, watchId, deliveryId);
  if (delivery === undefined) throw new AppError('NOT_FOUND', 'No delivery of this watch with this id');
  if (delivery.payload === undefined) {
    throw new AppError('DELIVERY_NOT_REPLAYABLE', 'This delivery was made before bodies were kept for replays; it cannot be sent again');
  }
  await countSend(deps.tables, clientId, deps.clock());
  const report = await attemptNow(watch, delivery.id, delivery.payload, deps);
  const delivered = report.result === 'delivered';
  const after = await recordReplay(deps.tables, delivery, { at: report.attemptedAt, responseCode: report.responseCode, delivered });
  if (delivered) await recordWatchSuccess(deps.tables, watch);
  logger.info('watch delivery replayed', { watchId, deliveryId, result: report.result, responseCode: report.responseCode });
  return { ...report, delivery: publicDelivery(after ?? delivery) };
}
