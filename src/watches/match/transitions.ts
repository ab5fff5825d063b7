import * as v from 'valibot';
import type { AirportIndex } from '../../airports/index.js';
import type { Clock } from '../../clock.js';
import { batchGet } from '../../aws/batch-get.js';
import { BATCH_GET_LIMIT, MAX_BATCH_GET_ATTEMPTS } from '../../aws/batch-limits.js';
import { batchPut, forEachBounded } from '../../aws/batch-write.js';
import { logger } from '../../logger.js';
import type { RateSet, RatesSource } from '../../rates/index.js';
import type { SourceFacts } from '../../kernel/source.js';
import { unregisteredSource, type SourceFacts as BlockSourceFacts } from '../../kernel/leg/blocks.js';
import { deliveryIdOf, payloadOf, type DeliveryMessage } from '../delivery.js';
import type { WatchIndex } from '../matching.js';
import type { DeliveryQueue } from '../queue.js';
import { DELIVERY_RETENTION_SECONDS, type DeliveryRecord, type WatchTables } from '../store.js';
import type { ListingTransition } from '../../changes/index.js';
import type { ActiveClients } from './active-clients.js';
import { createWatchSource, type IndexedWatches } from './watch-source.js';
import { readFlightBatch, type FlightBatch, type FlightReads } from './flight-events.js';

/**
 * The watches' matcher (docs/watches.md, "Matching"), a consumer of the change log of its own: a
 * batch's transitions become the deliveries of the watches they concern, of clients that have a
 * key; each stored once (pending) and queued, in batches. A batch read twice makes the same
 * deliveries, queued again only while none was attempted.
 */
export interface MatcherDependencies {
  tables: WatchTables;
  queue: DeliveryQueue;
  airports: () => AirportIndex;
  clock: Clock;
  /** Which clients have a key (src/watches/match/active-clients.ts). */
  activeClients: (clientIds: Iterable<string>) => Promise<ActiveClients>;
  /** The rates in force, which price filters and `convertedPrice` use (src/rates/source.ts: read at most once a minute). */
  rates?: RatesSource;
  /** The sources registry's facts, which `kind` and `verifiedOnly` read (src/sources/cached.ts). */
  sources?: () => Promise<SourceFacts>;
  /** The registry's facts of each source, for a watch's `include=provenance` (src/sources/cached.ts `sourceFactsOfRegistry`). */
  blockSources?: () => Promise<(id: string) => BlockSourceFacts>;
  /** What watches of `group: "flight"` read: the listing index and the legs (without: each leg's events). */
  flights?: FlightReads;
  /** The watch index (default: createWatchSource over `tables`). */
  watches?: () => Promise<IndexedWatches>;
}

export interface MatchResult {
  /** Deliveries the batch made (stored now or by an earlier read of it). */
  deliveries: number;
  /** Messages queued. */
  queued: number;
  /** Events left out because their client has no key. */
  withoutKey: number;
  /** Watch and delivery items left out as malformed (each logged with its key). */
  malformed: number;
}

/** BatchGetItem and BatchWriteItem requests in flight at once. */
export const MATCH_WRITE_CONCURRENCY = 8;

export interface MadeDelivery {
  record: DeliveryRecord;
  message: DeliveryMessage;
}

/**
 * The deliveries of a batch, matched at `now` with the rates the index was compiled with and, for
 * `include`, the registry's facts; a watch of `group: "flight"` has its flight's events, from `flights` (without: each leg's).
 */
