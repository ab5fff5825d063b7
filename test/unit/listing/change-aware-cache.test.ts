import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { withChangeAwareCache } from '../../../src/listing/change-aware-cache.js';
import { applyChanges } from '../../../src/listing/apply-changes.js';
import { type ChangeHead, type ChangeSet, type ChangeSource, type LegChange } from '../../../src/kernel/leg-change.js';
import type { LegsRepository } from '../../../src/listing/repository.js';
import { parseIndexItem, type IndexEntry } from '../../../src/kernel/index-entry.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { storedLeg } from '../../support/legs.js';

const BUCKET = '2026-12';
const day = (n: number) => `2026-12-${String(n).padStart(2, '0')}`;

function stored(id: string, startDay: number, blocked = false) {
  return toStorageItem(storedLeg({ id, startDate: day(startDay), endDate: day(Math.min(startDay + 1, 31)), blocked }));
}
const entryOf = (item: Record<string, unknown>): IndexEntry => parseIndexItem(item)!;
const changeOf = (item: Record<string, unknown>): LegChange =>
  typeof item.lb === 'string' ? { id: String(item.id), index: { lb: item.lb, ls: String(item.ls), lf: String(item.lf) } } : { id: String(item.id) };
const byIndexOrder = (a: IndexEntry, b: IndexEntry) => (a.startDate === b.startDate ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.startDate < b.startDate ? -1 : 1);

describe('applyChanges', () => {
  it('equals reading the bucket again (reference: the changed table, filtered and sorted)', () => {
    const leg = fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), start: fc.integer({ min: 1, max: 30 }), blocked: fc.boolean(), other: fc.boolean() });
    fc.assert(
      fc.property(fc.array(leg, { maxLength: 7 }), fc.array(leg, { maxLength: 7 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 30 }), (before, changed, x, y) => {
        const range = { from: day(Math.min(x, y)), to: day(Math.max(x, y)) };
        const item = (l: { id: string; start: number; blocked: boolean; other: boolean }) => {
          const s = stored(l.id, l.start, l.blocked);
          // `other`: the leg lives in another bucket (moved away, or never here).
          if (l.other && typeof s.lb === 'string') s.lb = '2027-01';
          return s;
        };
        const table = new Map<string, Record<string, unknown>>();
        for (const l of before) table.set(l.id, item(l));
        const read = (t: Map<string, Record<string, unknown>>) =>
          [...t.values()]
            .filter((i) => i.lb === BUCKET && String(i.ls).slice(0, 10) >= range.from && String(i.ls).slice(0, 10) <= range.to)
            .map(entryOf)
            .sort(byIndexOrder);
        const cached = read(table);
        const changes = new Map<string, LegChange>();
        for (const l of changed) {
          const i = item(l);
          table.set(l.id, i);
          changes.set(l.id, changeOf(i));
        }
        const out = applyChanges(cached, BUCKET, range, changes);
        expect(out).toEqual(read(table));
        if (changes.size === 0) expect(out).toBe(cached);
      }),
      { numRuns: 500 },
    );
  });
});

/** A change log in memory: `write` appends changes; the head keeps the last `inHead`. */
function memoryJournal(inHead = 2) {
  const sets: ChangeSet[] = [];
  const calls = { head: 0, slots: 0 };
  const source: ChangeSource = {
    head(): Promise<ChangeHead> {
      calls.head += 1;
      return Promise.resolve({ version: sets.length, recent: sets.slice(-inHead) });
    },
    changeSets(from, to) {
      calls.slots += 1;
      return Promise.resolve(to - from + 1 > 100 ? undefined : sets.slice(from - 1, to));
    },
  };
  return { source, calls, write: (changes: LegChange[]) => sets.push({ v: sets.length + 1, changes }) };
}

function memoryRepo(items: Map<string, Record<string, unknown>>) {
  const calls = { query: 0, get: 0 };
  const repo: LegsRepository = {
    queryBucket(bucket) {
      calls.query += 1;
      return Promise.resolve([...items.values()].filter((i) => i.lb === bucket).map(entryOf).sort(byIndexOrder));
    },
    getLegs(ids) {
      calls.get += 1;
      return Promise.resolve(ids.flatMap((id) => (items.has(id) ? [items.get(id)!] : [])));
    },
  };
  return { repo, calls };
}

describe('withChangeAwareCache', () => {
  function setup(inHead = 2) {
    let now = 1_000_000;
    const items = new Map([['a', stored('a', 3)], ['b', stored('b', 5)]]);
    const journal = memoryJournal(inHead);
    const table = memoryRepo(items);
    const cache = withChangeAwareCache(table.repo, journal.source, { ceilingMs: 60_000, clock: () => now });
    const write = (...changed: Record<string, unknown>[]) => {
      for (const i of changed) items.set(String(i.id), i);
      journal.write(changed.map(changeOf));
    };
    return { cache, journal, table, write, tick: (ms: number) => (now += ms), ids: async () => (await cache.queryBucket(BUCKET)).map((e) => e.id) };
  }

  it('applies a change set at the next check, without reading the bucket again', async () => {
    const s = setup();
    expect(await s.ids()).toEqual(['a', 'b']);
    s.write(stored('c', 4), stored('a', 3, true));
    expect(await s.ids()).toEqual(['a', 'b']); // checked less than a second ago
    s.tick(1_000);
    expect(await s.ids()).toEqual(['c', 'b']);
    expect(s.table.calls.query).toBe(1);
    expect(s.journal.calls).toEqual({ head: 2, slots: 0 });
  });

  it('drops a changed leg\'s cached record', async () => {
    const s = setup();
    await s.cache.getLegs(['a', 'b']);
    s.write({ ...stored('a', 3), price: 1 });
    s.tick(1_000);
    const [a] = await s.cache.getLegs(['a']);
    expect(a!.price).toBe(1);
    expect(s.table.calls.get).toBe(2);
  });

  it('fetches change sets that left the head from the slots', async () => {
    const s = setup(1);
    await s.ids();
    s.write(stored('c', 4));
    s.write(stored('d', 6));
    s.tick(1_000);
    expect(await s.ids()).toEqual(['a', 'c', 'b', 'd']);
    expect(s.journal.calls.slots).toBe(1);
    expect(s.table.calls.query).toBe(1);
  });

  it('re-reads everything when the log cannot be followed (at most once per reload interval), and at the ceiling', async () => {
    const s = setup(1);
    await s.ids();
    for (let i = 0; i < 101; i++) s.write(stored(`x${i}`, 20));
    s.tick(1_000);
    // Filled a second ago: it keeps what it has rather than read everything again.
    expect((await s.ids()).length).toBe(2);
    expect(s.cache.stats.fullReloads).toBe(0);
    s.tick(9_000);
    expect((await s.ids()).length).toBe(103);
    expect(s.table.calls.query).toBe(2);
    expect(s.cache.stats.fullReloads).toBe(1);
    s.tick(59_000);
    await s.ids();
    expect(s.table.calls.query).toBe(2);
    s.tick(1_000);
    await s.ids();
    expect(s.table.calls.query).toBe(3);
  });

  it('a failed head read is retried at the next request and fails the request', async () => {
    const s = setup();
    let fail = true;
    const head = s.journal.source.head.bind(s.journal.source);
    s.journal.source.head = () => (fail ? Promise.reject(new Error('down')) : head());
    await expect(s.ids()).rejects.toThrow('down');
    fail = false;
    expect(await s.ids()).toEqual(['a', 'b']);
  });
});
