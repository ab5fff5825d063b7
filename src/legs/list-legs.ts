import { utcDate } from './dates.js';
import { bucketsFor, LocalToday, matches, mergeSorted, paginate, queryWindow } from './listing.js';
import { toApiRecord, type EmptyLeg } from './model.js';
import type { ListQuery } from './query.js';
import type { LegsRepository } from './repository.js';
import { LONG_BUCKET } from './storage.js';

/** The list use case: plan the buckets, read them, filter, merge in order, count, page, fetch the page. */
export interface LegsPage {
  records: EmptyLeg[];
  total: number;
  page: number;
  size: number;
}

export async function listEmptyLegs(
  query: ListQuery,
  deps: { repository: LegsRepository; now: Date },
): Promise<LegsPage> {
  const todayUtc = utcDate(deps.now);
  const window = queryWindow(query, todayUtc);
  if (window === null) return { records: [], total: 0, page: query.page, size: query.size };

  const buckets = bucketsFor(window, todayUtc);
  const today = new LocalToday(deps.now);
  const read = await Promise.all(buckets.map((b) => deps.repository.queryBucket(b)));
  const filtered = read.map((entries) => entries.filter((e) => matches(e, query, window, today)));

  // Month buckets cover disjoint, ascending ranges of startDate: concatenated in month order they
  // are already sorted. Only the long-window bucket needs merging in.
  const longIndex = buckets.indexOf(LONG_BUCKET);
  const months = filtered.filter((_, i) => i !== longIndex).flat();
  const ordered = mergeSorted([months, filtered[longIndex] ?? []]);

  const slice = paginate(ordered, query.page, query.size);
  const items = slice.items.length > 0 ? await deps.repository.getLegs(slice.items.map((e) => e.id)) : [];
  const byId = new Map(items.map((item) => [item.id, item]));
  const records = slice.items.flatMap((entry) => {
    const item = byId.get(entry.id);
    // The index is eventually consistent: skip a leg deleted, blocked or unlisted since.
    if (!item || item.listed === false || item.blocked === true) return [];
    return [toApiRecord(item)];
  });
  return { records, total: slice.total, page: slice.page, size: slice.size };
}