export function deliveriesOf(
  index: WatchIndex,
  transitions: readonly ListingTransition[],
  now: number,
  rates?: RateSet,
  sources?: (id: string) => BlockSourceFacts,
  flights?: FlightBatch,
): MadeDelivery[] {
  const out: MadeDelivery[] = [];
  transitions.forEach((t, at) => {
    for (const event of index.eventsOf(t, now)) {
      const outcome = event.watch.group === 'flight' && flights !== undefined ? flights.decide(event, at, now, rates, sources) : undefined;
      const e = outcome === undefined ? event : { ...event, type: outcome.type };
      const id = deliveryIdOf(e.watch.id, t, e.type);
      const deliveryKey = `${t.changedAt}#${id}`;
      const createdAt = new Date(now).toISOString();
      const currency = e.watch.filters.query.currency;
      const blocks = e.watch.include === undefined ? undefined : { include: e.watch.include, sources: sources ?? unregisteredSource };
      const payload = JSON.stringify(
        outcome === undefined || outcome.leg === null
          ? payloadOf(e.watch.id, t, e.type, currency === undefined ? undefined : { currency, rates }, blocks)
          : payloadOf(e.watch.id, { ...t, after: outcome.leg }, e.type),
      );
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
  });
  return out;
}

const StoredDelivery = v.object({ watchId: v.string(), deliveryKey: v.string(), status: v.picklist(['pending', 'delivered', 'failed', 'dropped']), attempts: v.number() });

/**
 * The deliveries stored before (an earlier read of the batch), read strongly consistent in
 * BatchGetItem requests: whether each is to be queued again (pending, never attempted). A
 * malformed item is logged with its key, counted, and not queued.
 */
async function storedBefore(tables: WatchTables, made: readonly MadeDelivery[]): Promise<{ stored: Map<string, boolean>; malformed: number }> {
  const chunks: MadeDelivery[][] = [];
  for (let i = 0; i < made.length; i += BATCH_GET_LIMIT) chunks.push(made.slice(i, i + BATCH_GET_LIMIT));
  const stored = new Map<string, boolean>();
  let malformed = 0;
  await forEachBounded(chunks, MATCH_WRITE_CONCURRENCY, async (chunk) => {
    const keys = chunk.map((d) => ({ watchId: d.record.watchId, deliveryKey: d.record.deliveryKey }));
    const got = await batchGet(tables.client, tables.deliveriesTableName, keys, MAX_BATCH_GET_ATTEMPTS, { consistent: true });
    if (got.unprocessed.length > 0) throw new Error(`${got.unprocessed.length} deliveries could not be read (unprocessed keys)`);
    for (const item of got.items) {
      const key = `${String(item.watchId)}#${String(item.deliveryKey)}`;
      const parsed = v.safeParse(StoredDelivery, item);
      if (!parsed.success) {
        malformed++;
        logger.error('malformed delivery item left as it is', { watchId: String(item.watchId), deliveryKey: String(item.deliveryKey), field: v.getDotPath(parsed.issues[0]) ?? 'item' });
      }
      stored.set(key, parsed.success && parsed.output.status === 'pending' && parsed.output.attempts === 0);
    }
  });
  return { stored, malformed };
}

export function createTransitionMatcher(deps: MatcherDependencies): (transitions: readonly ListingTransition[]) => Promise<MatchResult> {
  const watches = deps.watches ?? createWatchSource(deps);
  return async (transitions) => {
    const now = deps.clock();
    const { index, malformed: badWatches, rates } = await watches();
    const provenance = index.watches.some((w) => w.include?.has('provenance') === true);
    const flightWatches = index.watches.filter((w) => w.group === 'flight');
    const blocks = flightWatches.some((w) => w.include !== undefined && w.include.size > 0);
    const flights = flightWatches.length > 0 ? await readFlightBatch(deps.flights, transitions, now, { rates, blocks }) : undefined;
    const all = deliveriesOf(index, transitions, now, rates, provenance ? await deps.blockSources?.() : undefined, flights);
    const clients = await deps.activeClients(new Set(all.map((d) => d.record.clientId)));
    const made = all.filter((d) => clients.has(d.record.clientId, now));
    const { stored, malformed } = await storedBefore(deps.tables, made);
    const fresh = made.filter((d) => !stored.has(`${d.record.watchId}#${d.record.deliveryKey}`));
    await batchPut(deps.tables.client, deps.tables.deliveriesTableName, fresh.map((d) => d.record as unknown as Record<string, unknown>), {
      concurrency: MATCH_WRITE_CONCURRENCY,
      attempts: 8,
    });
    // New ones, and those stored by an earlier read of the batch whose message may not have been sent.
    const toQueue = made.filter((d) => stored.get(`${d.record.watchId}#${d.record.deliveryKey}`) ?? true).map((d) => d.message);
    await deps.queue.send(toQueue.map((m) => ({ body: JSON.stringify(m), delaySeconds: 0 })));
    const result = { deliveries: made.length, queued: toQueue.length, withoutKey: all.length - made.length, malformed: badWatches + malformed };
    if (all.length > 0) logger.info('watch deliveries queued', { transitions: transitions.length, ...result, ...(flights === undefined ? {} : { flightReads: flights.counts }) });
    return result;
  };
}
