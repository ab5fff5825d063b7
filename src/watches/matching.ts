import { fromEpochDay, isCalendarDate, monthIndexOf, monthName, toEpochDay, utcEpochDay } from '../kernel/dates.js';
import { HORIZON_DAYS, type DateWindow } from '../kernel/listed.js';
import { categoryBit, categoryNamed } from '../kernel/aircraft-category.js';
import type { EmptyLeg } from '../kernel/model.js';
import { filterText, fold } from '../kernel/leg-item.js';
import { IndexEntryReader, type IndexEntry } from '../kernel/index-entry.js';
import type { ParsedFilters } from './filters.js';
import type { Include } from '../kernel/leg/blocks.js';
import type { EntryFacts, ListingTransition } from '../changes/index.js';

/**
 * Which watches a listing transition concerns (docs/watches.md, "Matching"): the listing's own
 * compiled query decides, on an index entry made from the leg as listed; watches are indexed by their
 * most selective filter, so a leg is tested against the few that can match it.
 */
export type WatchEventType = 'empty_leg.listed' | 'empty_leg.updated' | 'empty_leg.withdrawn';

export interface MatchableWatch {
  id: string;
  clientId: string;
  filters: ParsedFilters;
  /** The blocks its deliveries' legs carry (absent: none). */
  include?: Include;
  /** `flight`: events are its flights' (src/watches/match/flight-events.ts); absent: each leg's. */
  group?: 'flight' | undefined;
}

export interface WatchEvent<W extends MatchableWatch = MatchableWatch> {
  watch: W;
  type: WatchEventType;
  transition: ListingTransition;
}

const reader = new IndexEntryReader();

/**
 * The listing's index entry of a leg it lists (the leg as the API shows it, with its source and confirmed instant). Expiry is the change
 * log's to say (a leg that expires is withdrawn), so the entry never expires; undefined for a leg
 * whose dates are not dates.
 */
export function entryOfLeg(leg: EmptyLeg, facts?: EntryFacts): IndexEntry | undefined {
  if (!isCalendarDate(leg.startDate) || !isCalendarDate(leg.endDate) || leg.endDate < leg.startDate) return undefined;
  const text = filterText(facts === undefined ? leg : { ...leg, ...facts }, '0');
  const entry = reader.fromFilter(leg.id, leg.startDate, text);
  return entry === undefined ? undefined : { ...entry, expiresAt: Number.POSITIVE_INFINITY };
}

type Key = string;
const ANY: Key = '*';

/** The index keys of a watch: one class of keys, its most selective filter's. */
function keysOf(f: ParsedFilters): Key[] {
  const q = f.query;
  if (q.depAirportCode !== undefined) return [`d:${q.depAirportCode.kind}:${q.depAirportCode.code}`];
  if (q.arrAirportCode !== undefined) return [`a:${q.arrAirportCode.kind}:${q.arrAirportCode.code}`];
  const near = f.compiled.near;
  if (near.dep !== undefined) return [...[...near.dep.icao].map((c) => `dn:icao:${c}`), ...[...near.dep.iata].map((c) => `dn:iata:${c}`)];
  if (near.arr !== undefined) return [...[...near.arr.icao].map((c) => `an:icao:${c}`), ...[...near.arr.iata].map((c) => `an:iata:${c}`)];
  if (q.depDate !== undefined) {
    const day = toEpochDay(q.depDate);
    const keys: Key[] = [];
    for (let m = monthIndexOf(day - q.offsetDays); m <= monthIndexOf(day + q.offsetDays); m++) keys.push(`m:${monthName(m)}`);
    return keys;
  }
  if (q.aircraftType !== undefined) {
    const keys: Key[] = [];
    for (let bit = 1; bit <= q.aircraftType; bit <<= 1) if ((q.aircraftType & bit) !== 0) keys.push(`c:${bit}`);
    return keys;
  }
  return [ANY];
}

/** The side's placing code (ICAO, else IATA), as the nearby filter places a leg. */
function placeKey(prefix: string, icao: string | null, iata: string | null): Key | undefined {
  if (icao !== null && icao !== '') return `${prefix}:icao:${fold(icao)}`;
  if (iata !== null && iata !== '') return `${prefix}:iata:${fold(iata)}`;
  return undefined;
}

/** A watch in the index, with the marks of one lookup and its date window of the day. */
interface Slot<W> {
  readonly watch: W;
  seen: number;
  before: number;
  windowDay: number;
  window: DateWindow | null;
}

export class WatchIndex<W extends MatchableWatch = MatchableWatch> {
  private readonly byKey = new Map<Key, Slot<W>[]>();
  private lookup = 0;
  private transitionMark = 0;

