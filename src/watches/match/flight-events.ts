import { fromEpochDay, utcEpochDay } from '../../kernel/dates.js';
import type { IndexEntry } from '../../kernel/index-entry.js';
import { toApiRecord, type EmptyLeg } from '../../kernel/model.js';
import { entryFlightKey, flightRecord, flightsOf, offerFactsOf, type Flight } from '../../flights/index.js';
import { bucketReads, type LegsRepository } from '../../listing/index.js';
import { withConvertedPrice, type RateSet } from '../../rates/index.js';
import type { Registry } from '../../sources/index.js';
import type { ListingTransition } from '../../changes/index.js';
import { entryOfLeg, type MatchableWatch, type WatchEvent, type WatchEventType } from '../matching.js';

/**
 * Watches of `group: "flight"` (docs/watches.md, "Flights"): a leg's event becomes its flight's. The
 * other offers of the changed leg's flight are read from the listing index's buckets of the leg's
 * dates (the listing's own bounded read, once per flight key and batch) and taken as they stood at
 * the change: a leg changed later in the same batch as before its change, one changed earlier as
 * after it. A flight watch's event then says: `listed` when no other offer of the flight matches,
 * `updated` when one does (a second offer arriving, one of several leaving), `withdrawn` when the
 * last matching offer leaves (with its reason); its `leg` is the flight's record as the grouped
 * listing gives it.
 */
export interface FlightReads {
  repository: Pick<LegsRepository, 'queryBucket' | 'getLegs'>;
  /** The sources registry, which ranks offers (kind, verification). */
  registry?: () => Promise<Registry>;
}

/** A flight watch's event: its type, and the leg its body carries (null for withdrawn). */
export interface FlightOutcome {
  type: WatchEventType;
  leg: EmptyLeg | null;
}

interface Offer {
  entry: IndexEntry;
  record: EmptyLeg;
}

/** What the batch read for flight watches: per transition, the other offers of its leg's flight key. */
export interface FlightBatch {
  decide(event: WatchEvent<MatchableWatch & { group?: 'flight' | undefined }>, at: number, nowMs: number, rates: RateSet | undefined): FlightOutcome;
}

function keyOfLeg(t: ListingTransition): { key: string; leg: EmptyLeg } | undefined {
  const leg = t.after ?? t.before;
  if (leg === null) return undefined;
  const entry = entryOfLeg(leg, t.after === null ? t.beforeFacts : t.afterFacts);
  const key = entry === undefined ? '' : entryFlightKey(entry);
  return key === '' ? undefined : { key, leg };
}

