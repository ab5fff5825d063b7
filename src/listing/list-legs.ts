import { utcDate } from '../kernel/dates.js';
import { bucketReads, collectMatches, compileQuery, pageOfMerged, paginate, ranked, type CompiledQuery } from './listing.js';
import { inWindow, unfilteredWindow } from '../kernel/listed.js';
import { toApiRecord, type EmptyLeg } from '../kernel/model.js';
import type { ListQuery } from './query.js';
import { matchesKey, type MatchMemo } from './match-memo.js';
import type { LegsRepository } from './repository.js';
import { LONG_BUCKET } from '../kernel/leg-item.js';
import type { IndexEntry } from '../kernel/index-entry.js';
import { airportReference, type AirportIndex } from '../airports/index.js';
import type { Detour } from './nearby.js';
import { withConvertedPrice, type RatesSource } from '../rates/index.js';
import type { SourceFacts } from '../kernel/source.js';
import { factsOfItem, NO_INCLUDE, withBlocks, type Include, type SourceFacts as BlockSourceFacts } from '../kernel/leg/blocks.js';
import { flightRank, flightRecord, groupedFlights, type Flight } from '../flights/index.js';
import { EMPTY_REGISTRY, sourceBlockFactsOf, staleSourceIds, type RegistrySource } from '../sources/index.js';

/**
 * The list use case: plan the bucket reads, read them (in parallel), filter, count, take the page
 * from the merge, fetch the page's records.
 */
/** A record of the answer: the leg, and on a trip search its detour (docs/api.md, "Trips"). */
export type ListedLeg = EmptyLeg & { detour?: Detour };

export interface LegsPage {
  records: ListedLeg[];
  total: number;
  page: number;
  size: number;
}

/**
 * API records by stored item: a warm container's record cache hands back the same item objects, so
 * each is converted once (and, being unchanged after, serialized once: src/http/envelope.ts).
 */
const apiRecords = new WeakMap<object, EmptyLeg>();

function apiRecordOf(item: Record<string, unknown>): EmptyLeg {
  let record = apiRecords.get(item);
  if (record === undefined) apiRecords.set(item, (record = toApiRecord(item)));
  return record;
}

/** The compiled query, leaving out the legs of `sources` (none: the query as it is). */
export function withoutSources(compiled: CompiledQuery, sources: readonly string[] | undefined): CompiledQuery {
  if (sources === undefined || sources.length === 0) return compiled;
  const out = new Set(sources);
  return { ...compiled, matches: (entry, window, nowMs) => !out.has(entry.source) && compiled.matches(entry, window, nowMs) };
}

/** The source facts a record's `provenance` block reads, and the registry read they come from (the same object while it is unchanged). */
export interface BlockSources {
  sourceFacts: (id: string) => BlockSourceFacts;
  registryRead: object;
}

/**
 * A record with its blocks, the same object for the same record, `include` and registry: a warm
 * container's answers reuse it (and its serialization, src/http/envelope.ts) as they reuse the record.
 */
const withBlocksOf = new WeakMap<object, { key: string; sources: object | undefined; record: EmptyLeg }>();

function blocksOf(
  listed: EmptyLeg,
  item: Record<string, unknown>,
  include: Include,
  deps: Partial<BlockSources>,
): EmptyLeg {
  const key = [...include].join(',');
  const provenance = include.has('provenance');
  const sources = provenance ? deps.registryRead : undefined;
  const held = withBlocksOf.get(listed);
  const reusable = !provenance || sources !== undefined;
  if (reusable && held !== undefined && held.key === key && held.sources === sources) return held.record;
  const record = withBlocks(listed, include, factsOfItem(item), deps.sourceFacts!);
  withBlocksOf.set(listed, { key, sources, record });
  return record;
}

