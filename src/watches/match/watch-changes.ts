import type { WatchesVersion, WatchKey } from '../store.js';

/**
 * What a matcher whose index holds the watches up to version `applied` reads next (docs/watches.md,
 * "Matching"): nothing; the watches the changes since name, read by key (`upTo`: the last change
 * applied; `complete` false while a later change's slot is not written yet); or, when it has no
 * index or is further behind than the slots, every watch.
 */
export type ChangePlan =
  | { kind: 'none' }
  | { kind: 'scan' }
  | { kind: 'patch'; keys: WatchKey[]; upTo: number; complete: boolean };

export function planChanges(applied: number | undefined, read: WatchesVersion, slots: number): ChangePlan {
  if (applied === undefined || read.version < applied || read.version - applied > slots) return { kind: 'scan' };
  if (read.version === applied) return { kind: 'none' };
  const keys = new Map<string, WatchKey>();
  let upTo = applied;
  for (let v = applied + 1; v <= read.version; v++) {
    const key = read.changes.get(v);
    // Not written yet (a slot is written after its version moved; a later one cannot be there yet within `slots`).
    if (key === undefined) return { kind: 'patch', keys: [...keys.values()], upTo, complete: false };
    keys.set(`${key.clientId}\n${key.watchId}`, key);
    upTo = v;
  }
  return { kind: 'patch', keys: [...keys.values()], upTo, complete: true };
}