/** The batch's reads for flight watches (none when no watch groups by flight). */
export async function readFlightBatch(reads: FlightReads | undefined, transitions: readonly ListingTransition[], nowMs: number): Promise<FlightBatch> {
  const todayUtc = fromEpochDay(utcEpochDay(nowMs));
  const bucketCache = new Map<string, Promise<IndexEntry[]>>();
  const keyed = transitions.map(keyOfLeg);
  const byKey = new Map<string, Map<string, IndexEntry>>();
  for (const k of keyed) {
    if (k === undefined || reads === undefined) continue;
    let found = byKey.get(k.key);
    if (found === undefined) byKey.set(k.key, (found = new Map<string, IndexEntry>()));
    let planned: ReturnType<typeof bucketReads> = [];
    try {
      planned = bucketReads({ from: k.leg.startDate, to: k.leg.endDate }, todayUtc);
    } catch {
      planned = [];
    }
    for (const read of planned) {
      const cacheKey = `${read.bucket}|${read.from ?? ''}|${read.to ?? ''}`;
      let got = bucketCache.get(cacheKey);
      if (got === undefined) bucketCache.set(cacheKey, (got = reads.repository.queryBucket(read.bucket, { from: read.from, to: read.to })));
      for (const entry of await got) if (entryFlightKey(entry) === k.key) found.set(entry.id, entry);
    }
  }
  const indexIds = new Set<string>();
  for (const found of byKey.values()) for (const id of found.keys()) indexIds.add(id);
  const changed = new Set(transitions.map((t) => t.id));
  const wanted = [...indexIds].filter((id) => !changed.has(id));
  const records = new Map<string, EmptyLeg>();
  for (let i = 0; i < wanted.length; i += 100) {
    for (const item of await reads!.repository.getLegs(wanted.slice(i, i + 100))) {
      const record = toApiRecord(item);
      records.set(record.id, record);
    }
  }
  const registry = await reads?.registry?.();
  const cache = new Map<number, Offer[]>();

  /** The other offers of transition `at`'s flight key as they stood at its change. */
  const othersAt = (at: number): Offer[] => {
    const known = cache.get(at);
    if (known !== undefined) return known;
    const k = keyed[at];
    const out: Offer[] = [];
    if (k !== undefined) {
      const self = transitions[at]!.id;
      const ids = new Set(byKey.get(k.key)?.keys() ?? []);
      transitions.forEach((t, j) => {
        if (keyed[j]?.key === k.key) ids.add(t.id);
      });
      ids.delete(self);
      for (const id of ids) {
        const state = stateAt(id, at);
        if (state === undefined) {
          const entry = byKey.get(k.key)?.get(id);
          const record = records.get(id);
          if (entry !== undefined && record !== undefined) out.push({ entry, record });
        } else if (state.leg !== null) {
          const entry = entryOfLeg(state.leg, state.facts);
          if (entry !== undefined && entryFlightKey(entry) === k.key) out.push({ entry, record: state.leg });
        }
      }
    }
    cache.set(at, out);
    return out;
  };

  /** A leg changed in the batch as it stood at transition `at`: after its last change before, else before its first after; undefined: not changed in the batch. */
  const stateAt = (id: string, at: number): { leg: EmptyLeg | null; facts: ListingTransition['afterFacts'] } | undefined => {
    for (let j = at - 1; j >= 0; j--) if (transitions[j]!.id === id) return { leg: transitions[j]!.after, facts: transitions[j]!.afterFacts };
    for (let j = at + 1; j < transitions.length; j++) if (transitions[j]!.id === id) return { leg: transitions[j]!.before, facts: transitions[j]!.beforeFacts };
    return undefined;
  };

  return {
    decide(event, at, nowMs, rates) {
      const t = transitions[at]!;
      const mine = event.type === 'empty_leg.withdrawn' ? t.before : t.after;
      const mineEntry = mine === null ? undefined : entryOfLeg(mine, event.type === 'empty_leg.withdrawn' ? t.beforeFacts : t.afterFacts);
      const plain = { type: event.type, leg: event.type === 'empty_leg.withdrawn' ? null : t.after };
      if (mineEntry === undefined || mine === null) return plain;
      const filters = event.watch.filters;
      const window = filters.compiled.window(fromEpochDay(utcEpochDay(nowMs)));
      const all = othersAt(at);
      const matching = window === null ? [] : all.filter((o) => filters.compiled.matches(o.entry, window, nowMs));
      const factsOf = offerFactsOf(registry, rates);
      const listed = [...all.map((o) => o.entry), mineEntry];
      const flight = flightsOf([mineEntry, ...matching.map((o) => o.entry)], listed, factsOf).find((f) => f.offers.some((e) => e.id === t.id))!;
      const others = flight.offers.filter((e) => e.id !== t.id);
      const recordOf = (id: string): EmptyLeg => (id === t.id ? mine : all.find((o) => o.entry.id === id)!.record);
      const currency = filters.query.currency;
      const recordFor = (f: Flight): EmptyLeg => {
        const best = recordOf(f.offers[0]!.id);
        return flightRecord(currency === undefined ? best : withConvertedPrice(best, currency, rates), f, currency, rates);
      };
      if (event.type === 'empty_leg.withdrawn') {
        if (others.length === 0) return plain;
        const rest = flightsOf(others, all.map((o) => o.entry), factsOf)[0]!;
        return { type: 'empty_leg.updated', leg: recordFor(rest) };
      }
      const type = event.type === 'empty_leg.listed' && others.length > 0 ? 'empty_leg.updated' : event.type;
      return { type, leg: recordFor(flight) };
    },
  };
}