export async function listEmptyLegs(
  query: ListQuery,
  deps: {
    repository: LegsRepository;
    now: Date;
    memo?: MatchMemo | undefined;
    /** The airport reference, for a nearby search (called only when the query has one; default: the bundled one). */
    airports?: (() => AirportIndex) | undefined;
    /** The rates in force, read only when the query has `currency` (src/rates/source.ts). */
    rates?: RatesSource | undefined;
    /** The sources registry's facts, read only when the query has `kind`, `verifiedOnly=true` or `maxAgeHours` (src/sources/cached.ts). */
    sources?: (() => Promise<SourceFacts>) | undefined;
    /** The stale sources (docs/sources.md), whose legs the listing leaves out; read from each entry's source field. */
    staleSources?: readonly string[] | (() => Promise<readonly string[]>) | undefined;
    /** The blocks each record carries (`include`), from its item and its source's registry entry. */
    include?: Include | undefined;
    /** The registry's facts for `include=provenance`, read after the query compiled, once. */
    blockSources?: (() => Promise<BlockSources>) | undefined;
    /** The sources registry, read only with `group=flight` (its offers' order). */
    registry?: RegistrySource | undefined;
  },
): Promise<LegsPage> {
  // `group=flight` ranks offers by their euro price: it reads the rates too.
  const rates = query.currency === undefined && query.group === undefined ? undefined : await deps.rates?.();
  const sources = usesRegistry(query) ? await deps.sources?.() : undefined;
  // An unknown airport or currency is refused before anything is read.
  const checked = compileQuery(query, deps.airports ?? airportReference, rates, sources);
  // Read after the query compiled: an unknown airport is refused before the registry is read.
  const staleSources = typeof deps.staleSources === 'function' ? await deps.staleSources() : deps.staleSources;
  const compiled = withoutSources(checked, staleSources);
  const todayUtc = utcDate(deps.now);
  const window = compiled.window(todayUtc);
  if (window === null) return { records: [], total: 0, page: query.page, size: query.size };

  // At most MAX_BUCKET_READS reads (src/listing/limits.ts).
  const reads = bucketReads(window, todayUtc);
  const lists = await Promise.all(reads.map((read) => deps.repository.queryBucket(read.bucket, read)));

  // Month buckets cover disjoint, ascending ranges of startDate: their matches, appended in month
  // order, are already sorted. Only the long-window bucket's matches are merged in, and only as far
  // as the page goes. Another order ranks them all, once per memo entry.
  const nowMs = deps.now.getTime();
  // Converted prices filter and order with the rates of their date, kinds with the registry's revision; stale sources are left out.
  const stale = staleSources !== undefined && staleSources.length > 0 ? ` -${staleSources.join(',')}` : '';
  const key = matchesKey(query, [todayUtc, rates?.date, sources?.revision].filter((part) => part !== undefined).join(' ') + stale);
  let matches = deps.memo?.get(key, lists, nowMs);
  if (!matches) {
    matches = { months: [], long: [] };
    const { months, long } = matches;
    reads.forEach((read, i) => collectMatches(lists[i]!, read, compiled, window, nowMs, read.bucket === LONG_BUCKET ? long : months));
    if (compiled.rank !== undefined) matches = { months: ranked([...months, ...long], compiled.rank), long: [] };
    deps.memo?.set(key, lists, matches, compiled.matchingUntil);
  }
  let flights: Flight[] | undefined;
  if (query.group === 'flight') {
    const rank = compiled.rank === undefined ? undefined : flightRank(compiled.rank, query.sort === '-price');
    const registry = await deps.registry?.();
    flights = groupedFlights({ matches, lists, listedWindow: unfilteredWindow(todayUtc), nowMs, registry, rates, rank });
  }
  const flightOf = new Map<string, Flight>();
  const slice = flights === undefined ? pageOfMerged(matches.months, matches.long, query.page, query.size) : paginate(flights, query.page, query.size);
  const pageEntries = flights === undefined ? (slice.items as IndexEntry[]) : (slice.items as Flight[]).map((f) => (flightOf.set(f.offers[0]!.id, f), f.offers[0]!));

  const include = deps.include ?? NO_INCLUDE;
  const blockSources = include.has('provenance') ? await deps.blockSources?.() : undefined;
  const items = pageEntries.length > 0 ? await deps.repository.getLegs(pageEntries.map((e) => e.id)) : [];
  const byId = new Map(items.map((item) => [item.id, item]));
  const records = pageEntries.flatMap((entry) => {
    const item = byId.get(entry.id);
    // The index is eventually consistent: skip a leg deleted, blocked or unlisted since.
    if (!item || item.listed === false || item.blocked === true) return [];
    const record = apiRecordOf(item);
    const priced = query.currency === undefined ? record : withConvertedPrice(record, query.currency, rates);
    const listed = compiled.trip === undefined ? priced : { ...priced, detour: compiled.trip.detourOf(entry)! };
    const blocked = include.size === 0 ? listed : blocksOf(listed, item, include, blockSources ?? {});
    const flight = flightOf.get(entry.id);
    return [flight === undefined ? blocked : flightRecord(blocked, flight, query.currency, rates)];
  });
  return { records, total: slice.total, page: slice.page, size: slice.size };
}

