import { paginateScan } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { AirportIndex } from '../../airports/index.js';
import { backoffDelay, sleep } from '../../aws/backoff.js';
import { batchGet } from '../../aws/batch-get.js';
import { BATCH_GET_LIMIT, MAX_BATCH_GET_ATTEMPTS } from '../../aws/batch-limits.js';
import type { Clock } from '../../clock.js';
import { logger } from '../../logger.js';
import type { RateSet, RatesSource } from '../../rates/index.js';
import { parseStoredFilters } from '../filters.js';
import { usesRegistry } from '../../listing/index.js';
import type { SourceFacts } from '../../kernel/source.js';
import { INCLUDE_RULE, parseInclude } from '../../kernel/leg/blocks.js';
import { WatchIndex, type MatchableWatch } from '../matching.js';
import { readWatchesVersion, WATCH_CHANGE_SLOTS, type WatchTables } from '../store.js';
import { planChanges } from './watch-changes.js';

/**
 * The matcher's watch index (docs/watches.md, "Matching"): kept between batches; when the watches
 * version moved, the watches its slots name are read by key and patched in (every watch is read
 * only at the first batch, or after a change was missed); compiled again when the rates in force
 * changed and a watch names a `currency`. Reads take the six attributes matching needs (never a
 * secret or a URL). An item that is not a watch is logged with its key, counted and left out.
 */
export const MATCH_PROJECTION = { ProjectionExpression: 'clientId, watchId, filters, #status, #include, #group', ExpressionAttributeNames: { '#status': 'status', '#include': 'include', '#group': 'group' } } as const;

