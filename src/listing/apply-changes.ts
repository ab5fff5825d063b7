import { IndexEntryReader, type IndexEntry } from '../kernel/index-entry.js';
import type { LegChange } from '../kernel/leg-change.js';
import type { StartDateRange } from './repository.js';

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

