import { fromEpochDay, utcEpochDay } from '../../kernel/dates.js';
import type { IndexEntry } from '../../kernel/index-entry.js';
import { toApiRecord, type EmptyLeg } from '../../kernel/model.js';
import { registrationOf } from '../../kernel/leg/registration.js';
import { factsOfItem, unregisteredSource, withBlocks, type LegFacts, type SourceFacts } from '../../kernel/leg/blocks.js';
import { entryFlightKey, flightRecord, flightsOf, offerFactsOf, type Flight } from '../../flights/index.js';
import type { LegsRepository } from '../../listing/index.js';
import { withConvertedPrice, type RateSet } from '../../rates/index.js';
import type { Registry } from '../../sources/index.js';
import type { ListingTransition } from '../../changes/index.js';
import { legFactsOf } from '../delivery.js';
import { entryOfLeg, type MatchableWatch, type WatchEvent, type WatchEventType } from '../matching.js';
import { readOffers, type FlightReadCounts, type Keyed } from './flight-reads.js';

/**
 * Watches of `group: "flight"` (docs/watches.md, "Flights"): a leg's event becomes its flight's. The
 * other offers of the changed leg's flight are read from the listing index's buckets of the leg's
 * dates (src/watches/match/flight-reads.ts: each bucket once per batch, a capped number of offers per
 * flight key) and taken as they stood at the change: a leg changed later in the same batch as before
 * its change, one changed earlier as after it. A flight watch's event then says: `listed` when no
 * other offer of the flight matches, `updated` when one does (a second offer arriving, one of several
 * leaving), `withdrawn` when the last matching offer leaves (with its reason); its `leg` is the
 * flight's record as the grouped listing gives it, with the blocks of its best offer its `include` asks for.
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
  /** What its blocks read (`include`). */
  facts: () => LegFacts;
}

/** What the batch read for flight watches: per transition, the other offers of its leg's flight key. */
export interface FlightBatch {
  decide(
    event: WatchEvent<MatchableWatch & { group?: 'flight' | undefined }>,
    at: number,
    nowMs: number,
    rates: RateSet | undefined,
    sources?: (id: string) => SourceFacts,
  ): FlightOutcome;
  /** What the batch's reads cost (docs/watches.md, "Reads, bounded"). */
  counts: FlightReadCounts;
}

const NO_READS: FlightReadCounts = { bucketQueries: 0, legsFetched: 0, getLegsCalls: 0, offersCapped: 0 };

function keyOfLeg(t: ListingTransition): Keyed | undefined {
  const leg = t.after ?? t.before;
  if (leg === null) return undefined;
  const entry = entryOfLeg(leg, t.after === null ? t.beforeFacts : t.afterFacts);
  const key = entry === undefined ? '' : entryFlightKey(entry);
  return key === '' ? undefined : { key, registration: registrationOf(entry!), leg };
}

/**
 * What the blocks of a leg read as it stood before `t`, a change later in the batch: its facts after
 * that change (its state's, else for a withdrawal its item's: its time zone, first seen) with its
 * entry's source, confirmed instant and times before it, its updated instant only when that change
 * did not change its record.
 */
function factsBefore(t: ListingTransition, leg: EmptyLeg, item: Record<string, unknown> | undefined): LegFacts {
  const after = t.legFacts ?? (item === undefined ? undefined : factsOfItem(item));
  const shown = t.after ?? (item === undefined ? null : toApiRecord(item));
  const same = shown !== null && JSON.stringify(shown) === JSON.stringify(t.before);
  const facts = factsOfItem({
    ...t.beforeFacts,
    depTimezone: after?.depTimezone,
    firstSeenAt: after?.firstSeenAt,
    updatedAt: same ? after?.updatedAt : undefined,
  });
  return { ...facts, startDate: leg.startDate, endDate: leg.endDate };
}

/** The batch's reads for flight watches (none when no watch groups by flight). */
export async function readFlightBatch(
  reads: FlightReads | undefined,
  transitions: readonly ListingTransition[],
  nowMs: number,
  options: { rates?: RateSet | undefined; blocks?: boolean } = {},
): Promise<FlightBatch> {
  const keyed = transitions.map(keyOfLeg);
  const read = reads === undefined ? undefined : await readOffers(reads, keyed, transitions, nowMs, options.rates, options.blocks === true);
  const byKey = read?.byKey ?? new Map<string, Map<string, IndexEntry>>();
  const items = read?.items ?? new Map<string, Record<string, unknown>>();
  const records = new Map([...items].map(([id, item]) => [id, toApiRecord(item)]));
  const registry = read?.registry;
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
          const item = items.get(id);
          if (entry !== undefined && item !== undefined) out.push({ entry, record: records.get(id)!, facts: () => factsOfItem(item) });
        } else if (state.leg !== null) {
          const { leg, facts } = state;
          const entry = entryOfLeg(leg, state.entryFacts);
          if (entry !== undefined && entryFlightKey(entry) === k.key) out.push({ entry, record: leg, facts });
        }
      }
    }
    cache.set(at, out);
    return out;
  };

  /** A leg changed in the batch as it stood at transition `at`: after its last change before, else before its first after; undefined: not changed in the batch. */
  const stateAt = (id: string, at: number): { leg: EmptyLeg | null; entryFacts: ListingTransition['afterFacts']; facts: () => LegFacts } | undefined => {
    for (let j = at - 1; j >= 0; j--) {
      const t = transitions[j]!;
      if (t.id === id) return { leg: t.after, entryFacts: t.afterFacts, facts: () => legFactsOf(t, t.after!) };
    }
    for (let j = at + 1; j < transitions.length; j++) {
      const t = transitions[j]!;
      if (t.id === id) return { leg: t.before, entryFacts: t.beforeFacts, facts: () => factsBefore(t, t.before!, items.get(id)) };
    }
    return undefined;
  };

  return {
    counts: read?.counts ?? NO_READS,
    decide(event, at, nowMs, rates, sources) {
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
      const offerOf = (id: string): Pick<Offer, 'record' | 'facts'> => (id === t.id ? { record: mine, facts: () => legFactsOf(t, mine) } : all.find((o) => o.entry.id === id)!);
      const currency = filters.query.currency;
      const include = event.watch.include;
      // As the grouped listing's record: the best offer's, `convertedPrice`, its blocks, then `offerCount` and `offers`.
      const recordFor = (f: Flight): EmptyLeg => {
        const best = offerOf(f.offers[0]!.id);
        const priced = currency === undefined ? best.record : withConvertedPrice(best.record, currency, rates);
        const blocked = include === undefined || include.size === 0 ? priced : withBlocks(priced, include, best.facts(), sources ?? unregisteredSource);
        return flightRecord(blocked, f, currency, rates);
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