  constructor(readonly watches: readonly W[]) {
    for (const watch of watches) {
      const slot: Slot<W> = { watch, seen: 0, before: 0, windowDay: Number.NaN, window: null };
      for (const key of new Set(keysOf(watch.filters))) {
        let list = this.byKey.get(key);
        if (list === undefined) this.byKey.set(key, (list = []));
        list.push(slot);
      }
    }
  }

  get size(): number {
    return this.watches.length;
  }

  /** The watches that can list `leg` (a superset of those that do). */
  candidates(leg: EmptyLeg, todayEpochDay: number, out: Set<W>): void {
    for (const slot of this.candidateSlots(leg, todayEpochDay)) out.add(slot.watch);
  }

  private candidateSlots(leg: EmptyLeg, todayEpochDay: number): Slot<W>[] {
    const mark = ++this.lookup;
    const out: Slot<W>[] = [];
    const add = (key: Key | undefined) => {
      if (key === undefined) return;
      const list = this.byKey.get(key);
      if (list === undefined) return;
      for (const slot of list) {
        if (slot.seen === mark) continue;
        slot.seen = mark;
        out.push(slot);
      }
    };
    add(ANY);
    if (leg.depAirportIcao) add(`d:icao:${fold(leg.depAirportIcao)}`);
    if (leg.depAirportIata) add(`d:iata:${fold(leg.depAirportIata)}`);
    if (leg.arrAirportIcao) add(`a:icao:${fold(leg.arrAirportIcao)}`);
    if (leg.arrAirportIata) add(`a:iata:${fold(leg.arrAirportIata)}`);
    add(placeKey('dn', leg.depAirportIcao, leg.depAirportIata));
    add(placeKey('an', leg.arrAirportIcao, leg.arrAirportIata));
    const category = leg.aircraftType === null ? undefined : categoryNamed(leg.aircraftType);
    if (category !== undefined) add(`c:${categoryBit(category)}`);
    if (isCalendarDate(leg.startDate) && isCalendarDate(leg.endDate)) {
      // Only months a listed window can reach: from yesterday (the earliest zone) to the horizon.
      const first = monthIndexOf(Math.max(toEpochDay(leg.startDate), todayEpochDay - 1));
      const last = monthIndexOf(Math.min(toEpochDay(leg.endDate), todayEpochDay + HORIZON_DAYS));
      for (let m = first; m <= last; m++) add(`m:${monthName(m)}`);
    }
    return out;
  }

  private matchingSlots(leg: EmptyLeg | null, nowMs: number, facts?: EntryFacts): Slot<W>[] {
    if (leg === null) return [];
    const entry = entryOfLeg(leg, facts);
    if (entry === undefined) return [];
    const today = utcEpochDay(nowMs);
    let todayUtc: string | undefined;
    const found: Slot<W>[] = [];
    for (const slot of this.candidateSlots(leg, today)) {
      if (slot.windowDay !== today) {
        slot.windowDay = today;
        slot.window = slot.watch.filters.compiled.window((todayUtc ??= fromEpochDay(today)));
      }
      if (slot.window !== null && slot.watch.filters.compiled.matches(entry, slot.window, nowMs)) found.push(slot);
    }
    return found;
  }

  /** The watches whose results list `leg` (with its source and confirmed instant, `default` and unknown when not given) at `nowMs`. */
  matching(leg: EmptyLeg | null, nowMs: number, facts?: EntryFacts): Set<W> {
    return new Set(this.matchingSlots(leg, nowMs, facts).map((slot) => slot.watch));
  }

  /**
   * The events of one transition: a watch whose results gain the leg gets `listed`, one that keeps
   * it with a changed record `updated`, one that loses it `withdrawn`.
   */
  eventsOf(transition: ListingTransition, nowMs: number): WatchEvent<W>[] {
    const before = this.matchingSlots(transition.before, nowMs, transition.beforeFacts);
    const mark = ++this.transitionMark;
    for (const slot of before) slot.before = mark;
    const after = this.matchingSlots(transition.after, nowMs, transition.afterFacts);
    const events: WatchEvent<W>[] = [];
    let changed: boolean | undefined;
    for (const slot of after) {
      if (slot.before !== mark) events.push({ watch: slot.watch, type: 'empty_leg.listed', transition });
      else {
        slot.before = 0;
        if ((changed ??= JSON.stringify(transition.before) !== JSON.stringify(transition.after))) {
          events.push({ watch: slot.watch, type: 'empty_leg.updated', transition });
        }
      }
    }
    for (const slot of before) if (slot.before === mark) events.push({ watch: slot.watch, type: 'empty_leg.withdrawn', transition });
    return events;
  }
}
