import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../aws/batch-get.js';
import { applyChanges } from './apply-changes.js';
import { type ChangeSource, type LegChange } from '../kernel/leg-change.js';
import { BATCH_GET_LIMIT, MAX_BATCH_GET_ATTEMPTS } from '../aws/batch-limits.js';
import { MAX_SNAPSHOT_PARTS_PER_BUCKET } from './limits.js';
import type { LegsRepository } from './repository.js';
import { covers, decodeBucket, decodeManifest, partId, sliceByStart, SNAPSHOT_MANIFEST_ID, type SnapshotManifest } from '../snapshot/index.js';
import type { IndexEntry } from '../kernel/index-entry.js';

/**
 * Bucket reads from the listing snapshot (manifest, then the change log's entries after its `logSeq`
 * laid over the buckets' parts), from the index (`repo`) where it cannot serve: no manifest, a delta
 * longer than `log` reads, or parts missing. `invalidate()` makes the next read read anew.
 */
export interface SnapshotStats {
  /** Bucket reads served by the snapshot. */
  snapshotReads: number;
  /** Bucket reads served by the index (no usable snapshot). */
  indexReads: number;
}

interface State {
  manifest: SnapshotManifest;
  delta: ReadonlyMap<string, LegChange>;
  buckets: Map<string, Promise<IndexEntry[] | undefined>>;
  /** Reads parts, batching the requests of one turn (partsLoader). */
  parts: (ids: readonly string[]) => Promise<Map<string, Uint8Array>>;
}

export type SnapshotRepository = LegsRepository & { invalidate(): void; readonly stats: SnapshotStats };

export function withSnapshot(repo: LegsRepository, client: DynamoDBDocumentClient, tableName: string, log: ChangeSource): SnapshotRepository {
  const stats: SnapshotStats = { snapshotReads: 0, indexReads: 0 };
  let state: Promise<State | undefined> | undefined;

  async function readState(): Promise<State | undefined> {
    const out = await client.send(new GetCommand({ TableName: tableName, Key: { id: SNAPSHOT_MANIFEST_ID } }));
    const manifest = decodeManifest(out.Item);
    if (manifest?.logSeq === undefined) return undefined;
    const head = await log.head();
    const sets = await log.changeSets(manifest.logSeq + 1, head.version);
    if (!sets) return undefined;
    const delta = new Map<string, LegChange>();
    // In log order: the last change of a leg wins.
    for (const set of sets) for (const c of set.changes) delta.set(c.id, c);
    return { manifest, delta, buckets: new Map(), parts: partsLoader() };
  }

  /** The parts named, read in BatchGetItems of at most 100 keys in parallel; a part not found (or left unprocessed) is absent. */
  async function fetchParts(ids: readonly string[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    const batches: string[][] = [];
    for (let i = 0; i < ids.length; i += BATCH_GET_LIMIT) batches.push(ids.slice(i, i + BATCH_GET_LIMIT));
    await Promise.all(
      batches.map(async (batch) => {
        const got = await batchGet(client, tableName, batch.map((id) => ({ id })), MAX_BATCH_GET_ATTEMPTS);
        for (const item of got.items) if (typeof item.id === 'string' && item.z instanceof Uint8Array) found.set(item.id, item.z);
      }),
    );
    return found;
  }

  /**
   * The parts of the buckets asked for in one turn of the event loop, read together: a request's
   * bucket reads start at once (src/listing/list-legs.ts), so a cold request reads all its parts in one
   * BatchGetItem (two past 100 parts), not one per bucket.
   */
  function partsLoader(): (ids: readonly string[]) => Promise<Map<string, Uint8Array>> {
    let wanted: string[] = [];
    let batch: Promise<Map<string, Uint8Array>> | undefined;
    return (ids) => {
      wanted.push(...ids);
      return (batch ??= new Promise((turn) => setImmediate(turn)).then(() => {
        const all = [...new Set(wanted)];
        wanted = [];
        batch = undefined;
        return fetchParts(all);
      }));
    };
  }

  async function readParts(bucket: string, s: State): Promise<IndexEntry[] | undefined> {
    if (!covers(s.manifest, bucket)) return undefined;
    const b = s.manifest.buckets[bucket];
    // A bucket the build found empty: only what the delta adds to it.
    if (!b) return applyChanges([], bucket, {}, s.delta);
    if (b.parts > MAX_SNAPSHOT_PARTS_PER_BUCKET) return undefined;
    const ids = Array.from({ length: b.parts }, (_, k) => partId(bucket, b.hash, k));
    const found = await s.parts(ids);
    const parts = ids.map((id) => found.get(id));
    if (parts.some((p) => p === undefined)) return undefined;
    const entries = decodeBucket(parts as Uint8Array[]);
    return entries && applyChanges(entries, bucket, {}, s.delta);
  }

  return {
    stats,
    invalidate() {
      state = undefined;
    },
    async queryBucket(bucket, range = {}) {
      const current = (state ??= readState().catch((err: unknown) => {
        state = undefined;
        throw err;
      }));
      const s = await current;
      let entries: IndexEntry[] | undefined;
      if (s) {
        let read = s.buckets.get(bucket);
        if (!read) {
          const parts = readParts(bucket, s);
          // A failed read is not kept: the next request tries again.
          parts.catch(() => s.buckets.delete(bucket));
          s.buckets.set(bucket, (read = parts));
        }
        entries = await read;
      }
      if (!entries) {
        stats.indexReads += 1;
        return repo.queryBucket(bucket, range);
      }
      stats.snapshotReads += 1;
      return sliceByStart(entries, range.from, range.to);
    },
    getLegs: (ids) => repo.getLegs(ids),
  };
}
