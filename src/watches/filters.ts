import type { AirportIndex } from '../airports/index.js';
import { invalidParameter } from '../errors.js';
import { compileQuery, FLAG_PARAMETERS, INTEGER_PARAMETERS, LIST_QUERY_FIELDS, parseListQuery, type CompiledQuery, type ListQuery } from '../listing/index.js';
import { knowsCurrency, type RateSet } from '../rates/index.js';
import type { SourceFacts } from '../kernel/source.js';

/**
 * A watch's filters (docs/api.md, "Watches"): the listing's query parameters by the same names, rules
 * and INVALID_PARAMETER messages, paging and order aside. Values are strings, numbers or, for `pricedOnly`, booleans.
 */
export const PAGING_FIELDS = ['page', 'size'] as const;
/** What a watch's deliveries have no use for: the page and the order of a listing. */
const NOT_FILTERS: Readonly<Record<string, string>> = {
  page: 'paging does not apply to a watch',
  size: 'paging does not apply to a watch',
  sort: 'an order does not apply to a watch',
  group: 'grouping does not apply to a watch\'s filters',
};
export const WATCH_FILTER_FIELDS = LIST_QUERY_FIELDS.filter((f) => NOT_FILTERS[f] === undefined);
/** The integer parameters: answered as JSON numbers. */
export const INTEGER_FILTERS: ReadonlySet<string> = new Set(WATCH_FILTER_FIELDS.filter((f) => INTEGER_PARAMETERS.has(f)));
/** The price bounds (decimals), answered as JSON numbers, and the flags (`pricedOnly`, `verifiedOnly`), answered as booleans. */
const DECIMAL_FILTERS: ReadonlySet<string> = new Set(['minPrice', 'maxPrice']);
const FLAG_FILTERS: ReadonlySet<string> = new Set(WATCH_FILTER_FIELDS.filter((f) => FLAG_PARAMETERS.has(f)));

/** Filters as stored: the parameters given, each as its query-string text. */
export type StoredFilters = Readonly<Record<string, string>>;
/** Filters as answered: integers and price bounds as numbers, `pricedOnly` as a boolean, the rest as given. */
export type WatchFilters = Readonly<Record<string, string | number | boolean>>;

/** A watch's filters, parsed and compiled as the listing parses and compiles its query. */
export interface ParsedFilters {
  query: ListQuery;
  compiled: CompiledQuery;
}

/** The `currency` a body's filters give (to read the rates in force only then); undefined when none. */
export function currencyOf(filters: unknown): string | undefined {
  const currency = typeof filters === 'object' && filters !== null ? (filters as Record<string, unknown>).currency : undefined;
  return typeof currency === 'string' && currency !== '' ? currency : undefined;
}

/**
 * Validates a body's `filters`: an object of known parameters whose values are strings, finite
 * numbers or booleans; then the listing's own rules (an unknown airport, or a currency the rates in
 * force `rates` do not know, included).
 */
export function parseWatchFilters(raw: unknown, airports: () => AirportIndex, rates?: RateSet): { stored: StoredFilters; parsed: ParsedFilters } {
  const given: unknown = raw ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw invalidParameter('filters', 'must be an object of listing query parameters');
  }
  const stored: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!(WATCH_FILTER_FIELDS as readonly string[]).includes(name)) {
      throw invalidParameter(`filters.${name}`, NOT_FILTERS[name] ?? 'is not a listing query parameter');
    }
    if (typeof value === 'number' && Number.isFinite(value)) stored[name] = String(value);
    else if (typeof value === 'string' || typeof value === 'boolean') stored[name] = String(value);
    else if (value !== null) throw invalidParameter(name, 'must be a string, a number or a boolean');
  }
  const query = parseListQuery(stored);
  return { stored, parsed: { query, compiled: compileQuery(query, airports, rates) } };
}

/**
 * Stored filters compiled for matching with the rates in force (docs/watches.md, "Prices") and the
 * sources registry's facts (`kind`, `verifiedOnly`): as the
 * listing compiles them, except that a currency the rates no longer know converts nothing (no leg
 * passes a price bound or `pricedOnly=true`) rather than refusing. Throws INVALID_PARAMETER like the listing otherwise.
 */
export function parseStoredFilters(stored: StoredFilters, airports: () => AirportIndex, rates?: RateSet, sources?: SourceFacts): ParsedFilters {
  const query = parseListQuery(stored);
  if (query.currency === undefined || knowsCurrency(rates ?? { date: '', rates: {} }, query.currency)) {
    return { query, compiled: compileQuery(query, airports, rates, sources) };
  }
  const unpriced = compileQuery({ ...query, currency: undefined, minPrice: undefined, maxPrice: undefined, pricedOnly: undefined }, airports, undefined, sources);
  const priced = query.minPrice !== undefined || query.maxPrice !== undefined || query.pricedOnly === true;
  return { query, compiled: priced ? { ...unpriced, query, matches: () => false } : { ...unpriced, query } };
}

/** The filters as answered: integers and price bounds as numbers, `pricedOnly` as a boolean. */
export function answeredFilters(stored: StoredFilters): WatchFilters {
  const out: Record<string, string | number | boolean> = {};
  for (const name of WATCH_FILTER_FIELDS) {
    const value = stored[name];
    if (value === undefined) continue;
    if (INTEGER_FILTERS.has(name) && /^[+-]?\d+$/.test(value)) out[name] = Number(value);
    else if (DECIMAL_FILTERS.has(name) && /^\d+(\.\d+)?$/.test(value)) out[name] = Number(value);
    else if (FLAG_FILTERS.has(name) && (value === 'true' || value === 'false')) out[name] = value === 'true';
    else out[name] = value;
  }
  return out;
}
