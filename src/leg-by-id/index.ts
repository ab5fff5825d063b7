/** What other capabilities may use of leg-by-id/: its public surface (eslint.boundaries.js). */
export { getEmptyLeg, LEG_NOT_FOUND_MESSAGE, parseCurrency, parseLegId } from './get-leg.js';
export { createLegReader, type LegReader } from './store.js';
export { createFlightLookup, flightLookupFor, type FlightLookup } from './flight.js';
