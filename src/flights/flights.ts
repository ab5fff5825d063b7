import { codeOf, type IndexEntry } from '../kernel/index-entry.js';
import { toEpochDay } from '../kernel/dates.js';
import { departureTimesOf, registrationOf } from '../kernel/leg/registration.js';
import { flightKeyOf, groupFlights, type GroupedLeg } from './grouping.js';
import { compareOffers, type OfferFacts } from './offers.js';

/**
 * The grouped listing over index entries (docs/api.md, "Flights"): the matching legs gathered into
 * flights, a flight's identity taken from every listed leg at hand. Pure.
 */

/** A flight of an answer: its matching offers, best first, and their facts in the same order. */
export interface Flight {
  offers: IndexEntry[];
  facts: OfferFacts[];
}

/** A leg's flight key (`flightKeyOf`) from its index entry; '' when it is never merged. */
export function entryFlightKey(entry: IndexEntry): string {
  const registration = registrationOf(entry);
  return registration === '' ? '' : flightKeyOf(registration, codeOf(entry, 'dep', 'icao'), codeOf(entry, 'arr', 'icao'));
}

const MINUTES_PER_DAY = 1440;

/**
 * A leg's window in minutes of local wall-clock time at its departure airport (one airport per flight
 * key, so one zone), both ends inclusive: from its earliest departure on startDate (00:00 without one)
 * to its latest on endDate (23:59 without one), as its index entry's last part gives them.
 */
export function windowOf(entry: Pick<IndexEntry, 'startDate' | 'endDate' | 'text'>): [from: number, to: number] {
  const times = departureTimesOf(entry);
  return [toEpochDay(entry.startDate) * MINUTES_PER_DAY + minutesOf(times.depTimeFrom, 0), toEpochDay(entry.endDate) * MINUTES_PER_DAY + minutesOf(times.depTimeTo, MINUTES_PER_DAY - 1)];
}

const minutesOf = (time: string | undefined, otherwise: number): number => (time === undefined ? otherwise : Number(time.slice(0, 2)) * 60 + Number(time.slice(3)));

type Member = GroupedLeg & { entry: IndexEntry };

function memberOf(entry: IndexEntry, key: string): Member {
  const [from, to] = windowOf(entry);
  return { id: entry.id, key, from, to, entry };
}

/**
 * The flights of `matches` (in their order: a flight where its first match is), each match with the
 * legs it is one flight with among `listed` (every leg listed now, matching or not: identity does not
 * depend on the filters). `factsOf` ranks the offers (`compareOffers`).
 */
export function flightsOf(matches: readonly IndexEntry[], listed: Iterable<IndexEntry>, factsOf: (entry: IndexEntry) => OfferFacts): Flight[] {
  const keys = new Map<IndexEntry, string>();
  const wanted = new Set<string>();
  for (const match of matches) {
    const key = entryFlightKey(match);
    keys.set(match, key);
    if (key !== '') wanted.add(key);
  }
  const members = new Map<string, Member>();
  if (wanted.size > 0) {
    for (const entry of listed) {
      const key = entryFlightKey(entry);
      if (key !== '' && wanted.has(key)) members.set(entry.id, memberOf(entry, key));
    }
    for (const match of matches) if (keys.get(match) !== '' && !members.has(match.id)) members.set(match.id, memberOf(match, keys.get(match)!));
  }
  const groups = groupFlights([...members.values()]);
  const byGroup = new Map<object, Flight>();
  const flights: Flight[] = [];
  for (const match of matches) {
    const group = keys.get(match) === '' ? undefined : groups.get(match.id);
    let flight = group === undefined ? undefined : byGroup.get(group);
    if (flight === undefined) {
      flight = { offers: [], facts: [] };
      flights.push(flight);
      if (group !== undefined) byGroup.set(group, flight);
    }
    flight.offers.push(match);
  }
  for (const flight of flights) {
    if (flight.offers.length === 1) {
      flight.facts = [factsOf(flight.offers[0]!)];
      continue;
    }
    const ranked = flight.offers.map((entry) => ({ entry, facts: factsOf(entry) })).sort((a, b) => compareOffers(a.facts, b.facts));
    flight.offers = ranked.map((r) => r.entry);
    flight.facts = ranked.map((r) => r.facts);
  }
  return flights;
}

/** The flights in the listing's order: their best offer's startDate, then its id. */
export function inListingOrder(flights: Flight[]): Flight[] {
  return flights.sort((a, b) => {
    const x = a.offers[0]!;
    const y = b.offers[0]!;
    return x.startDate < y.startDate ? -1 : x.startDate > y.startDate ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0;
  });
}

/**
 * A flight's rank from its offers' ranks under a listing order (lower first): the lowest; with
 * `-price` (ranks of -amount, unpriced +Infinity) its cheapest priced offer's, the highest finite one.
 */
export function flightRank(rank: (entry: IndexEntry) => number, descendingPrice: boolean): (flight: Flight) => number {
  return (flight) => {
    let best = descendingPrice ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    for (const entry of flight.offers) {
      const r = rank(entry);
      if (descendingPrice ? Number.isFinite(r) && r > best : r < best) best = r;
    }
    return best === Number.NEGATIVE_INFINITY ? Number.POSITIVE_INFINITY : best;
  };
}
