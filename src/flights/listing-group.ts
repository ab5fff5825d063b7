import type { IndexEntry } from '../kernel/index-entry.js';
import { inWindow, type DateWindow } from '../kernel/listed.js';
import { registrationOf } from '../kernel/leg-item.js';
import { BASE_CURRENCY, convertAmount, type RateSet } from '../rates/index.js';
import { settingsOf, type Registry } from '../sources/index.js';
import { flightsOf, inListingOrder, type Flight } from './flights.js';
import type { OfferFacts } from './offers.js';

/**
 * `group=flight` on the listing's matches (docs/api.md, "Flights"): the flights of one query's
 * matches, kept while the very same matches, registry and rates hold, and no leg they read expires.
 */
export interface GroupInput {
  /** The query's matches (the listing's memo entry: its arrays' identity keys the flights). */
  matches: { months: IndexEntry[]; long: IndexEntry[] };
  /** Every bucket read of the request: identity is taken from each leg listed in them. */
  lists: readonly (readonly IndexEntry[])[];
  /** The unfiltered listing's window: a leg in it, unexpired, is listed. */
  listedWindow: DateWindow;
  nowMs: number;
  registry: Registry | undefined;
  rates: RateSet | undefined;
  /** The order of the flights (`sort`): a flight's rank, ascending, ties in the listing's order; undefined: the listing's order. */
  rank: ((flight: Flight) => number) | undefined;
}

interface Kept {
  flights: Flight[];
  stamp: string;
  validUntil: number;
}

const kept = new WeakMap<object, Kept>();

/** The euro price of an entry, with `rates` (without: a price in euros only). */
export function eurosOf(entry: IndexEntry, rates: RateSet | undefined): number | null {
  if (Number.isNaN(entry.price) || entry.currency === '') return null;
  if (entry.currency === BASE_CURRENCY) return entry.price;
  return rates === undefined ? null : convertAmount(entry.price, entry.currency, BASE_CURRENCY, rates);
}

/** An entry's facts as an offer: its source's kind and verification from the registry. */
export function offerFactsOf(registry: Registry | undefined, rates: RateSet | undefined): (entry: IndexEntry) => OfferFacts {
  return (entry) => {
    const settings = registry === undefined ? undefined : settingsOf(registry, entry.source);
    return {
      id: entry.id,
      source: entry.source,
      kind: settings?.kind ?? 'unknown',
      verified: settings?.verified ?? false,
      confirmedAt: entry.confirmedAt,
      euros: eurosOf(entry, rates),
    };
  };
}

/** The flights of the query's matches, ordered. */
export function groupedFlights(input: GroupInput): Flight[] {
  const { matches, nowMs } = input;
  const stamp = `${input.registry?.revision ?? -1} ${input.rates?.date ?? ''} ${input.listedWindow.from}`;
  const before = kept.get(matches.months);
  if (before !== undefined && before.stamp === stamp && nowMs < before.validUntil) return before.flights;
  let validUntil = Number.POSITIVE_INFINITY;
  const listed: IndexEntry[] = [];
  for (const list of input.lists) {
    for (const entry of list) {
      if (registrationOf(entry) === '' || !inWindow(entry, input.listedWindow, nowMs)) continue;
      listed.push(entry);
      if (entry.expiresAt < validUntil) validUntil = entry.expiresAt;
    }
  }
  const all = matches.long.length === 0 ? matches.months : [...matches.months, ...matches.long];
  for (const entry of all) if (entry.expiresAt < validUntil) validUntil = entry.expiresAt;
  const flights = flightsOf(all, listed, offerFactsOf(input.registry, input.rates));
  const ordered = input.rank === undefined ? inListingOrder(flights) : rankedBy(flights, input.rank);
  kept.set(matches.months, { flights: ordered, stamp, validUntil });
  return ordered;
}

function rankedBy(flights: Flight[], rank: (flight: Flight) => number): Flight[] {
  const keyed = inListingOrder(flights).map((flight, order) => ({ flight, order, key: rank(flight) }));
  keyed.sort((a, b) => a.key - b.key || a.order - b.order);
  return keyed.map((k) => k.flight);
}
