import type { StartDateRange } from './repository.js';
import { BUCKET_ATTR, FILTER_ATTR, IndexEntryReader, SORT_ATTR, type IndexEntry } from './storage.js';

/** A leg's index entry as the listing index holds it: bucket, sort key, filter attribute (storage.ts). */
export interface IndexKey {
  lb: string;
  ls: string;
  lf: string;
}

/** One leg's change: its id and its index entry now, absent when the leg left the listing index. */
export interface LegChange {
  id: string;
  index?: IndexKey;
}

/** Change `v` of the change log (src/changes/store.ts), as the listing's caches apply it. */
export interface ChangeSet {
  v: number;
  changes: LegChange[];
}

/** The change log's head as a follower reads it: its number and the most recent changes, oldest first. */
export interface ChangeHead {
  version: number;
  recent: ChangeSet[];
}

/** How the listing follows the change log (implemented in src/changes/follow.ts). */
export interface ChangeSource {
  head(): Promise<ChangeHead>;
  /** Changes `from` to `to` (inclusive), in order; undefined when they are too many or one is gone. */
  changeSets(from: number, to: number): Promise<ChangeSet[] | undefined>;
}

/** The index entry of a storage item (what toStorageItem wrote), undefined when it is not in the index. */
export function indexKeyOf(item: Readonly<Record<string, unknown>> | undefined): IndexKey | undefined {
  const lb = item?.[BUCKET_ATTR];
  const ls = item?.[SORT_ATTR];
  const lf = item?.[FILTER_ATTR];
  return typeof lb === 'string' && typeof ls === 'string' && typeof lf === 'string' ? { lb, ls, lf } : undefined;
}

/** The change of a storage item. */
export function changeOfItem(item: Readonly<Record<string, unknown>>): LegChange {
  const index = indexKeyOf(item);
  return index ? { id: String(item.id), index } : { id: String(item.id) };
}

function before(a: IndexEntry, b: IndexEntry): boolean {
  return a.startDate < b.startDate || (a.startDate === b.startDate && a.id < b.id);
}

function inRange(startDate: string, range: StartDateRange): boolean {
  return (range.from === undefined || startDate >= range.from) && (range.to === undefined || startDate <= range.to);
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

