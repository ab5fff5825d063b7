import { fromEpochDay, utcEpochDay } from '../../kernel/dates.js';
import type { IndexEntry } from '../../kernel/index-entry.js';
import { registrationOf } from '../../kernel/leg/registration.js';
import type { EmptyLeg } from '../../kernel/model.js';
import { compareOffers, entryFlightKey, groupFlights, offerFactsOf, windowOf, type GroupedLeg } from '../../flights/index.js';
import { bucketReads, type LegsRepository } from '../../listing/index.js';
import type { RateSet } from '../../rates/index.js';
import type { Registry } from '../../sources/index.js';
import type { ListingTransition } from '../../changes/index.js';
import { entryOfLeg } from '../matching.js';

/**
 * The listing reads of one batch for flight watches (docs/watches.md, "Flights", "Reads, bounded"):
 * each bucket the batch's changed legs need read once, over the union of their ranges; per flight
 * key, the items of at most MAX_FLIGHT_OFFERS_READ other offers, the best-ranked of those that can
 * be one flight with a change of the batch.
 */
export const MAX_FLIGHT_OFFERS_READ = 20;

/** What a batch's flight reads cost: bucket reads (each followed for its pages), legs asked for, BatchGetItem calls. */
export interface FlightReadCounts {
  bucketQueries: number;
  legsFetched: number;
  getLegsCalls: number;
  /** Offers left out by the cap (MAX_FLIGHT_OFFERS_READ), over all flight keys. */
  offersCapped: number;
}

/** A changed leg's flight key and registration, and the leg (its after, else its before) whose dates plan the reads. */
export interface Keyed {
  key: string;
  registration: string;
  leg: EmptyLeg;
}

export interface OffersRead {
  /** Per flight key, the entries of its other offers not changed in the batch (at most MAX_FLIGHT_OFFERS_READ). */
  byKey: Map<string, Map<string, IndexEntry>>;
  /** Their items, by id, and with `blocks` those of the legs withdrawn in the batch. */
  items: Map<string, Record<string, unknown>>;
  registry: Registry | undefined;
  counts: FlightReadCounts;
}

/** Ids of one `getLegs` call (the repository's page, one BatchGetItem request). */
const GET_LEGS_IDS = 100;

type Range = { from?: string | undefined; to?: string | undefined };

const widen = (a: Range, b: Range): Range => ({
  from: a.from === undefined || b.from === undefined ? undefined : a.from < b.from ? a.from : b.from,
  to: a.to === undefined || b.to === undefined ? undefined : a.to > b.to ? a.to : b.to,
});

const inRange = (startDate: string, r: Range): boolean => (r.from === undefined || startDate >= r.from) && (r.to === undefined || startDate <= r.to);

/** The states of the batch's changed legs by flight key, as grouping members (their ids marked apart from the index's). */
function changedMembers(transitions: readonly ListingTransition[]): Map<string, GroupedLeg[]> {
  const out = new Map<string, GroupedLeg[]>();
  transitions.forEach((t, j) => {
    for (const [side, leg, facts] of [['b', t.before, t.beforeFacts], ['a', t.after, t.afterFacts]] as const) {
      const entry = leg === null ? undefined : entryOfLeg(leg, facts);
      const key = entry === undefined ? '' : entryFlightKey(entry);
      if (key === '') continue;
      const [from, to] = windowOf(entry!);
      (out.get(key) ?? out.set(key, []).get(key)!).push({ id: `\u0000${j}${side}`, key, from, to });
    }
  });
  return out;
}

/** Of a key's unchanged offers, those one flight with some state of a changed leg (`changed`), capped to the best-ranked. */
function keptOffers(key: string, found: Map<string, IndexEntry>, changed: readonly GroupedLeg[], rank: (a: IndexEntry, b: IndexEntry) => number): { entries: IndexEntry[]; capped: number } {
  const members: GroupedLeg[] = [...changed];
  for (const entry of found.values()) {
    const [from, to] = windowOf(entry);
    members.push({ id: entry.id, key, from, to });
  }
  const groups = groupFlights(members);
  const near = [...found.values()].filter((e) => groups.get(e.id)!.some((m) => m.id.startsWith('\u0000')));
  if (near.length <= MAX_FLIGHT_OFFERS_READ) return { entries: near, capped: 0 };
  return { entries: near.sort(rank).slice(0, MAX_FLIGHT_OFFERS_READ), capped: near.length - MAX_FLIGHT_OFFERS_READ };
}

