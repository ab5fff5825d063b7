import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { utcDate } from '../../kernel/dates.js';
import { IndexEntryReader } from '../../kernel/index-entry.js';
import type { IndexKey } from '../../kernel/leg-change.js';
import { SORT_ATTR } from '../../kernel/leg-item.js';
import { inWindow, listedRecord, unfilteredWindow } from '../../kernel/listed.js';
import { toApiRecord, type EmptyLeg } from '../../kernel/model.js';
import { unpackRecord } from '../../kernel/record-pack.js';
import { LISTED_LEGS_INDEX } from '../../tables.js';
import { sourceOf } from '../../kernel/source.js';
import type { StaleSources } from '../transition.js';
import { factsOfItem, factsOfStored, type LegFacts } from '../../kernel/leg/blocks.js';

/**
 * The first read's listing (docs/api.md, "Change feed"; docs/storage.md, "The change log's items"):
 * the listedLegs index holds the legs' items that have their index attributes and the log's state
 * of every leg the log lists (its `ls`, and `x`, its expiry instant), so a leg whose item a hand-made
 * put left without them is listed from the log's record until the consumer writes them back. For
 * each `ls`, the leg's item decides when it is in the index.
 */
export const STATE_EXPIRY_ATTR = 'x';

/** Scan requests of the index one first-read page makes at most; then its cursor goes on after the last leg settled. */
export const LISTING_SCANS_PER_PAGE = 3;

/** Scan requests a first-read page makes before it gives up: a page of the index that settles no leg is a fault. */
export const LISTING_SCANS_LIMIT = 4 * LISTING_SCANS_PER_PAGE;

/** Items a Scan of the index evaluates at least per request. */
const SCAN_PAGE_MIN = 100;

/** The attributes that put a listed leg's state in the listedLegs index: its `ls` and its expiry instant. */
export function stateListing(index: IndexKey | undefined): Record<string, string | number> {
  const entry = index === undefined ? undefined : new IndexEntryReader().read({ [SORT_ATTR]: index.ls, lf: index.lf });
  return entry === undefined || !Number.isFinite(entry.expiresAt) ? {} : { [SORT_ATTR]: index!.ls, [STATE_EXPIRY_ATTR]: entry.expiresAt };
}

/** The leg a state lists at `now` (its record, in the unfiltered window and not expired), else undefined. */
export function listedState(state: Readonly<Record<string, unknown>>, now: Date): EmptyLeg | undefined {
  const expiresAt = state[STATE_EXPIRY_ATTR];
  const packed = typeof expiresAt === 'number' ? unpackRecord(state.r) : null;
  if (packed === null) return undefined;
  const leg = toApiRecord(packed);
  return inWindow({ startDate: leg.startDate, endDate: leg.endDate, expiresAt: expiresAt as number }, unfilteredWindow(utcDate(now)), now.getTime()) ? leg : undefined;
}

/** The index's items of one `ls`: the leg's item, its state in the log, or both. */
export interface ListingGroup {
  ls: string;
  item?: Readonly<Record<string, unknown>>;
  state?: Readonly<Record<string, unknown>>;
}

/** The leg a group lists at `now`: its item's record when the item is in the index, else its state's. */
export function legOfGroup(group: ListingGroup, now: Date, stale?: StaleSources): EmptyLeg | undefined {
  if (group.item !== undefined) return stale?.(sourceOf(group.item)) === true ? undefined : listedRecord(group.item, now);
  return group.state === undefined ? undefined : listedState(group.state, now);
}

/** The index key a Scan of listedLegs resumes after: the leg's `ls` (`startDate#id`) and its id. */
const listingStartKey = (afterKey: string) => ({ [SORT_ATTR]: afterKey, id: afterKey.slice(afterKey.indexOf('#') + 1) });

/**
 * Up to `limit` legs listed at `now` after the position `afterKey` (an `ls`, whose group the last
 * page gave), in at most LISTING_SCANS_PER_PAGE Scan requests; `next`: the `ls` of the last group
 * settled, undefined at the end of the index.
 */
export async function scanListing(
  client: DynamoDBDocumentClient,
  tableName: string,
  statePrefix: string,
  afterKey: string | undefined,
  limit: number,
  now: number,
  stale?: StaleSources,
): Promise<{ legs: EmptyLeg[]; next: string | undefined; facts: (LegFacts | undefined)[] }> {
  const at = new Date(now);
  const legs: EmptyLeg[] = [];
  const facts: (LegFacts | undefined)[] = [];
  // What `include` reads of a group's leg: its item's, else what its state kept.
  const push = (g: ListingGroup, leg: EmptyLeg): number => {
    facts.push(g.item !== undefined ? factsOfItem(g.item) : factsOfStored(g.state?.p));
    return legs.push(leg);
  };
  let group: ListingGroup | undefined;
  let settled = afterKey;
  let start: Record<string, unknown> | undefined = afterKey === undefined ? undefined : listingStartKey(afterKey);
  for (let scans = 1; ; scans++) {
    const out = await client.send(
      new ScanCommand({
        TableName: tableName,
        IndexName: LISTED_LEGS_INDEX.indexName,
        // Items evaluated: a leg may come with its state. A page may hold more legs than wanted: it ends at the last group given.
        Limit: Math.max(SCAN_PAGE_MIN, 2 * (limit - legs.length) + 2),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of out.Items ?? []) {
      const ls = String(item[SORT_ATTR]);
      if (ls === afterKey) continue;
      if (group !== undefined && group.ls !== ls) {
        const done = group;
        const leg = legOfGroup(done, at, stale);
        settled = done.ls;
        group = undefined;
        if (leg !== undefined && push(done, leg) === limit) return { legs, next: settled, facts };
      }
      group ??= { ls };
      if (String(item.id).startsWith(statePrefix)) group.state = item;
      else group.item = item;
    }
    start = out.LastEvaluatedKey;
    if (start === undefined) {
      const leg = group === undefined ? undefined : legOfGroup(group, at, stale);
      if (leg !== undefined) push(group!, leg);
      return { legs, next: undefined, facts };
    }
    // The cap: the next page goes on after the last group settled (the open one is read again).
    if (scans >= LISTING_SCANS_PER_PAGE && settled !== afterKey) return { legs, next: settled, facts };
    if (scans >= LISTING_SCANS_LIMIT) throw new Error(`listedLegs: ${scans} Scan requests settled no leg after ${afterKey ?? 'the start'}`);
  }
}
