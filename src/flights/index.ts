/** What other capabilities may use of flights/: its public surface (eslint.boundaries.js). */
export { entryFlightKey, flightRank, flightsOf, windowOf, type Flight } from './flights.js';
export { flightKeyOf, groupFlights, type GroupedLeg } from './grouping.js';
export { groupedFlights, offerFactsOf, type GroupInput } from './listing-group.js';
export { compareOffers, offerOf, type Offer, type OfferFacts } from './offers.js';
export { flightRecord, type FlightRecord } from './record.js';
export { GROUPS, groupRule } from './group-param.js';
