/** What other capabilities may use of airports/: its public surface (eslint.boundaries.js). */
export { AIRPORT_DATA_FILE } from './data-file.js';
export { airportReference, type Airport, type AirportIndex } from './reference.js';
export { airportContinentBit, continentBit, continentOfCountry, CONTINENTS, type Continent } from './continents.js';
export { distanceKm } from './geo.js';
