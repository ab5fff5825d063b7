/**
 * One flight (docs/api.md, "Flights"): legs are offers of one flight when they share a flight key
 * (registration, departure ICAO, arrival ICAO) and their windows overlap, transitively. Pure.
 */

/** A leg as grouping sees it: its id, its flight key ('' never merges) and its window [from, to], both inclusive. */
export interface GroupedLeg {
  id: string;
  key: string;
  from: number;
  to: number;
}

/** The flight key of a leg: `REG.DEP.ARR` (upper case); '' when it lacks the registration or either ICAO code. */
export function flightKeyOf(registration: string, depIcao: string, arrIcao: string): string {
  if (registration === '' || depIcao.length !== 4 || arrIcao.length !== 4) return '';
  return `${registration}.${depIcao.toUpperCase()}.${arrIcao.toUpperCase()}`;
}

/**
 * The flights of `legs`: each leg's flight as an array of the legs it groups (the same array for every
 * leg of a flight), legs without a key alone. A sweep per key in `from` order: a leg starting at or
 * before the latest end so far joins the flight.
 */
export function groupFlights<L extends GroupedLeg>(legs: readonly L[]): Map<string, L[]> {
  const flights = new Map<string, L[]>();
  const byKey = new Map<string, L[]>();
  for (const leg of legs) {
    if (leg.key === '') flights.set(leg.id, [leg]);
    else {
      const list = byKey.get(leg.key);
      if (list === undefined) byKey.set(leg.key, [leg]);
      else list.push(leg);
    }
  }
  for (const list of byKey.values()) {
    if (list.length > 1) list.sort((a, b) => a.from - b.from);
    let flight: L[] = [];
    let end = Number.NEGATIVE_INFINITY;
    for (const leg of list) {
      if (leg.from > end) flight = [];
      flight.push(leg);
      flights.set(leg.id, flight);
      end = flight.length === 1 ? leg.to : Math.max(end, leg.to);
    }
  }
  return flights;
}
