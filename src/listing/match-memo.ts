import { LRUCache } from 'lru-cache';
import { LIST_QUERY_FIELDS, type ListQuery } from './query.js';
import type { IndexEntry } from '../kernel/index-entry.js';

/**
 * A per-container memo of one query's ordered matches (month and long buckets), used only while its
 * bucket reads are the very arrays the cache still returns and until the first of its legs expires,
 * so it adds no staleness (docs/performance.md, "The design in a paragraph").
 */
export interface Matches {
  months: IndexEntry[];
  long: IndexEntry[];
}

/**
 * The fields of a query that do not change which legs match: where the page lies in them. The memo
 * holds all the matches, so the pages of one query share an entry.
 */
export const PAGING_FIELDS = ['page', 'size'] as const satisfies readonly (keyof ListQuery)[];
const PAGING: ReadonlySet<string> = new Set(PAGING_FIELDS);

/** Every other field of the query, as the schema lists them: a new filter is in the key by default. */
const MATCHING_FIELDS = LIST_QUERY_FIELDS.filter((field) => !PAGING.has(field));

/**
 * The memo key of a parsed query on the UTC day `todayUtc` (the date window moves with it): that
 * day and the value of every field that can change the matches.
 */
export function matchesKey(query: ListQuery, todayUtc: string): string {
  return JSON.stringify([todayUtc, ...MATCHING_FIELDS.map((field) => query[field] ?? null)]);
}

interface Memo extends Matches {
  sources: readonly (readonly IndexEntry[])[];
  validUntil: number;
}

export const DEFAULT_MEMO_ENTRIES = 256;

export class MatchMemo {
  /** Least recently used out first, beyond `maxEntries`. */
  private readonly entries: LRUCache<string, Memo>;

  constructor(maxEntries = DEFAULT_MEMO_ENTRIES) {
    this.entries = new LRUCache<string, Memo>({ max: maxEntries });
  }

  get(key: string, sources: readonly (readonly IndexEntry[])[], nowMs: number): Matches | undefined {
    const memo = this.entries.get(key);
    if (!memo) return undefined;
    const same = memo.sources.length === sources.length && memo.sources.every((s, i) => s === sources[i]);
    if (!same || nowMs >= memo.validUntil) {
      this.entries.delete(key);
      return undefined;
    }
    return { months: memo.months, long: memo.long };
  }

  /** `until`: when a match stops matching other than by expiry (`maxAgeHours`); none: only by expiry. */
  set(key: string, sources: readonly (readonly IndexEntry[])[], matches: Matches, until?: (entry: IndexEntry) => number): void {
    let validUntil = Infinity;
    for (const list of [matches.months, matches.long]) {
      for (const e of list) validUntil = Math.min(validUntil, e.expiresAt, until?.(e) ?? Infinity);
    }
    this.entries.set(key, { ...matches, sources, validUntil });
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
