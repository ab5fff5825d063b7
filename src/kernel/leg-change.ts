import { isCalendarDate } from './dates.js';
import { BUCKET_ATTR, EXPIRY_DAY_ATTR, EXPIRY_INSTANT_ATTR, expiryInstantKey, FILTER_ATTR, listingAttributes, SORT_ATTR, TTL_ATTR } from './leg-item.js';
import { toApiRecord } from './model.js';
import { retirementDay } from './retirement.js';
import { sourceOf } from './source.js';
import { INSTANT_ATTRIBUTES, instantOf, writtenInstants, type LegInstants } from './leg/instants.js';

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

/**
 * The index entry an item should have, derived from its fields as they are now, as the loader derives
 * it: undefined when it is not listed, blocked, retired (`ttl` set) or its dates are no flyable span.
 */
export function derivedIndexKeyOf(item: Readonly<Record<string, unknown>> | undefined): IndexKey | undefined {
  if (item === undefined || item.listed === false || item.blocked === true || item.sold === true || item[TTL_ATTR] !== undefined) return undefined;
  const leg = toApiRecord(item);
  if (!isCalendarDate(leg.startDate) || !isCalendarDate(leg.endDate) || leg.endDate < leg.startDate) return undefined;
  const seatNum = leg.seatNum !== null && Number.isInteger(leg.seatNum) && leg.seatNum >= 0 ? leg.seatNum : null;
  const zone = typeof item.depTimezone === 'string' ? item.depTimezone : 'UTC';
  const confirmedAt = instantOf(item.confirmedAt);
  const depTimeFrom = typeof item.depTimeFrom === 'string' ? item.depTimeFrom : undefined;
  const depTimeTo = typeof item.depTimeTo === 'string' ? item.depTimeTo : undefined;
  const a = listingAttributes({ ...leg, seatNum, source: sourceOf(item), confirmedAt, depTimeFrom, depTimeTo }, zone);
  return { lb: a[BUCKET_ATTR]!, ls: a[SORT_ATTR]!, lf: a[FILTER_ATTR]! };
}

/** The writes that bring an item's derived attributes in line with its fields: what to set and what to remove. */
export interface IndexRepair {
  set: Record<string, string | number>;
  remove: string[];
}

/**
 * What a leg's item needs so that its listing index attributes and its retirement day (`xd`) are
 * the ones its fields give (docs/storage.md, "Hand edits"); undefined when they are already.
 */
export function indexRepairOf(
  item: Readonly<Record<string, unknown>>,
  derived = derivedIndexKeyOf(item),
  instants: LegInstants = {},
): IndexRepair | undefined {
  const set: Record<string, string | number> = {};
  const remove: string[] = [];
  for (const name of INSTANT_ATTRIBUTES) {
    const value = instants[name];
    if (value !== undefined && item[name] !== value) set[name] = value;
  }
  const attrs: [string, string | undefined][] = [
    [BUCKET_ATTR, derived?.lb],
    [SORT_ATTR, derived?.ls],
    [FILTER_ATTR, derived?.lf],
    [EXPIRY_INSTANT_ATTR, derived === undefined ? undefined : expiryInstantKey(derived.ls, derived.lf)],
  ];
  // A retired leg keeps no retirement day; any other with a readable endDate has the one it gives.
  const endDate = item.endDate;
  if (item[TTL_ATTR] === undefined && typeof endDate === 'string' && isCalendarDate(endDate)) attrs.push([EXPIRY_DAY_ATTR, retirementDay(endDate)]);
  for (const [name, value] of attrs) {
    if (value === undefined) {
      if (item[name] !== undefined) remove.push(name);
    } else if (item[name] !== value) set[name] = value;
  }
  return remove.length === 0 && Object.keys(set).length === 0 ? undefined : { set, remove };
}

/**
 * A leg's item after a write the change consumer sees, with the instants that write should have set
 * (src/kernel/leg/instants.ts, `writtenInstants`) and those instants; a retired leg's as it is.
 */
export function withWrittenInstants(
  before: Readonly<Record<string, unknown>> | undefined,
  after: Readonly<Record<string, unknown>>,
  now: number,
): { image: Readonly<Record<string, unknown>>; instants: LegInstants } {
  if (after[TTL_ATTR] !== undefined) return { image: after, instants: {} };
  const instants = writtenInstants(before, after, now);
  const image: Record<string, unknown> = { ...after };
  for (const name of INSTANT_ATTRIBUTES) if (instants[name] !== undefined) image[name] = instants[name];
  return { image, instants };
}
