import { categoryOf } from './import/aircraft-spellings.js';
import { ID_PATTERN } from './import/reference-data.js';
import { toApiRecord } from '../kernel/model.js';
import { DEFAULT_SOURCE, sourceOf } from '../kernel/source.js';
import { legExpiry, toStorageItem, type StoredLeg } from '../kernel/leg-item.js';
import { instantsOf, loadedInstants } from '../kernel/leg/instants.js';

/**
 * What a load writes, decided without I/O: upsert writes every leg; sync also unlists what the file
 * no longer has, refused past half of a source's listing unless forced (docs/storage.md, "The sync plan").
 */
export type StoredItem = Readonly<Record<string, unknown>>;
export type LoadMode = 'upsert' | 'sync';

export interface PlanCounts {
  /** Legs of the file with no item in the table. */
  new: number;
  /** Legs of the file whose item differs (their source may change too). */
  changed: number;
  /** Legs of the file whose item is exactly what the file gives: not written. */
  unchanged: number;
  /** Listed legs of a synced source absent from the file: written with `listed: false`. */
  unlist: number;
  /** Legs of the source in the listing now (listed, unblocked, not expired). */
  inListing: number;
  /** Of those, the ones absent from the file: the listing loses them. */
  leaving: number;
}

export interface SourcePlan extends PlanCounts {
  source: string;
  /** True when the file is the complete set of this source (a synced source). */
  synced: boolean;
}

export interface GuardRefusal {
  source: string;
  inListing: number;
  leaving: number;
}

export interface LoadPlan {
  mode: LoadMode;
  /** The synced sources, sorted (empty for an upsert). */
  sources: string[];
  /** New and changed legs, in file order (upsert: every leg of the file), with their instants. */
  writes: StoredLeg[];
  /** Legs to write again with `listed: false`, by id. */
  unlist: StoredLeg[];
  /** Per source (of the file, and synced), sorted by source. */
  bySource: SourcePlan[];
  totals: PlanCounts;
  /** Legs of the file whose id the table holds under another source. */
  moves: { id: string; from: string; to: string }[];
  /** Synced sources the guard stops (a sync with any is refused unless forced). */
  refusals: GuardRefusal[];
}

/** True for an item that is a leg (other items, e.g. bookkeeping ids outside the id format, are not). */
export function isLegItem(item: StoredItem): boolean {
  return (
    typeof item.id === 'string' &&
    ID_PATTERN.test(item.id) &&
    typeof item.startDate === 'string' &&
    typeof item.endDate === 'string' &&
    typeof item.depCityName === 'string' &&
    typeof item.arrCityName === 'string'
  );
}

/** A stored item back to the leg it was written from (what an export writes, what an unlist rewrites). */
export function fromStorageItem(item: StoredItem): StoredLeg {
  return {
    ...toApiRecord(item),
    // A text stored before the category vocabulary, mapped as the import maps it (its table of the
    // feeds' spellings; the API reads the names only): an unlisted or exported leg keeps `Super Mid`.
    aircraftType: typeof item.aircraftType === 'string' ? (categoryOf(item.aircraftType) ?? null) : null,
    listed: item.listed !== false,
    blocked: item.blocked === true,
    depTimezone: typeof item.depTimezone === 'string' ? item.depTimezone : 'UTC',
    source: sourceOf(item),
    ...(typeof item.depTimeFrom === 'string' ? { depTimeFrom: item.depTimeFrom } : {}),
    ...(typeof item.depTimeTo === 'string' ? { depTimeTo: item.depTimeTo } : {}),
    ...definedInstants(item),
  };
}

/** The instants an item holds, those it has only. */
function definedInstants(item: StoredItem): Partial<StoredLeg> {
  return Object.fromEntries(Object.entries(instantsOf(item)).filter(([, v]) => v !== undefined));
}

/** The leg as a load at `now` writes it over `item` (undefined: none), with its instants (docs/storage.md, "A leg's instants"). */
export function stampedLeg(leg: StoredLeg, item: StoredItem | undefined, now: number): StoredLeg {
  const instants = loadedInstants(toStorageItem(leg), item, now);
  return { ...leg, ...Object.fromEntries(Object.entries(instants).filter(([, v]) => v !== undefined)) };
}

