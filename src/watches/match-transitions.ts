import type { AirportIndex } from '../airports/index.js';
import type { Clock } from '../clock.js';
import { logger } from '../logger.js';
import { createVersionFollower } from '../kernel/version-follower.js';
import { deliveryIdOf, payloadOf, type DeliveryMessage } from './delivery.js';
import { parseStoredFilters } from './filters.js';
import { WatchIndex, type MatchableWatch } from './matching.js';
import type { DeliveryQueue } from './queue.js';
import { DELIVERY_RETENTION_SECONDS, getDelivery, putDelivery, readWatchesVersion, scanWatches, type DeliveryRecord, type WatchTables } from './store.js';
import type { TransitionSubscriber } from '../changes/index.js';
import type { ListingTransition } from '../changes/index.js';

/**
 * The change log's subscriber (docs/watches.md, "The change log's port"): a batch's transitions
 * become the deliveries of the watches they concern, each stored (pending) and queued; a batch read
 * twice makes the same deliveries, queued again only while none was attempted.
 */
export interface MatcherDependencies {
  tables: WatchTables;
  queue: DeliveryQueue;
  airports: () => AirportIndex;
  clock: Clock;
}

/** The active watches, indexed; rebuilt when the watches version moved (one GetItem per batch). */
export function watchIndexSource(deps: Pick<MatcherDependencies, 'tables' | 'airports' | 'clock'>): () => Promise<WatchIndex> {
  let index = new WatchIndex<MatchableWatch>([]);
  const version = createVersionFollower({
    clock: deps.clock,
    intervalMs: 0,
    read: () => readWatchesVersion(deps.tables),
    onMove: async () => {
      const watches: MatchableWatch[] = [];
      for (const w of await scanWatches(deps.tables)) {
        if (w.status !== 'active') continue;
        try {
          watches.push({ id: w.watchId, clientId: w.clientId, filters: parseStoredFilters(w.filters, deps.airports) });
        } catch (err) {
          logger.error('watch filters no longer parse; watch skipped', { watchId: w.watchId, error: err as Error });
        }
      }
      index = new WatchIndex(watches);
    },
  });
  return async () => {
    await (version.poll() ?? version.inFlight());
    return index;
  };
}

/** The deliveries of a batch, matched at `now`. */
export function deliveriesOf(index: WatchIndex, transitions: readonly ListingTransition[], now: number): { record: DeliveryRecord; message: DeliveryMessage }[] {
  const out: { record: DeliveryRecord; message: DeliveryMessage }[] = [];
  for (const t of transitions) {
    for (const e of index.eventsOf(t, now)) {
      const id = deliveryIdOf(e.watch.id, t, e.type);
      const deliveryKey = `${t.changedAt}#${id}`;
      const createdAt = new Date(now).toISOString();
      const payload = JSON.stringify(payloadOf(e.watch.id, t, e.type));
      out.push({
        record: {
          watchId: e.watch.id,
          deliveryKey,
          id,
          clientId: e.watch.clientId,
          type: e.type,
          legId: t.id,
          status: 'pending',
          attempts: 0,
          responseCode: null,
          lastAttemptAt: null,
          nextAttemptAt: createdAt,
          createdAt,
          ttl: Math.ceil(now / 1000) + DELIVERY_RETENTION_SECONDS,
          payload,
        },
        message: {
          deliveryId: id,
          clientId: e.watch.clientId,
          watchId: e.watch.id,
          deliveryKey,
          payload,
          attempts: 0,
          dueAt: now,
        },
      });
    }
  }
  return out;
}

export function createTransitionMatcher(deps: MatcherDependencies): TransitionSubscriber {
  const index = watchIndexSource(deps);
  return async (transitions) => {
    const now = deps.clock();
    const deliveries = deliveriesOf(await index(), transitions, now);
    const toQueue: DeliveryMessage[] = [];
    for (const d of deliveries) {
      if (await putDelivery(deps.tables, d.record)) toQueue.push(d.message);
      else logger.info('delivery made before; queued again only if never attempted', { deliveryId: d.record.id });
    }
    // A delivery stored by an earlier try of this batch whose message may not have been sent.
    const retried = deliveries.filter((d) => !toQueue.includes(d.message));
    for (const d of retried) {
      const existing = await getDelivery(deps.tables, d.record.watchId, d.record.deliveryKey);
      if (existing?.status === 'pending' && existing.attempts === 0) toQueue.push(d.message);
    }
    await deps.queue.send(toQueue.map((m) => ({ body: JSON.stringify(m), delaySeconds: 0 })));
    if (deliveries.length > 0) logger.info('watch deliveries queued', { transitions: transitions.length, deliveries: toQueue.length });
  };
}
