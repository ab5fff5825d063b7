import { utcDate } from '../kernel/dates.js';
import { IndexEntryReader } from '../kernel/index-entry.js';
import { matches, queryWindow } from './listing.js';
import { toApiRecord, type EmptyLeg } from '../kernel/model.js';
import { parseListQuery } from './query.js';
import { BUCKET_ATTR } from '../kernel/leg-item.js';

/** The unfiltered listing's query: defaults, no filter (what `GET /open/v1/empty-legs` lists). */
const UNFILTERED = parseListQuery(undefined);

/**
 * The API record of a stored item if the unfiltered listing lists it at `now`, else undefined. The
 * listing's own rules, applied to the one item: in the listing index (listed, not blocked: the
 * loader writes the index attributes only then), and matching the unfiltered query's window at
 * `now` (not expired: endDate has not passed in the departure's zone, `isExpired`; within the
 * horizon), read from the same index attributes the listing reads.
 */
export function listedRecord(item: Readonly<Record<string, unknown>>, now: Date): EmptyLeg | undefined {
  if (item.listed === false || item.blocked === true || typeof item[BUCKET_ATTR] !== 'string') return undefined;
  const entry = new IndexEntryReader().read(item);
  if (!entry) return undefined;
  const window = queryWindow(UNFILTERED, utcDate(now));
  if (window === null || !matches(entry, UNFILTERED, window, now.getTime())) return undefined;
  return toApiRecord(item);
}
