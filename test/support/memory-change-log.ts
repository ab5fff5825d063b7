import { legOfGroup, stateListing, type ListingGroup } from '../../src/changes/store-parts/initial-listing.js';
import { SORT_ATTR } from '../../src/kernel/leg-item.js';
import { packRecord } from '../../src/kernel/record-pack.js';
import type { EmptyLeg } from '../../src/kernel/model.js';
import type { LegState, LogGroup } from '../../src/changes/log.js';
import type { ChangeLogStore, StoredEntry } from '../../src/changes/store.js';
import { INDEXED_SOURCE_FIELDS } from '../../src/changes/store-parts/reindex.js';
import type { ItemChange } from '../../src/changes/transition.js';
import { keptFactsOfChange } from '../../src/changes/moves.js';

/**
 * The change log store in memory, for unit and property tests: the same contract as
 * src/changes/store.ts (numbered entries without gaps, states, head, the listed legs of a table
 * held by the test), without DynamoDB. The initial listing reads the table's items and the states of
 * the legs the log lists, as the listedLegs index holds them, in the order of their `ls`.
 */
export interface MemoryChangeLog extends ChangeLogStore {
  readonly log: StoredEntry[];
  readonly stateOf: Map<string, LegState>;
  /** Deletes the entries up to `seq` (what DynamoDB TTL does to old entries). */
  expireUpTo(seq: number): void;
}

export function memoryChangeLog(table: () => ReadonlyMap<string, Readonly<Record<string, unknown>>>): MemoryChangeLog {
  const log: StoredEntry[] = [];
  const deleted = new Set<number>();
  const stateOf = new Map<string, LegState>();
  /** The state items the listedLegs index holds (src/changes/store.ts writes them so). */
  const listedStates = new Map<string, Record<string, unknown>>();
  return {
    log,
    stateOf,
    expireUpTo(seq) {
      for (let q = 1; q <= seq; q++) deleted.add(q);
    },
    head() {
      return Promise.resolve(log.length);
    },
    // The table is the test's: its items' derived attributes are left as they are.
    reindex() {
      return Promise.resolve(false);
    },
    recent() {
      const recent = log.slice(-20).map((e) => ({ v: e.seq, changes: [e.index ? { id: e.id, index: e.index } : { id: e.id }] }));
      return Promise.resolve({ version: log.length, recent });
    },
    seqBefore(instant) {
      let q = 0;
      for (const e of log) if (e.committedAt < instant) q = e.seq;
      return Promise.resolve(q);
    },
    states(ids) {
      const found = new Map<string, LegState>();
      for (const id of ids) {
        const s = stateOf.get(id);
        if (s) found.set(id, s);
      }
      return Promise.resolve(found);
    },
    append(group: LogGroup, at: number) {
      for (const [id, { prior }] of group.states) {
        if (stateOf.get(id)?.sequenceNumber !== prior?.sequenceNumber) return Promise.resolve(false);
      }
      for (const e of group.entries) {
        log.push({ ...e, seq: log.length + 1, changedAt: new Date(at).toISOString(), committedAt: at });
      }
      const shown = new Map(group.entries.map((e) => [e.id, e]));
      for (const [id, { next }] of group.states) {
        const e = shown.get(id);
        // What src/changes/store.ts reads back of a listed state's facts.
        stateOf.set(id, next.digest === null || e === undefined ? next : { ...next, kept: keptFactsOfChange(e.index, e.facts) });
        const state: Record<string, unknown> = next.digest === null || e === undefined ? {} : { id: `~feed#${id}`, r: packRecord(e.leg), ...stateListing(e.index) };
        if (typeof state[SORT_ATTR] === 'string') listedStates.set(id, state);
        else listedStates.delete(id);
      }
      return Promise.resolve(true);
    },
    indexChanges(from, to) {
      const out = [];
      for (let q = from; q <= to; q++) {
        const e = deleted.has(q) ? undefined : log[q - 1];
        out.push(e && { v: e.seq, changes: [e.index ? { id: e.id, index: e.index } : { id: e.id }] });
      }
      return Promise.resolve(out);
    },
    entries(from, to) {
      const out: (StoredEntry | undefined)[] = [];
      for (let q = from; q <= to; q++) out.push(deleted.has(q) ? undefined : log[q - 1]);
      return Promise.resolve(out);
    },
    listed(afterKey, limit, now, stale) {
      // The index's order: groups of one `ls`, each the leg's item (when it has its index attributes) and its state.
      const groups = new Map<string, ListingGroup>();
      const group = (ls: string) => groups.get(ls) ?? groups.set(ls, { ls }).get(ls)!;
      for (const item of table().values()) if (typeof item[SORT_ATTR] === 'string') group(item[SORT_ATTR]).item = item;
      for (const state of listedStates.values()) group(state[SORT_ATTR] as string).state = state;
      const legs: EmptyLeg[] = [];
      for (const g of [...groups.values()].sort((x, y) => (x.ls < y.ls ? -1 : x.ls > y.ls ? 1 : 0))) {
        if (afterKey !== undefined && g.ls <= afterKey) continue;
        const leg = legOfGroup(g, new Date(now), stale);
        if (!leg) continue;
        legs.push(leg);
        if (legs.length === limit) return Promise.resolve({ legs, next: g.ls });
      }
      return Promise.resolve({ legs, next: undefined });
    },
  };
}

/**
 * A model of the legs table and its stream for the mirror properties: `write` puts (or, undefined,
 * deletes) an item and appends its stream record; `log` is the change log in memory whose repair
 * writes the derived attributes back as src/changes/store-parts/reindex.ts does, conditioned on the
 * fields it derived from.
 */
export function modelTable(): {
  table: Map<string, Record<string, unknown>>;
  stream: ItemChange[];
  write: (key: string, next: Record<string, unknown> | undefined) => void;
  log: MemoryChangeLog;
} {
  const table = new Map<string, Record<string, unknown>>();
  const stream: ItemChange[] = [];
  let sequence = 0;
  const write = (key: string, next: Record<string, unknown> | undefined) => {
    const old = table.get(key);
    if (old === undefined && next === undefined) return;
    if (next === undefined) table.delete(key);
    else table.set(key, next);
    stream.push({ id: key, sequenceNumber: String(++sequence), oldImage: old, newImage: next });
  };
  const memory = memoryChangeLog(() => table);
  const log: MemoryChangeLog = {
    ...memory,
    reindex(key, image, repair) {
      const item = table.get(key);
      if (!item || INDEXED_SOURCE_FIELDS.some((f) => item[f] !== image[f])) return Promise.resolve(false);
      const next: Record<string, unknown> = { ...item, ...repair.set };
      for (const name of repair.remove) delete next[name];
      write(key, next);
      return Promise.resolve(true);
    },
  };
  return { table, stream, write, log };
}
