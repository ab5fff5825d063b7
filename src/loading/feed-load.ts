import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LoadError, writeLegs, type WriteLegsOptions } from './loader.js';
import { batchGet } from '../aws/batch-get.js';
import { BATCH_GET_LIMIT, MAX_BATCH_GET_ATTEMPTS } from '../aws/batch-limits.js';
import { DEFAULT_SOURCE, sourceOf } from '../kernel/source.js';
import type { StoredLeg } from '../kernel/leg-item.js';
import { planLoad, stampedLeg, type LoadMode, type LoadPlan, type StoredItem } from './sync-plan.js';
import { scanLegItems } from './table-scan.js';
import { createSourcesStore } from '../sources/index.js';

/**
 * Loading a feed's valid legs, the one use case behind `legs:load` and the ingest function: upsert
 * writes; sync plans first, writes, then unlists (docs/storage.md, "Loading a feed").
 */
export interface FeedLoadRequest {
  legs: readonly StoredLeg[];
  mode: LoadMode;
  /** Sync: the sources the file is the complete set of (default: the sources of its legs). */
  sources?: readonly string[] | undefined;
  dryRun?: boolean;
  /** Sync: go ahead even when the guard refuses. */
  force?: boolean;
  now: Date;
}

export interface FeedLoadOutcome {
  /** The plan; undefined for an upsert that is not a dry run (it reads nothing). */
  plan: LoadPlan | undefined;
  status: 'loaded' | 'dry-run' | 'refused';
  /** Legs written with the file's content. */
  written: number;
  /** Legs written with `listed: false`. */
  unlisted: number;
}

export async function loadFeed(
  client: DynamoDBDocumentClient,
  tableName: string,
  request: FeedLoadRequest,
  writeOptions: WriteLegsOptions = {},
): Promise<FeedLoadOutcome> {
  if (request.mode === 'upsert' && !request.dryRun) {
    // The items of the file's ids, for the instants they keep (docs/storage.md, "A leg's instants").
    const held = await readLegItems(client, tableName, request.legs.map((l) => l.id));
    const now = request.now.getTime();
    const result = await writeLegs(client, tableName, request.legs.map((l) => stampedLeg(l, held.get(l.id), now)), writeOptions);
    await recordLoads(client, tableName, request.legs.map(sourceOf), request.now);
    return { plan: undefined, status: 'loaded', written: result.written, unlisted: 0 };
  }
  const ids = new Set(request.legs.map((l) => l.id));
  const synced = new Set(
    request.mode === 'sync' ? (request.sources ?? request.legs.map((l) => l.source ?? DEFAULT_SOURCE)) : [],
  );
  const existing = await scanLegItems(client, tableName, {
    keep: (item) => ids.has(item.id as string) || synced.has(sourceOf(item)),
  });
  const plan = planLoad(request.legs, existing, { mode: request.mode, sources: request.sources, now: request.now.getTime() });
  if (plan.refusals.length > 0 && !request.force) return { plan, status: 'refused', written: 0, unlisted: 0 };
  if (request.dryRun) return { plan, status: 'dry-run', written: 0, unlisted: 0 };
  const writes = plan.writes.length > 0 ? await writeLegs(client, tableName, plan.writes, writeOptions) : undefined;
  const unlists = plan.unlist.length > 0 ? await writeLegs(client, tableName, plan.unlist, writeOptions) : undefined;
  await recordLoads(client, tableName, [...plan.sources, ...request.legs.map(sourceOf)], request.now, plan.sources);
  return { plan, status: 'loaded', written: writes?.written ?? 0, unlisted: unlists?.written ?? 0 };
}

/**
 * The sources a load carried, as successfully loaded at `now` (src/sources/store.ts), and those it
 * synced (complete sets: each listed leg of theirs was carried), one write per load.
 */
async function recordLoads(client: DynamoDBDocumentClient, tableName: string, sources: readonly string[], now: Date, synced: readonly string[] = []): Promise<void> {
  if (sources.length > 0) await createSourcesStore(client, tableName).recordLoads(sources, now.getTime(), synced);
}

/** The items of these ids (strongly consistent), by id. */
async function readLegItems(client: DynamoDBDocumentClient, tableName: string, ids: readonly string[]): Promise<Map<string, StoredItem>> {
  const found = new Map<string, StoredItem>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += BATCH_GET_LIMIT) {
    const keys = unique.slice(i, i + BATCH_GET_LIMIT).map((id) => ({ id }));
    const got = await batchGet(client, tableName, keys, MAX_BATCH_GET_ATTEMPTS, { consistent: true });
    if (got.unprocessed.length > 0) throw new LoadError(`Reading ${tableName} failed: ${got.unprocessed.length} legs stayed unprocessed; nothing was written`);
    for (const item of got.items) found.set(String(item.id), item);
  }
  return found;
}
