/**
 * The minute's sweep (docs/sources.md, "Expiry and staleness"), its rules without I/O: the window of
 * expiry instants a run reads, and which sources' legs it touches so that the change consumer tells
 * the feed and the watches that they left (`stale`) or came back (`listed`).
 */

/** A run reads expiry instants up to this long before its own instant: an item written later than that was seen expired by the consumer itself. */
export const EXPIRY_LAG_MS = 15_000;

/** A first run (no state) reads expiry instants from this long before it. */
export const FIRST_RUN_LOOKBACK_MS = 86_400_000;

/** Legs touched per run at most: the expired ones of each shard, and the legs of sources that changed state. */
export const MAX_EXPIRED_PER_SHARD = 250;
export const MAX_SOURCE_TOUCHES_PER_RUN = 2_000;

/** What the sweep told the feed of a source: its legs are out (`stale`), in (`fresh`), or a change is under way. */
export type Announced = 'stale' | 'fresh';

/** A source's change under way: towards `stale` or not, the legs up to `after` (an id) touched. */
export interface SourceCursor {
  stale: boolean;
  after: string;
}

/** The sweep's state (item `~sweep`). */
export interface SweepState {
  /** Expiry instants up to this one (epoch ms) are done. */
  watermark: number;
  /** Sources whose legs the sweep last told stale; any other is fresh. */
  stale: ReadonlySet<string>;
  /** Changes under way, by source. */
  cursors: ReadonlyMap<string, SourceCursor>;
}

/** The expiry instants a run at `now` reads: after `from`, up to `to` (both epoch ms). */
export function expiryWindow(state: SweepState | undefined, now: number): { from: number; to: number } {
  const to = now - EXPIRY_LAG_MS;
  const from = state === undefined ? to - FIRST_RUN_LOOKBACK_MS : Math.min(state.watermark, to);
  return { from, to };
}

/**
 * The watermark after a run: `to`, or, when a shard had more due legs than it read, just before
 * the last instant it read (so the legs at that instant are read again: a touch is idempotent).
 */
export function nextWatermark(window: { from: number; to: number }, lastReadOfFullShards: readonly number[]): number {
  const capped = lastReadOfFullShards.length === 0 ? window.to : Math.min(...lastReadOfFullShards) - 1;
  return Math.max(window.from, Math.min(window.to, capped));
}

/** The sources whose legs a run must touch: stale now but not told, told but no longer stale, or under way. */
export function sourcesToTouch(state: SweepState | undefined, staleNow: ReadonlySet<string>): { source: string; stale: boolean }[] {
  const told = state?.stale ?? new Set<string>();
  const ids = new Set([...staleNow, ...told, ...(state?.cursors.keys() ?? [])]);
  return [...ids]
    .sort()
    .map((source) => ({ source, stale: staleNow.has(source) }))
    .filter(({ source, stale }) => state?.cursors.has(source) === true || stale !== told.has(source));
}

/** Where a source's touching starts: after its cursor when the change goes the same way, else from the start. */
export function startAfter(state: SweepState | undefined, source: string, stale: boolean): string | undefined {
  const cursor = state?.cursors.get(source);
  return cursor !== undefined && cursor.stale === stale ? cursor.after : undefined;
}

/** The 13-digit form of an epoch ms, as `xa` holds it (src/kernel/leg-item.ts, `expiryInstantKey`). */
export const instantKey = (ms: number): string => String(Math.max(0, ms)).padStart(13, '0');
