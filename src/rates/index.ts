/** What other capabilities may use of rates/: its public surface (eslint.boundaries.js). */
export { convertAmount, knowsCurrency, withConvertedPrice, BASE_CURRENCY, type ConvertedPrice } from './conversion.js';
export { parseEcbRates, RatesFileError, type RateSet } from './ecb-xml.js';
export { cachedRates, type RatesSource } from './source.js';
export { createRatesStore, RATES_ID, type RatesStore } from './store.js';
/** The dated ECB file the demo (npm start) and the tests load: its source and terms in src/rates/data/README.md. */
export const DEMO_RATES_FILE = new URL('./data/eurofxref-daily-2022-07-08.xml', import.meta.url);
export { loadRatesText, RatesFutureError, RatesOlderError, type LoadedRates } from './load-rates.js';
