import type { StoredLeg } from '../src/kernel/leg-item.js';
import { sourceOf } from '../src/kernel/source.js';

/**
 * What `group=flight` must answer (docs/api.md, "Flights"), computed straight from the data set
 * without the listing's code: legs joined pairwise by the rule, then closed transitively. Pure.
 */

const KIND_RANK: Readonly<Record<string, number>> = { operator: 0, broker: 1 };

export interface GroupedInput {
  /** The legs matching the search's filters, in the listing's order (startDate, id). */
  hits: readonly StoredLeg[];
  /** Every leg listed now, matching or not: a flight's identity does not depend on the filters. */
  listed: readonly StoredLeg[];
  sort: string | undefined;
  page: number;
  size: number;
  /** A leg's amount in the asked currency (null: none). */
  amountOf: (leg: StoredLeg) => number | null;
  /** A leg's amount in euros (null: none). */
  eurosOf: (leg: StoredLeg) => number | null;
  registry: Readonly<Record<string, { kind: string; verified?: true }>>;
}

const identity = (leg: StoredLeg): string => {
  const registration = (leg.registration ?? '').split('').filter((c) => c !== '-' && c !== ' ' && c !== '\t').join('').toUpperCase();
  const dep = leg.depAirportIcao ?? '';
  const arr = leg.arrAirportIcao ?? '';
  return registration === '' || dep.length !== 4 || arr.length !== 4 ? '' : `${registration} ${dep.toUpperCase()} ${arr.toUpperCase()}`;
};

/** The flight (a representative id) of each leg: union-find over the pairs the rule joins. */
function flightsOf(listed: readonly StoredLeg[]): Map<string, string> {
  const parent = new Map<string, string>();
  const find = (id: string): string => {
    let root = id;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(id, root);
    return root;
  };
  const byIdentity = new Map<string, StoredLeg[]>();
  for (const leg of listed) {
    parent.set(leg.id, leg.id);
    const key = identity(leg);
    if (key !== '') byIdentity.set(key, [...(byIdentity.get(key) ?? []), leg]);
  }
  for (const legs of byIdentity.values()) {
    for (let i = 0; i < legs.length; i++) {
      for (let j = i + 1; j < legs.length; j++) {
        const [a, b] = [legs[i]!, legs[j]!];
        if (a.startDate <= b.endDate && b.startDate <= a.endDate) parent.set(find(a.id), find(b.id));
      }
    }
  }
  return new Map([...parent.keys()].map((id) => [id, find(id)]));
}

/** The grouped answer: total counts flights, the page's records are their best offers. */
export function expectedGrouped(input: GroupedInput): { total: number; pageIds: string[]; pageAmounts: (number | null)[] } {
  const flightOf = flightsOf(input.listed);
  const flights = new Map<string, StoredLeg[]>();
  for (const leg of input.hits) {
    const flight = flightOf.get(leg.id) ?? leg.id;
    flights.set(flight, [...(flights.get(flight) ?? []), leg]);
  }
  const rank = (leg: StoredLeg) => {
    const registered = input.registry[sourceOf(leg)];
    return [registered === undefined ? 2 : KIND_RANK[registered.kind]!, registered?.verified === true ? 0 : 1, -(leg.confirmedAt ?? Number.NEGATIVE_INFINITY), input.eurosOf(leg) ?? Number.POSITIVE_INFINITY];
  };
  const better = (a: StoredLeg, b: StoredLeg): number => {
    const [x, y] = [rank(a), rank(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
  const ordered = [...flights.values()].map((offers) => {
    const amounts = offers.map(input.amountOf).filter((a): a is number => a !== null);
    return { best: [...offers].sort(better)[0]!, cheapest: amounts.length === 0 ? null : Math.min(...amounts) };
  });
  ordered.sort((a, b) => (a.best.startDate === b.best.startDate ? (a.best.id < b.best.id ? -1 : 1) : a.best.startDate < b.best.startDate ? -1 : 1));
  if (input.sort === 'price' || input.sort === '-price') {
    const sign = input.sort === 'price' ? 1 : -1;
    const key = (f: { cheapest: number | null }) => (f.cheapest === null ? Number.POSITIVE_INFINITY : sign * f.cheapest);
    ordered.sort((a, b) => (key(a) === key(b) ? 0 : key(a) < key(b) ? -1 : 1));
  }
  const pageFlights = ordered.slice((input.page - 1) * input.size, input.page * input.size);
  return { total: ordered.length, pageIds: pageFlights.map((f) => f.best.id), pageAmounts: pageFlights.map((f) => input.amountOf(f.best)) };
}
