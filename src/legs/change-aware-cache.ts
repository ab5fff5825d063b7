import { processClock } from '../clock.js';
import { LRUCache } from 'lru-cache';
import { RESET_ID, type ChangeSet, type JournalHead, type JournalSource, type LegChange } from './journal.js';
import { covers, MAX_CACHED_RECORDS, splitCached, type LegsRepository, type StartDateRange } from './repository.js';
import { IndexEntryReader, type IndexEntry } from './storage.js';

/**
 * The per-container listing cache that knows when the data changed (docs/performance.md):
 *
 * - bucket reads are kept (a read serves any later read of the same bucket whose startDate range it
 *   covers; concurrent misses share one query), and page records by id (an LRU of at most
 *   MAX_CACHED_RECORDS);
 * - before it answers, at most once per `checkIntervalMs` (1 s), the cache reads the journal's head
 *   (one small item, src/legs/journal.ts). When the version moved, it applies the change sets it
 *   missed to the cached reads (each touched read becomes a new, sorted array, so the match memo sees
 *   the change) and drops the changed legs' records. The recent change sets ride in the head itself;
 *   older ones come from the journal's slots in one BatchGetItem; when they are gone (more than 100
 *   behind, or overwritten), or when a change set says "reset" (a large load), it drops everything;
 * - at the latest `ceilingMs` after it was filled, it drops everything anyway: a write that bypasses
 *   the journal (a hand-made PutItem) is seen within the ceiling;
 * - a bucket read that completes re-applies the head's recent change sets, so an index read that
 *   lags behind the journal (GSIs are eventually consistent) does not undo a change already seen.
 *
 * Expiry is not cached state: the listing computes it from the clock at each request.
 */
export interface ChangeAwareCacheOptions {
  /** Clock, epoch ms. */
  clock?: () => number;
  /** Least time between two reads of the journal head. Default 1,000 ms. */
  checkIntervalMs?: number;
  /** Longest a cached read or record is kept whatever the journal says. */
  ceilingMs: number;
  maxRecords?: number;
}

export interface CacheStats {
  headReads: number;
  slotReads: number;
  changeSetsApplied: number;
  fullReloads: number;
}

export type ChangeAwareRepository = LegsRepository & {
  clear(): void;
  /** Reads the head now if the interval has passed (queryBucket and getLegs call it). */
  sync(): Promise<void>;
  readonly stats: CacheStats;
};

interface CachedRead extends StartDateRange {
  bucket: string;
  value: Promise<IndexEntry[]>;
}

export const DEFAULT_CHECK_INTERVAL_MS = 1_000;

function before(a: IndexEntry, b: IndexEntry): boolean {
  return a.startDate < b.startDate || (a.startDate === b.startDate && a.id < b.id);
}

function inRange(startDate: string, range: StartDateRange): boolean {
  return (range.from === undefined || startDate >= range.from) && (range.to === undefined || startDate <= range.to);
}

/** The changes of a run of change sets, the last change of each leg winning. */
function lastChanges(sets: readonly ChangeSet[]): Map<string, LegChange> {
  const byId = new Map<string, LegChange>();
  for (const set of sets) for (const c of set.changes) byId.set(c.id, c);
  return byId;
}

/**
 * `entries` (one bucket, index order) with `changes` applied: changed legs removed, and those now in
 * `bucket` within `range` inserted in order. The same array when nothing in it changes.
 */
export function applyChanges(
  entries: IndexEntry[],
  bucket: string,
  range: StartDateRange,
  changes: ReadonlyMap<string, LegChange>,
): IndexEntry[] {
  const added: IndexEntry[] = [];
  const reader = new IndexEntryReader();
  for (const c of changes.values()) {
    if (!c.index || c.index.lb !== bucket) continue;
    const entry = reader.read({ id: c.id, ls: c.index.ls, lf: c.index.lf });
    if (entry && inRange(entry.startDate, range)) added.push(entry);
  }
  let touched = added.length > 0;
  if (!touched) for (const e of entries) if (changes.has(e.id)) { touched = true; break; }
  if (!touched) return entries;
  added.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  const kept = entries.filter((e) => !changes.has(e.id));
  const out: IndexEntry[] = new Array<IndexEntry>(kept.length + added.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < kept.length && j < added.length) out[k++] = before(added[j]!, kept[i]!) ? added[j++]! : kept[i++]!;
  while (i < kept.length) out[k++] = kept[i++]!;
  while (j < added.length) out[k++] = added[j++]!;
  return out;
}

