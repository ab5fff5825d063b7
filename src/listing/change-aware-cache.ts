import { processClock } from '../clock.js';
import { LRUCache } from 'lru-cache';
import { createVersionFollower } from '../kernel/version-follower.js';
import { applyChanges } from './apply-changes.js';
import { type ChangeHead, type ChangeSet, type ChangeSource, type LegChange } from '../kernel/leg-change.js';
import { covers, MAX_CACHED_RECORDS, splitCached, type LegsRepository, type StartDateRange } from './repository.js';
import type { IndexEntry } from '../kernel/index-entry.js';

/**
 * The per-container listing cache: keeps bucket reads and records, follows the change log at most
 * once per `checkIntervalMs`, drops everything at `ceilingMs` (docs/performance.md, "The change-aware cache").
 */
export interface ChangeAwareCacheOptions {
  /** Clock, epoch ms. */
  clock?: () => number;
  /** Least time between two reads of the change log's head. Default 1,000 ms. */
  checkIntervalMs?: number;
  /** Least time between two full reloads for falling behind the change log. Default 10,000 ms. */
  reloadIntervalMs?: number;
  /** Longest a cached read or record is kept whatever the change log says. */
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
export const DEFAULT_RELOAD_INTERVAL_MS = 10_000;

/** The changes of a run of change sets, the last change of each leg winning. */
function lastChanges(sets: readonly ChangeSet[]): Map<string, LegChange> {
  const byId = new Map<string, LegChange>();
  for (const set of sets) for (const c of set.changes) byId.set(c.id, c);
  return byId;
}

export function withChangeAwareCache(
  repo: LegsRepository,
  log: ChangeSource,
  options: ChangeAwareCacheOptions,
): ChangeAwareRepository {
  const clock = options.clock ?? processClock;
  const checkIntervalMs = options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS;
  const reloadIntervalMs = options.reloadIntervalMs ?? DEFAULT_RELOAD_INTERVAL_MS;
  const maxRecords = options.maxRecords ?? MAX_CACHED_RECORDS;
  const stats: CacheStats = { headReads: 0, slotReads: 0, changeSetsApplied: 0, fullReloads: 0 };

  let reads = new Map<string, CachedRead[]>();
  const records = new LRUCache<string, Record<string, unknown>>({ max: maxRecords });
  /** The change log entry the cached state reflects; undefined before the first head read. */
  let seen: number | undefined;
  let recent: ChangeSet[] = [];
  let filledAt = clock();

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

  /** What a read of the log's head does to the cached state (every read: `seen` decides). */
  async function follow(head: ChangeHead, now: number): Promise<void> {
    if (seen === undefined || head.version < seen) {
      // First look, or a log that went back (a table recreated): nothing cached can be trusted.
      if (seen !== undefined) stats.fullReloads += 1;
      dropAll(now);
    } else if (head.version > seen) {
      const from = seen + 1;
      const inHead = head.recent.filter((s) => s.v >= from);
      let sets: ChangeSet[] | undefined = inHead.length > 0 && inHead[0]!.v === from ? inHead : undefined;
      if (!sets) {
        stats.slotReads += 1;
        sets = await log.changeSets(from, head.version).catch(() => undefined);
      }
      if (sets) apply(sets);
      else if (now - filledAt < reloadIntervalMs) return;
      else {
        stats.fullReloads += 1;
        dropAll(now);
      }
    }
    seen = head.version;
    recent = head.recent;
  }

  const follower = createVersionFollower<ChangeHead>({
    clock,
    intervalMs: checkIntervalMs,
    read: () => {
      stats.headReads += 1;
      return log.head();
    },
    // Every read goes to `follow`: where the cache stands is `seen`, which a hold leaves behind the head.
    same: () => false,
    onMove: (head, _previous, at) => follow(head, at),
  });

  async function sync(): Promise<void> {
    const flying = follower.inFlight();
    if (flying) return flying;
    const now = clock();
    if (now - filledAt >= options.ceilingMs) {
      stats.fullReloads += 1;
      dropAll(now);
    }
    // A failed read rejects (the request fails rather than serve unchecked data); the next one reads again.
    await follower.poll();
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
      follower.reset();
    },
  };
}