/** True when the leg is in the listing at `now` (epoch ms). */
export function inListing(leg: StoredLeg, now: number): boolean {
  return leg.listed && !leg.blocked && now < legExpiry(leg, leg.depTimezone);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameValue((a as StoredItem)[k], (b as StoredItem)[k]));
}

/** True when writing `leg` with the instants `item` holds would leave `item` as it is. */
export function isUnchanged(leg: StoredLeg, item: StoredItem): boolean {
  const kept: StoredLeg = { ...leg, firstSeenAt: undefined, updatedAt: undefined, confirmedAt: undefined, ...definedInstants(item) };
  return sameValue(toStorageItem(kept), item);
}

const zero = (): PlanCounts => ({ new: 0, changed: 0, unchanged: 0, unlist: 0, inListing: 0, leaving: 0 });

export interface PlanOptions {
  mode: LoadMode;
  /** Sync only: the sources the file is the complete set of; default the sources of its legs. */
  sources?: readonly string[] | undefined;
  /** Epoch ms: what "expired" is measured against. */
  now: number;
}

/**
 * Plans a load of `legs` (valid, distinct ids) into a table holding `existing` (its leg items; an
 * upsert plan needs those of the file's ids, a sync plan also those of the synced sources).
 */
export function planLoad(legs: readonly StoredLeg[], existing: Iterable<StoredItem>, options: PlanOptions): LoadPlan {
  const sync = options.mode === 'sync';
  const sources = sync ? [...new Set(options.sources ?? legs.map((l) => l.source ?? DEFAULT_SOURCE))].sort() : [];
  const synced = new Set(sources);
  const byId = new Map<string, StoredItem>();
  for (const item of existing) if (isLegItem(item)) byId.set(item.id as string, item);

  const counts = new Map<string, PlanCounts>();
  const countsOf = (source: string) => {
    let c = counts.get(source);
    if (!c) counts.set(source, (c = zero()));
    return c;
  };
  for (const source of sources) countsOf(source);

  const writes: StoredLeg[] = [];
  const moves: LoadPlan['moves'] = [];
  const inFile = new Set<string>();
  for (const leg of legs) {
    inFile.add(leg.id);
    const source = leg.source ?? DEFAULT_SOURCE;
    const c = countsOf(source);
    const item = byId.get(leg.id);
    if (item === undefined) {
      c.new += 1;
      writes.push(stampedLeg(leg, item, options.now));
    } else if (isUnchanged(leg, item)) {
      c.unchanged += 1;
      if (!sync) writes.push(stampedLeg(leg, item, options.now));
    } else {
      c.changed += 1;
      writes.push(stampedLeg(leg, item, options.now));
      const from = sourceOf(item);
      if (from !== source) moves.push({ id: leg.id, from, to: source });
    }
  }

  const unlist: StoredLeg[] = [];
  if (sync) {
    for (const item of byId.values()) {
      const source = sourceOf(item);
      if (!synced.has(source)) continue;
      const leg = fromStorageItem(item);
      const c = countsOf(source);
      const visible = inListing(leg, options.now);
      if (visible) c.inListing += 1;
      if (inFile.has(leg.id)) continue;
      if (visible) c.leaving += 1;
      if (leg.listed) {
        c.unlist += 1;
        unlist.push({ ...leg, listed: false });
      }
    }
    unlist.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  const bySource = [...counts.entries()]
    .map(([source, c]) => ({ source, synced: synced.has(source), ...c }))
    .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  const totals = zero();
  for (const s of bySource) for (const k of Object.keys(totals) as (keyof PlanCounts)[]) totals[k] += s[k];
  const refusals = bySource
    .filter((s) => s.synced && s.leaving * 2 > s.inListing)
    .map(({ source, inListing, leaving }) => ({ source, inListing, leaving }));
  return { mode: options.mode, sources, writes, unlist, bySource, totals, moves, refusals };
}
