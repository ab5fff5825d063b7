import { DEP_TIME_PATTERN, localInstant } from '../leg-item.js';

export { DEP_TIME_PATTERN };

/**
 * Departure times (docs/import-format.md, "Departure times"): `depTimeFrom`, the earliest departure
 * on startDate, and `depTimeTo`, the latest on endDate, `HH:mm` local to the departure airport.
 */
export const DEP_TIME_RULE = 'must be a local time HH:mm (00:00 to 23:59)';

/** What a leg's departure block gives: local date-times (`yyyy-MM-ddTHH:mm`) and UTC instants; null where no time was given. */
export interface DepartureWindow {
  earliestLocal: string | null;
  latestLocal: string | null;
  earliestUtc: string | null;
  latestUtc: string | null;
}

export interface DepartureTimes {
  startDate: string;
  endDate: string;
  depTimeFrom?: string | null | undefined;
  depTimeTo?: string | null | undefined;
}

const isTime = (t: string | null | undefined): t is string => typeof t === 'string' && DEP_TIME_PATTERN.test(t);

/** The instant the latest departure passes (when the leg leaves the listing); undefined without `depTimeTo`. */
export function latestDeparture(leg: DepartureTimes, timeZone: string): number | undefined {
  return isTime(leg.depTimeTo) ? localInstant(leg.endDate, leg.depTimeTo, timeZone) : undefined;
}

export function earliestDeparture(leg: DepartureTimes, timeZone: string): number | undefined {
  return isTime(leg.depTimeFrom) ? localInstant(leg.startDate, leg.depTimeFrom, timeZone) : undefined;
}

export function departureWindow(leg: DepartureTimes, timeZone: string): DepartureWindow {
  const earliest = earliestDeparture(leg, timeZone);
  const latest = latestDeparture(leg, timeZone);
  return {
    earliestLocal: earliest === undefined ? null : `${leg.startDate}T${leg.depTimeFrom!}`,
    latestLocal: latest === undefined ? null : `${leg.endDate}T${leg.depTimeTo!}`,
    earliestUtc: earliest === undefined ? null : new Date(earliest).toISOString(),
    latestUtc: latest === undefined ? null : new Date(latest).toISOString(),
  };
}