export function withChangeAwareCache(
  repo: LegsRepository,
  journal: JournalSource,
  options: ChangeAwareCacheOptions,
): ChangeAwareRepository {
  const clock = options.clock ?? processClock;
  const checkIntervalMs = options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS;
  const maxRecords = options.maxRecords ?? MAX_CACHED_RECORDS;
  const stats: CacheStats = { headReads: 0, slotReads: 0, changeSetsApplied: 0, fullReloads: 0 };

  let reads = new Map<string, CachedRead[]>();
  const records = new LRUCache<string, Record<string, unknown>>({ max: maxRecords });
  /** The journal version the cached state reflects; undefined before the first head read. */
  let seen: number | undefined;
  let recent: ChangeSet[] = [];
  let lastCheck = -Infinity;
  let filledAt = clock();
  let syncing: Promise<void> | undefined;

  function dropAll(now: number): void {
    repo.invalidate?.();
    reads = new Map();
    records.clear();
    filledAt = now;
  }

  function apply(sets: readonly ChangeSet[]): void {
    if (sets.length === 0) return;
    // What the repository read for earlier reads (the snapshot's delta) is behind now.
    repo.invalidate?.();
    stats.changeSetsApplied += sets.length;
    const changes = lastChanges(sets);
    for (const id of changes.keys()) records.delete(id);
    for (const list of reads.values()) {
      for (const read of list) {
        const { bucket, from, to } = read;
        read.value = read.value.then((entries) => applyChanges(entries, bucket, { from, to }, changes));
      }
    }
  }

  async function check(now: number): Promise<void> {
    stats.headReads += 1;
    const head: JournalHead = await journal.head();
    if (seen === undefined || head.version < seen) {
      // First look, or a journal that went back (a table recreated): nothing cached can be trusted.
      if (seen !== undefined) stats.fullReloads += 1;
      dropAll(now);
    } else if (head.version > seen) {
      const from = seen + 1;
      const inHead = head.recent.filter((s) => s.v >= from);
      let sets: ChangeSet[] | undefined = inHead.length > 0 && inHead[0]!.v === from ? inHead : undefined;
      if (!sets) {
        stats.slotReads += 1;
        sets = await journal.changeSets(from, head.version).catch(() => undefined);
      }
      if (sets && !sets.some((set) => set.changes.some((c) => c.id === RESET_ID))) apply(sets);
      else {
        stats.fullReloads += 1;
        dropAll(now);
      }
    }
    seen = head.version;
    recent = head.recent;
  }

  async function sync(): Promise<void> {
    if (syncing) return syncing;
    const now = clock();
    if (now - filledAt >= options.ceilingMs) {
      stats.fullReloads += 1;
      dropAll(now);
    }
    if (now - lastCheck < checkIntervalMs) return;
    lastCheck = now;
    syncing = check(now).finally(() => {
      syncing = undefined;
    });
    try {
      await syncing;
    } catch (err) {
      // The head could not be read: try again at the next request rather than serve unchecked data.
      lastCheck = -Infinity;
      throw err;
    }
  }

  return {
    stats,
    sync,
    async queryBucket(bucket, range = {}) {
      await sync();
      const live = reads.get(bucket) ?? [];
      const hit = live.find((r) => covers(r, range));
      if (hit) return hit.value;
      const fresh = recent;
      const value = repo
        .queryBucket(bucket, range)
        .then((entries) => applyChanges(entries, bucket, range, lastChanges(fresh)));
      const read: CachedRead = { bucket, from: range.from, to: range.to, value };
      const readsNow = reads;
      readsNow.set(bucket, [...live.filter((r) => !covers(read, r)), read]);
      value.catch(() => readsNow.set(bucket, (readsNow.get(bucket) ?? []).filter((r) => r !== read)));
      return read.value;
    },

    async getLegs(ids) {
      await sync();
      const { found, missing } = splitCached(ids, (id) => records.get(id));
      if (missing.length === 0) return found;
      const version = seen;
      const fetched = await repo.getLegs(missing);
      // A change seen while the records were in flight may have dropped them: keep them only if not.
      if (version === seen) for (const item of fetched) if (typeof item.id === 'string') records.set(item.id, item);
      return [...found, ...fetched];
    },

    clear() {
      dropAll(clock());
      seen = undefined;
      recent = [];
      lastCheck = -Infinity;
    },
  };
}
