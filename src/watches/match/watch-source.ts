import { paginateScan } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { AirportIndex } from '../../airports/index.js';
import type { Clock } from '../../clock.js';
import { createVersionFollower } from '../../kernel/version-follower.js';
import { logger } from '../../logger.js';
import type { RateSet, RatesSource } from '../../rates/index.js';
import { parseStoredFilters } from '../filters.js';
import { WatchIndex, type MatchableWatch } from '../matching.js';
import { readWatchesVersion, type WatchTables } from '../store.js';

/**
 * The matcher's watch index (docs/watches.md, "Matching"): kept between batches and built again
 * only when the watches version moved, or when the rates in force changed and a watch names a
 * `currency`; the Scan reads the four attributes matching needs (never a secret or a URL). An item
 * that is not a watch is logged with its key, counted and left out.
 */
export const MATCH_PROJECTION = { ProjectionExpression: 'clientId, watchId, filters, #status', ExpressionAttributeNames: { '#status': 'status' } } as const;

const MatchableSchema = v.object({
  clientId: v.string(),
  watchId: v.string(),
  filters: v.record(v.string(), v.string()),
  status: v.picklist(['active', 'disabled']),
});

export interface IndexedWatches {
  index: WatchIndex;
  /** Items of the last build left out as malformed (0 when the index was kept). */
  malformed: number;
  /** The rates the index's price filters were compiled with (the rates in force); undefined: none loaded. */
  rates?: RateSet | undefined;
}

/** An item of the watches table that is the table's own bookkeeping (the version, the per-client counts). */
export const isBookkeeping = (item: Readonly<Record<string, unknown>>): boolean => typeof item.clientId === 'string' && item.clientId.startsWith('~');

/** The active watches of the items read, and how many items were malformed (each logged with its key). */
export function matchableWatches(items: readonly Record<string, unknown>[], airports: () => AirportIndex, rates?: RateSet): { watches: MatchableWatch[]; malformed: number } {
  const watches: MatchableWatch[] = [];
  let malformed = 0;
  for (const item of items) {
    if (isBookkeeping(item)) continue;
    const key = { clientId: String(item.clientId), watchId: String(item.watchId) };
    const parsed = v.safeParse(MatchableSchema, item);
    if (!parsed.success) {
      malformed++;
      logger.error('malformed watch item skipped', { ...key, field: v.getDotPath(parsed.issues[0]) ?? 'item', problem: parsed.issues[0].message });
      continue;
    }
    if (parsed.output.status !== 'active') continue;
    try {
      watches.push({ id: parsed.output.watchId, clientId: parsed.output.clientId, filters: parseStoredFilters(parsed.output.filters, airports, rates) });
    } catch (err) {
      malformed++;
      logger.error('watch filters no longer parse; watch skipped', { ...key, error: err as Error });
    }
  }
  return { watches, malformed };
}

/** Whether two reads of the rates in force are the same rates (each read is a new object). */
const sameRates = (a: RateSet | undefined, b: RateSet | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && a.date === b.date && JSON.stringify(a.rates) === JSON.stringify(b.rates));

export function createWatchSource(deps: { tables: WatchTables; airports: () => AirportIndex; clock: Clock; rates?: RatesSource | undefined }): () => Promise<IndexedWatches> {
  let items: Record<string, unknown>[] = [];
  let index = new WatchIndex<MatchableWatch>([]);
  let malformed = 0;
  let rates: RateSet | undefined;
  const build = () => {
    const built = matchableWatches(items, deps.airports, rates);
    index = new WatchIndex(built.watches);
    malformed = built.malformed;
  };
  const version = createVersionFollower({
    clock: deps.clock,
    intervalMs: 0,
    read: () => readWatchesVersion(deps.tables),
    onMove: async () => {
      const read: Record<string, unknown>[] = [];
      for await (const page of paginateScan({ client: deps.tables.client }, { TableName: deps.tables.watchesTableName, ...MATCH_PROJECTION })) read.push(...(page.Items ?? []));
      items = read;
      build();
    },
  });
  return async () => {
    malformed = 0;
    const [inForce] = await Promise.all([deps.rates?.(), version.poll() ?? version.inFlight()]);
    // New rates (read at most every RATES_CACHE_MS): the price filters compiled again with them.
    if (!sameRates(inForce, rates)) {
      rates = inForce;
      if (index.watches.some((w) => w.filters.query.currency !== undefined)) build();
    }
    return { index, malformed, rates };
  };
}
