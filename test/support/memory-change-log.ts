import { listedRecord } from '../../src/kernel/listed.js';
import { SORT_ATTR } from '../../src/kernel/leg-item.js';
import type { EmptyLeg } from '../../src/kernel/model.js';
import type { LegState, LogGroup } from '../../src/changes/log.js';
import type { ChangeLogStore, StoredEntry } from '../../src/changes/store.js';

/**
 * The change log store in memory, for unit and property tests: the same contract as
 * src/changes/store.ts (numbered entries without gaps, states, head, the listed legs of a table
 * held by the test), without DynamoDB. `legs()` is the table the initial listing reads, in the order of its `ls`.
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
      for (const [id, { next }] of group.states) stateOf.set(id, next);
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
    listed(afterKey, limit, now) {
      // The index's order: the legs' `ls`, as the listedLegs index holds only items that have one.
      const indexed = [...table().values()].flatMap((item) => (typeof item[SORT_ATTR] === 'string' ? [[item[SORT_ATTR], item] as const] : []));
      indexed.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
      const legs: EmptyLeg[] = [];
      for (const [key, item] of indexed) {
        if (afterKey !== undefined && key <= afterKey) continue;
        const leg = listedRecord(item, new Date(now));
        if (!leg) continue;
        legs.push(leg);
        if (legs.length === limit) return Promise.resolve({ legs, next: key });
      }
      return Promise.resolve({ legs, next: undefined });
    },
  };
}
