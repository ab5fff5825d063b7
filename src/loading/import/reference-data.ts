/** Reference data and limits the import format checks against. */

export { COUNTRY_CODES } from '../../kernel/countries.js';

/** Units of account that ISO 4217 lists but that no price is quoted in. */
const NON_CASH_CURRENCIES = new Set(['XDR', 'XSU', 'XUA', 'XAU', 'XAG', 'XPD', 'XPT', 'XTS', 'XXX']);

/** ISO 4217 codes the runtime knows (`Intl.supportedValuesOf('currency')`), minus units of account. */
export const CURRENCY_CODES: ReadonlySet<string> = new Set(
  Intl.supportedValuesOf('currency').filter((c) => !NON_CASH_CURRENCIES.has(c)),
);

export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** Ids a leg cannot have: a path of the API under /open/v1/empty-legs/ (the change feed) would hide the leg. */
export const RESERVED_IDS: ReadonlySet<string> = new Set(['changes']);
export const RESERVED_ID_RULE = 'is reserved: GET /open/v1/empty-legs/changes is the change feed, so no leg could be read by this id';
export const MIN_YEAR = 1950;
export { MAX_SEATS } from '../../kernel/model.js';
export const MAX_PRICE = 100_000_000;
export const MAX_AMENITIES = 20;
