/** What other capabilities may use of rates/: its public surface (eslint.boundaries.js). */
export { convertAmount, knowsCurrency, BASE_CURRENCY } from './conversion.js';
export { parseEcbRates, RatesFileError, type RateSet } from './ecb-xml.js';
export { cachedRates, type RatesSource } from './source.js';
export { createRatesStore, RATES_ID, type RatesStore } from './store.js';
export { loadRatesText, RatesOlderError, type LoadedRates } from './load-rates.js';
