import { fromEpochDay, isCalendarDate, monthIndexOf, monthName, toEpochDay, utcEpochDay } from '../kernel/dates.js';
import { HORIZON_DAYS, type DateWindow } from '../kernel/listed.js';
import { categoryBit, categoryNamed } from '../kernel/aircraft-category.js';
import type { EmptyLeg } from '../kernel/model.js';
import { filterText, fold } from '../kernel/leg-item.js';
import { IndexEntryReader, type IndexEntry } from '../kernel/index-entry.js';
import type { ParsedFilters } from './filters.js';
import type { ListingTransition } from '../changes/index.js';

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
}

export interface WatchEvent<W extends MatchableWatch = MatchableWatch> {
  watch: W;
  type: WatchEventType;
  transition: ListingTransition;
}

const reader = new IndexEntryReader();

/**
 * The listing's index entry of a leg it lists (the leg as the API shows it). Expiry is the change
 * log's to say (a leg that expires is withdrawn), so the entry never expires; undefined for a leg
 * whose dates are not dates.
 */
export function entryOfLeg(leg: EmptyLeg): IndexEntry | undefined {
  if (!isCalendarDate(leg.startDate) || !isCalendarDate(leg.endDate) || leg.endDate < leg.startDate) return undefined;
  const text = filterText(leg, '0');
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

export class WatchIndex<W extends MatchableWatch = MatchableWatch> {
  private readonly byKey = new Map<Key, W[]>();
  private windowDay = Number.NaN;
  private windows = new Map<W, DateWindow | null>();

  constructor(readonly watches: readonly W[]) {
    for (const w of watches) {
      for (const key of new Set(keysOf(w.filters))) {
        let list = this.byKey.get(key);
        if (list === undefined) this.byKey.set(key, (list = []));
        list.push(w);
      }
    }
  }

  get size(): number {
    return this.watches.length;
  }

  /** The watches that can list `leg` (a superset of those that do). */
  candidates(leg: EmptyLeg, todayEpochDay: number, out: Set<W>): void {
    const add = (key: Key | undefined) => {
      if (key === undefined) return;
      const list = this.byKey.get(key);
      if (list !== undefined) for (const w of list) out.add(w);
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
  }

  /** The watches whose results list `leg` at `nowMs`. */
  matching(leg: EmptyLeg | null, nowMs: number): Set<W> {
    const found = new Set<W>();
    if (leg === null) return found;
    const entry = entryOfLeg(leg);
    if (entry === undefined) return found;
    const today = utcEpochDay(nowMs);
    if (today !== this.windowDay) {
      this.windowDay = today;
      this.windows = new Map();
    }
    const candidates = new Set<W>();
    this.candidates(leg, today, candidates);
    const todayUtc = fromEpochDay(today);
    for (const w of candidates) {
      let window = this.windows.get(w);
      if (window === undefined) this.windows.set(w, (window = w.filters.compiled.window(todayUtc)));
      if (window !== null && w.filters.compiled.matches(entry, window, nowMs)) found.add(w);
    }
    return found;
  }

  /**
   * The events of one transition: a watch whose results gain the leg gets `listed`, one that keeps
   * it with a changed record `updated`, one that loses it `withdrawn`.
   */
  eventsOf(transition: ListingTransition, nowMs: number): WatchEvent<W>[] {
    const before = this.matching(transition.before, nowMs);
    const after = this.matching(transition.after, nowMs);
    const events: WatchEvent<W>[] = [];
    let changed: boolean | undefined;
    for (const w of after) {
      if (!before.has(w)) events.push({ watch: w, type: 'empty_leg.listed', transition });
      else if ((changed ??= JSON.stringify(transition.before) !== JSON.stringify(transition.after))) {
        events.push({ watch: w, type: 'empty_leg.updated', transition });
      }
    }
    for (const w of before) if (!after.has(w)) events.push({ watch: w, type: 'empty_leg.withdrawn', transition });
    return events;
  }
}
