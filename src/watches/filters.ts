import type { AirportIndex } from '../airports/index.js';
import { invalidParameter } from '../errors.js';
import { compileQuery, INTEGER_PARAMETERS, LIST_QUERY_FIELDS, parseListQuery, type CompiledQuery, type ListQuery } from '../listing/index.js';

/**
 * A watch's filters (docs/api.md, "Watches"): the listing's query parameters by the same names, rules
 * and INVALID_PARAMETER messages, paging and order aside. Values are strings, or numbers for the integer ones.
 */
export const PAGING_FIELDS = ['page', 'size'] as const;
/** What a watch's deliveries have no use for: the page and the order of a listing. */
const NOT_FILTERS: Readonly<Record<string, string>> = {
  page: 'paging does not apply to a watch',
  size: 'paging does not apply to a watch',
  sort: 'an order does not apply to a watch',
  currency: 'prices are not yet a watch filter',
  minPrice: 'prices are not yet a watch filter',
  maxPrice: 'prices are not yet a watch filter',
  pricedOnly: 'prices are not yet a watch filter',
};
export const WATCH_FILTER_FIELDS = LIST_QUERY_FIELDS.filter((f) => NOT_FILTERS[f] === undefined);
/** The integer parameters: answered as JSON numbers. */
export const INTEGER_FILTERS: ReadonlySet<string> = new Set(WATCH_FILTER_FIELDS.filter((f) => INTEGER_PARAMETERS.has(f)));

/** Filters as stored: the parameters given, each as its query-string text. */
export type StoredFilters = Readonly<Record<string, string>>;
/** Filters as answered: integers as numbers, the rest as given. */
export type WatchFilters = Readonly<Record<string, string | number>>;

/** A watch's filters, parsed and compiled as the listing parses and compiles its query. */
export interface ParsedFilters {
  query: ListQuery;
  compiled: CompiledQuery;
}

/**
 * Validates a body's `filters`: an object of known parameters whose values are strings or finite
 * numbers; then the listing's own rules (an unknown airport included).
 */
export function parseWatchFilters(raw: unknown, airports: () => AirportIndex): { stored: StoredFilters; parsed: ParsedFilters } {
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
    else if (typeof value === 'string') stored[name] = value;
    else if (value !== null) throw invalidParameter(name, 'must be a string or a number');
  }
  const parsed = parseStoredFilters(stored, airports);
  return { stored, parsed };
}

/** Parses stored filters (as the listing parses a query string); throws INVALID_PARAMETER like it. */
export function parseStoredFilters(stored: StoredFilters, airports: () => AirportIndex): ParsedFilters {
  const query = parseListQuery(stored);
  return { query, compiled: compileQuery(query, airports) };
}

/** The filters as answered: integer parameters as numbers. */
export function answeredFilters(stored: StoredFilters): WatchFilters {
  const out: Record<string, string | number> = {};
  for (const name of WATCH_FILTER_FIELDS) {
    const value = stored[name];
    if (value === undefined) continue;
    out[name] = INTEGER_FILTERS.has(name) && /^[+-]?\d+$/.test(value) ? Number(value) : value;
  }
  return out;
}
