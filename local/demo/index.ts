/** The demo data: real airports and aircraft, and a deterministic generator of legs. */
export { demoAirportCount, demoAirports, FEATURED_AIRPORTS, type DemoAirport } from './airports.js';
export { AIRCRAFT, OPERATORS, type AircraftCategory, type AircraftModel } from './aircraft.js';
export { DEFAULT_COUNT, DEFAULT_SEED, DEMO_SOURCES, demoLegs, generateDemoRecords, mulberry32, withDemoDepartureTimes, type DemoOptions } from './generator.js';
