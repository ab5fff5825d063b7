import { EXPIRY_SHARD_KEYS } from '../kernel/retirement.js';
import { staleSourceIds, type Registry } from '../sources/index.js';
import {
  expiryWindow,
  MAX_EXPIRED_PER_SHARD,
  MAX_SOURCE_TOUCHES_PER_RUN,
  nextWatermark,
  sourcesToTouch,
  startAfter,
  type SourceCursor,
} from './plan.js';
import type { SweepStore } from './store.js';

/**
 * One run of the sweep (docs/sources.md, "Expiry and staleness"): the legs whose expiry instant
 * passed since the last run, and every leg of a source that went stale or came back, are touched,
 * so that the change consumer writes their `withdrawn` (`expired`, `stale`) or `listed` entries.
 */
export interface SweepDependencies {
  store: SweepStore;
  /** The registry, read fresh (what the consumer reads too). */
  registry: () => Promise<Registry>;
  /** The ids of a source's legs in the listing index at `now`, in id order. */
  legsOfSource: (source: string, now: number) => Promise<string[]>;
  now: number;
}

export interface SweepReport {
  /** Expired legs touched. */
  expired: number;
  /** Shards with due legs left for the next run. */
  behind: string[];
  /** The sources stale at the run's instant. */
  staleSources: string[];
  /** The sources whose legs the run touched: towards stale or back, how many, whether done. */
  sources: { source: string; stale: boolean; touched: number; done: boolean }[];
}

/** Touches `items` in order, at most 10 at once; the number touched (a failed condition is no touch). */
async function touchAll<T>(items: readonly T[], touch: (item: T) => Promise<boolean>): Promise<number> {
  let next = 0;
  let touched = 0;
  const worker = async () => {
    while (next < items.length) if (await touch(items[next++]!)) touched++;
  };
  await Promise.all(Array.from({ length: Math.min(10, items.length) }, worker));
  return touched;
}

export async function sweepListing(deps: SweepDependencies): Promise<SweepReport> {
  const { store, now } = deps;
  const [state, registry] = await Promise.all([store.state(), deps.registry()]);
  const report: SweepReport = { expired: 0, behind: [], staleSources: staleSourceIds(registry, now), sources: [] };

  const window = expiryWindow(state, now);
  const lastOfFull: number[] = [];
  for (const shard of EXPIRY_SHARD_KEYS) {
    const { legs, more } = await store.dueLegs(shard, window.from, window.to, MAX_EXPIRED_PER_SHARD);
    if (more) {
      report.behind.push(shard);
      lastOfFull.push(Number(legs[legs.length - 1]?.xa ?? window.from + 1));
    }
    report.expired += await touchAll(legs, (leg) => store.touch(leg.id, now, leg.xa));
  }

  const staleNow = new Set(report.staleSources);
  const stale = new Set(state?.stale ?? []);
  const cursors = new Map<string, SourceCursor>(state?.cursors ?? []);
  let budget = MAX_SOURCE_TOUCHES_PER_RUN;
  for (const { source, stale: toStale } of sourcesToTouch(state, staleNow)) {
    if (budget <= 0) break;
    const after = startAfter(state, source, toStale);
    const ids = (await deps.legsOfSource(source, now)).filter((id) => after === undefined || id > after);
    const batch = ids.slice(0, budget);
    budget -= batch.length;
    const touched = await touchAll(batch, (id) => store.touch(id, now));
    const done = batch.length === ids.length;
    report.sources.push({ source, stale: toStale, touched, done });
    if (done) {
      cursors.delete(source);
      if (toStale) stale.add(source);
      else stale.delete(source);
    } else cursors.set(source, { stale: toStale, after: batch[batch.length - 1]! });
  }
  await store.saveState({ watermark: nextWatermark(window, lastOfFull), stale, cursors });
  return report;
}