/** The batch's reads: `keyed[i]` is transition i's flight key (undefined: none, nothing read for it); `blocks`: a flight watch asks for `include`. */
export async function readOffers(
  reads: { repository: Pick<LegsRepository, 'queryBucket' | 'getLegs'>; registry?: (() => Promise<Registry>) | undefined },
  keyed: readonly (Keyed | undefined)[],
  transitions: readonly ListingTransition[],
  nowMs: number,
  rates: RateSet | undefined,
  blocks: boolean,
): Promise<OffersRead> {
  const counts: FlightReadCounts = { bucketQueries: 0, legsFetched: 0, getLegsCalls: 0, offersCapped: 0 };
  const todayUtc = fromEpochDay(utcEpochDay(nowMs));
  // Each leg's reads as the listing plans them for its dates; each bucket read once, over their union.
  const planned = keyed.map((k) => {
    if (k === undefined) return [];
    try {
      return bucketReads({ from: k.leg.startDate, to: k.leg.endDate }, todayUtc);
    } catch {
      return [];
    }
  });
  const ranges = new Map<string, Range>();
  for (const read of planned.flat()) ranges.set(read.bucket, ranges.has(read.bucket) ? widen(ranges.get(read.bucket)!, read) : { from: read.from, to: read.to });
  const keys = new Set(keyed.flatMap((k) => (k === undefined ? [] : [k.key])));
  // An entry of another registration is passed over before its key is made.
  const registrations = new Set(keyed.flatMap((k) => (k === undefined ? [] : [k.registration])));
  const buckets = new Map<string, Map<string, IndexEntry[]>>();
  await Promise.all(
    [...ranges].map(async ([bucket, range]) => {
      counts.bucketQueries++;
      const byKey = new Map<string, IndexEntry[]>();
      for (const entry of await reads.repository.queryBucket(bucket, range)) {
        if (!registrations.has(registrationOf(entry))) continue;
        const key = entryFlightKey(entry);
        if (keys.has(key)) (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(entry);
      }
      buckets.set(bucket, byKey);
    }),
  );
  const changed = new Set(transitions.map((t) => t.id));
  const found = new Map<string, Map<string, IndexEntry>>();
  keyed.forEach((k, i) => {
    if (k === undefined) return;
    const mine = found.get(k.key) ?? found.set(k.key, new Map()).get(k.key)!;
    for (const read of planned[i]!) for (const entry of buckets.get(read.bucket)?.get(k.key) ?? []) if (!changed.has(entry.id) && inRange(entry.startDate, read)) mine.set(entry.id, entry);
  });
  const registry = await reads.registry?.();
  const factsOf = offerFactsOf(registry, rates);
  const rank = (a: IndexEntry, b: IndexEntry) => compareOffers(factsOf(a), factsOf(b));
  const byKey = new Map<string, Map<string, IndexEntry>>();
  const states = changedMembers(transitions);
  for (const [key, entries] of found) {
    const { entries: kept, capped } = keptOffers(key, entries, states.get(key) ?? [], rank);
    counts.offersCapped += capped;
    byKey.set(key, new Map(kept.map((e) => [e.id, e])));
  }
  const wanted = [...byKey.values()].flatMap((m) => [...m.keys()]);
  // For `include`, the legs withdrawn in the batch: what their blocks read before it, which a withdrawal's state does not keep.
  if (blocks) for (const id of new Set(transitions.flatMap((t, j) => (keyed[j] !== undefined && t.after === null && t.legFacts === undefined ? [t.id] : [])))) wanted.push(id);
  const items = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < wanted.length; i += GET_LEGS_IDS) {
    const ids = wanted.slice(i, i + GET_LEGS_IDS);
    counts.getLegsCalls++;
    counts.legsFetched += ids.length;
    for (const item of await reads.repository.getLegs(ids)) items.set(String(item.id), item);
  }
  return { byKey, items, registry, counts };
}