const MatchableSchema = v.object({
  clientId: v.string(),
  watchId: v.string(),
  filters: v.record(v.string(), v.string()),
  status: v.picklist(['active', 'disabled']),
  include: v.optional(v.pipe(v.string(), v.check((text) => parseInclude(text) !== null, INCLUDE_RULE))),
  group: v.optional(v.literal('flight')),
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
export function matchableWatches(
  items: readonly Record<string, unknown>[],
  airports: () => AirportIndex,
  rates?: RateSet,
  sources?: SourceFacts,
): { watches: MatchableWatch[]; malformed: number } {
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
      const include = parseInclude(parsed.output.include) ?? undefined;
      const filters = parseStoredFilters(parsed.output.filters, airports, rates, sources);
      watches.push({
        id: parsed.output.watchId,
        clientId: parsed.output.clientId,
        filters,
        ...(include === undefined || include.size === 0 ? {} : { include }),
        ...(parsed.output.group === undefined ? {} : { group: parsed.output.group }),
      });
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

/** How long a change's slot may stay unwritten (its writer stopped between its two writes) before every watch is read. */
export const PENDING_SLOT_MS = 30_000;
/** Reads of the version and the changed watches in one batch, with full-jitter backoff between them. */
export const READ_ATTEMPTS = 3;
/** How long the matcher goes on with its last index while reads fail (then its batches fail). */
export const MAX_STALE_MS = 60_000;

export interface WatchSourceDependencies {
  tables: WatchTables;
  airports: () => AirportIndex;
  clock: Clock;
  rates?: RatesSource | undefined;
  /** The sources registry's facts, for `kind` and `verifiedOnly` (src/sources/cached.ts: read at most every 30 s). */
  sources?: (() => Promise<SourceFacts>) | undefined;
  /** Waits between reads (default: a timer). */
  sleep?: (ms: number) => Promise<void>;
}

const keyOf = (k: { clientId: unknown; watchId: unknown }) => `${String(k.clientId)}\n${String(k.watchId)}`;

export function createWatchSource(deps: WatchSourceDependencies): () => Promise<IndexedWatches> {
  const pause = deps.sleep ?? sleep;
  const items = new Map<string, Record<string, unknown>>();
  const parsed = new Map<string, MatchableWatch>();
  let index = new WatchIndex<MatchableWatch>([]);
  let malformed = 0;
  let rates: RateSet | undefined;
  let facts: SourceFacts | undefined;
  let applied: number | undefined;
  let pendingSince: number | undefined;
  let failures = 0;
  let nextReadAt = Number.NEGATIVE_INFINITY;
  let staleSince: number | undefined;
  let flight: Promise<void> | undefined;

  const parse = (keys: Iterable<string>) => {
    for (const key of keys) {
      const item = items.get(key);
      const built = item === undefined ? { watches: [], malformed: 0 } : matchableWatches([item], deps.airports, rates, facts);
      malformed += built.malformed;
      if (built.watches[0] === undefined) parsed.delete(key);
      else parsed.set(key, built.watches[0]);
    }
    index = new WatchIndex([...parsed.values()]);
  };

  async function scanAll(version: number): Promise<void> {
    const read: Record<string, unknown>[] = [];
    for await (const page of paginateScan({ client: deps.tables.client }, { TableName: deps.tables.watchesTableName, ...MATCH_PROJECTION })) read.push(...(page.Items ?? []));
    items.clear();
    parsed.clear();
    for (const item of read) if (!isBookkeeping(item)) items.set(keyOf(item as { clientId: unknown; watchId: unknown }), item);
    parse(items.keys());
    applied = version;
    pendingSince = undefined;
  }

  /** The version read; the watches it names since `applied` read by key and patched in (or every watch, see planChanges). */
  async function refresh(now: number): Promise<void> {
    const read = await readWatchesVersion(deps.tables);
    const plan = planChanges(applied, read, WATCH_CHANGE_SLOTS);
    if (plan.kind === 'none') return;
    const waited = plan.kind === 'patch' && !plan.complete && plan.upTo === applied ? (pendingSince ?? now) : now;
    if (plan.kind === 'scan' || now - waited >= PENDING_SLOT_MS) return scanAll(read.version);
    const keys = plan.keys.map((k) => ({ clientId: k.clientId, watchId: k.watchId }));
    for (let i = 0; i < keys.length; i += BATCH_GET_LIMIT) {
      const got = await batchGet(deps.tables.client, deps.tables.watchesTableName, keys.slice(i, i + BATCH_GET_LIMIT), MAX_BATCH_GET_ATTEMPTS, { consistent: true, projection: MATCH_PROJECTION });
      if (got.unprocessed.length > 0) throw new Error(`${got.unprocessed.length} changed watches could not be read (unprocessed keys)`);
      const found = new Map(got.items.map((item) => [keyOf(item as { clientId: unknown; watchId: unknown }), item]));
      for (const k of keys.slice(i, i + BATCH_GET_LIMIT)) {
        const item = found.get(keyOf(k));
        if (item === undefined) items.delete(keyOf(k));
        else items.set(keyOf(k), item);
      }
    }
    parse(keys.map(keyOf));
    applied = plan.upTo;
    pendingSince = plan.complete ? undefined : waited;
  }

  /** The refresh with its retries; when they all fail, the last index goes on for MAX_STALE_MS, read again after a growing delay. */
  async function refreshWithBackoff(now: number): Promise<void> {
    if (applied !== undefined && now < nextReadAt) return;
    for (let attempt = 0; ; attempt++) {
      try {
        await refresh(now);
        failures = 0;
        nextReadAt = Number.NEGATIVE_INFINITY;
        staleSince = undefined;
        return;
      } catch (err) {
        if (attempt + 1 < READ_ATTEMPTS) {
          await pause(backoffDelay(attempt, 50, 800));
          continue;
        }
        failures++;
        staleSince ??= now;
        nextReadAt = now + backoffDelay(Math.min(failures, 5), 1_000, 30_000, () => 0.5 + Math.random() / 2);
        if (applied === undefined || now - staleSince >= MAX_STALE_MS) throw err;
        logger.warn('watches could not be read; matching with the last index', { failures, staleForMs: now - staleSince, error: err as Error });
        return;
      }
    }
  }

  return async () => {
    malformed = 0;
    flight ??= refreshWithBackoff(deps.clock()).finally(() => {
      flight = undefined;
    });
    const [inForce, registry] = await Promise.all([deps.rates?.(), deps.sources?.(), flight]);
    // New rates (read at most every RATES_CACHE_MS) or a new registry: the filters that read them compiled again.
    const newRates = !sameRates(inForce, rates);
    const newRegistry = registry?.revision !== facts?.revision;
    rates = inForce;
    facts = registry;
    if (index.watches.some((w) => (newRates && w.filters.query.currency !== undefined) || (newRegistry && usesRegistry(w.filters.query)))) parse(items.keys());
    return { index, malformed, rates };
  };
}
