import { createHash } from 'node:crypto';
import { normalizedRegistration } from './registration.js';

/**
 * A leg's flight identity (docs/api.md, "Flights"): its registration (normalised), departure and
 * arrival ICAO codes. Legs of one identity whose windows overlap, transitively, are one flight.
 */

/** The identity `REG.DEP.ARR` (upper case); '' when the registration (normalised) or either ICAO code is missing. */
export function flightKeyOf(registration: string, depIcao: string, arrIcao: string): string {
  if (registration === '' || depIcao.length !== 4 || arrIcao.length !== 4) return '';
  return `${registration}.${depIcao.toUpperCase()}.${arrIcao.toUpperCase()}`;
}

/** The fields of a record a flight key reads. */
export interface FlightFields {
  registration: string | null;
  depAirportIcao: string | null;
  arrAirportIcao: string | null;
}

/** `include=flight`'s `flightKey`: an opaque digest of the identity (22 characters of base64url); null without one. */
export function recordFlightKey(record: FlightFields): string | null {
  const identity = flightKeyOf(normalizedRegistration(record.registration), record.depAirportIcao ?? '', record.arrAirportIcao ?? '');
  return identity === '' ? null : createHash('sha256').update(identity).digest('base64url').slice(0, 22);
}
