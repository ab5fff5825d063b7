import type { ChangeSet, ChangeSource } from '../kernel/leg-change.js';
import { MAX_FOLLOWED_ENTRIES } from '../kernel/leg-change.js';
import type { ChangeLogStore } from './store.js';

/** Most entries a follower reads past the head's recent ones; further behind, it reads everything anew. */
export const FOLLOW_MAX = MAX_FOLLOWED_ENTRIES;

/** The change log as the listing's caches and snapshot follow it: index changes by entry number. */
export function createChangeSource(store: Pick<ChangeLogStore, 'recent' | 'indexChanges'>, maxEntries = FOLLOW_MAX): ChangeSource {
  return {
    head: () => store.recent(),
    async changeSets(from, to) {
      if (to < from) return [];
      if (to - from + 1 > maxEntries) return undefined;
      const sets = await store.indexChanges(from, to);
      // One gone (expired): read everything anew.
      if (sets.some((set) => set === undefined)) return undefined;
      return sets as ChangeSet[];
    },
  };
}
