import { BUCKET_ATTR, FILTER_ATTR, SORT_ATTR } from './leg-item.js';

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
/** Entries of one change log index page (src/changes/store.ts): what a follower reads in one item. */
export const CHANGE_PAGE_SIZE = 50;

/** Entries of the change log a follower reads at once (FOLLOW_MAX): 40 pages. */
export const MAX_FOLLOWED_ENTRIES = 2_000;