type ListDependencies = Parameters<typeof listEmptyLegs>[1];

/**
 * The listing as GET /open/v1/empty-legs runs it (and the MCP search): the registry (a container's
 * cached copy) read once, and only after the query compiled, for its stale sources and `include=provenance`.
 */
export function listWithRegistry(
  query: ListQuery,
  include: Include,
  deps: Omit<ListDependencies, 'staleSources' | 'registry' | 'include' | 'blockSources'> & { registry?: RegistrySource | undefined },
): Promise<LegsPage> {
  const { registry, ...rest } = deps;
  let read: ReturnType<RegistrySource> | undefined;
  const readRegistry = () => (read ??= registry ? registry() : Promise.resolve(EMPTY_REGISTRY));
  const now = deps.now.getTime();
  return listEmptyLegs(query, {
    ...rest,
    staleSources: registry && (async () => staleSourceIds(await readRegistry(), now)),
    registry: registry && readRegistry,
    include,
    blockSources: async () => {
      const registryRead = await readRegistry();
      return { sourceFacts: (id) => sourceBlockFactsOf(registryRead, id), registryRead };
    },
  });
}

/** True when the query's filters read the sources registry (`kind`, `verifiedOnly=true`, `maxAgeHours`: its sources' syncs). */
export const usesRegistry = (query: Pick<ListQuery, 'kind' | 'verifiedOnly' | 'maxAgeHours'>): boolean =>
  query.kind !== undefined || query.verifiedOnly === true || query.maxAgeHours !== undefined;
/** Each index entry the unfiltered listing holds at `now` (stale sources included): its bucket reads, no record read. */
async function forEachListed(repository: Pick<LegsRepository, 'queryBucket'>, now: number, visit: (entry: IndexEntry) => void): Promise<void> {
  const today = utcDate(new Date(now));
  const window = unfilteredWindow(today);
  const reads = bucketReads(window, today);
  const lists = await Promise.all(reads.map((read) => repository.queryBucket(read.bucket, read)));
  lists.forEach((entries, i) => {
    const { from, to } = reads[i]!;
    for (const entry of entries) {
      if ((from !== undefined && entry.startDate < from) || (to !== undefined && entry.startDate > to)) continue;
      if (inWindow(entry, window, now)) visit(entry);
    }
  });
}

/**
 * The number of legs the unfiltered listing lists at `now`, per source (GET /open/v1/sources): the
 * bucket reads of the unfiltered listing, counted from their index entries, no record read.
 */
export async function countListedBySource(repository: Pick<LegsRepository, 'queryBucket'>, now: number): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  await forEachListed(repository, now, (entry) => counts.set(entry.source, (counts.get(entry.source) ?? 0) + 1));
  return counts;
}

/** The ids of a source's legs in the listing index at `now`, stale or not, in id order (the sweep's, src/sweep/). */
export async function listedIdsOfSource(repository: Pick<LegsRepository, 'queryBucket'>, now: number, source: string): Promise<string[]> {
  const ids: string[] = [];
  await forEachListed(repository, now, (entry) => {
    if (entry.source === source) ids.push(entry.id);
  });
  return ids.sort();
}
