import * as v from 'valibot';
import { invalidParameter } from '../errors.js';
import { CATEGORY_LIST, categoryBit, categoryNamed } from '../kernel/aircraft-category.js';
import { isCalendarDate } from '../kernel/dates.js';
import { MAX_SEATS } from '../kernel/model.js';
import { fold } from '../kernel/leg-item.js';
import { boundedInteger, clampedInteger, currencyCode, flag, integerRule, isIntegerRule, optionalRaw, priceBound, shaped, shapeOf, sourceIds, sourceKinds, type ValueShape } from '../http/query-params.js';
import type { SourceFacts } from '../kernel/source.js';
import { cityIncludes, codeOf, countryCodeOf, countryKey, countryOf, hasCode, type IndexEntry, type Side } from '../kernel/index-entry.js';
import { COUNTRY_CODES } from '../kernel/countries.js';
import { groupRule as group } from '../flights/index.js';
import { airportContinentBit, continentBit, continentOfCountry, CONTINENTS, type AirportIndex, type Continent } from '../airports/index.js';

/**
 * The list operation's query parameters (docs/api.md, "Query parameters"), parsed and validated
 * with valibot. Pure: no clock, no I/O. Errors are INVALID_PARAMETER naming the parameter and rule.
 */
export const DEFAULT_PAGE = 1;
export const DEFAULT_SIZE = 20;
export const MAX_SIZE = 100;
export const MAX_OFFSET_DAYS = 15;
export const CITY_MIN = 2;
export const CITY_MAX = 100;
/** Nearby search (docs/api.md, "Nearby"): the radius in km, when `depNear`/`arrNear` is given without one. */
export const DEFAULT_RADIUS_KM = 100;
export const MIN_RADIUS_KM = 1;
export const MAX_RADIUS_KM = 1000;
/** Trip search (docs/api.md, "Trips"): the most extra flying, in percent of the leg's own distance, when not given. */
export const DEFAULT_MAX_DETOUR_PCT = 25;
export const MAX_DETOUR_PCT = 100;
/** `minSeats` (docs/api.md, "Filters"): the range of `seatNum` (1 to MAX_SEATS). */
export const MIN_SEATS = 1;
/** `maxAgeHours` (docs/api.md, "Sellers"): legs confirmed within 1 to 720 hours (30 days). */
export const MAX_AGE_HOURS = 720;

export interface AirportFilter {
  /** `icao` for 4 letters, `iata` for 3. */
  kind: 'icao' | 'iata';
  /** Lower-cased code. */
  code: string;
}

const depDate = shaped(v.pipe(
  optionalRaw,
  v.check((s) => s === undefined || isCalendarDate(s), 'must be a calendar date in yyyy-MM-dd format'),
), { type: 'string', format: 'date', pattern: '^(?!0000)[0-9]{4}-[0-9]{2}-[0-9]{2}$' }, true);

const cityName = shaped(v.pipe(
  optionalRaw,
  v.transform((s) => s?.trim() || undefined),
  v.check((s) => {
    if (s === undefined) return true;
    const length = [...s].length;
    return length >= CITY_MIN && length <= CITY_MAX;
  }, `must be ${CITY_MIN} to ${CITY_MAX} characters long after trimming`),
  v.transform((s) => (s === undefined ? undefined : fold(s))),
), { type: 'string', minLength: 1 }, false);

// Exactly 3 or 4 ASCII letters (docs/api.md, "Filters"); unlike a city name, not trimmed: `EGLF `
// (a stray `+` in a URL) is not a code.
const airportCode = shaped(v.pipe(
  optionalRaw,
  v.check((s) => s === undefined || /^[A-Za-z]{3,4}$/.test(s), 'must be a 4-letter ICAO or 3-letter IATA code'),
  v.transform((s): AirportFilter | undefined =>
    s === undefined ? undefined : { kind: s.length === 4 ? 'icao' : 'iata', code: s.toLowerCase() },
  ),
), { type: 'string', pattern: '^[A-Za-z]{3,4}$' }, true);

/** A list of one or more non-empty items separated by commas, as JSON Schema says it (each item's rule is the parser's). */
const LIST_SHAPE = { type: 'string', pattern: '^[^,]+(,[^,]+)*$' } as const;

/** One or more items separated by commas, each trimmed and upper-cased; checked by `known`, naming the first it refuses. */
const upperList = (known: (item: string) => boolean, rule: string) =>
  v.pipe(
    optionalRaw,
    v.transform((s) => s?.split(',').map((item) => item.trim().toUpperCase())),
    v.check(
      (list) => list?.every(known) ?? true,
      (issue) => `${JSON.stringify((issue.input as string[]).find((item) => !known(item)))} is not ${rule}: give one or more, separated by commas`,
    ),
  );

// ISO 3166-1 alpha-2 codes, any case (`fr,IT`): a leg's country (`countryOf`) is one of their keys.
const countryCodes = shaped(v.pipe(
  upperList((c) => COUNTRY_CODES.has(c), 'an ISO 3166-1 alpha-2 country code'),
  v.transform((list) => list?.map(countryKey)),
), LIST_SHAPE, false);

// Continents of the airport reference's source (src/airports/continents.ts), any case, as their bits.
const continents = shaped(v.pipe(
  upperList((c) => (CONTINENTS as readonly string[]).includes(c), `one of ${CONTINENTS.join(' ')}`),
  v.transform((list) => list?.reduce((mask, c) => mask | continentBit(c as Continent), 0)),
), LIST_SHAPE, false);

/** The continent's bit of a leg's side: its airport's (by ICAO, else IATA code), else its country's; 0 for none. */
function continentOfSide(entry: IndexEntry, side: Side, airports: AirportIndex): number {
  const code = codeOf(entry, side, 'icao') || codeOf(entry, side, 'iata');
  const bit = code === '' ? 0 : airportContinentBit(airports, code);
  if (bit !== 0) return bit;
  const country = continentOfCountry(countryCodeOf(countryOf(entry, side)));
  return country === undefined ? 0 : continentBit(country);
}

const inCountries = (side: Side) => (keys: number[]): EntryTest => {
  const set = new Set(keys);
  return (e) => set.has(countryOf(e, side));
};

const onContinents =
  (side: Side) =>
  (mask: number, context: FilterContext): EntryTest => {
    const airports = context.airports();
    return (e) => (continentOfSide(e, side, airports) & mask) !== 0;
  };

const radiusKm = boundedInteger(MIN_RADIUS_KM, MAX_RADIUS_KM, ' (km)');

const offsetDays = integerRule(
  shaped(v.pipe(
    boundedInteger(0, MAX_OFFSET_DAYS),
    v.transform((n) => n ?? 0),
  ), { type: 'integer', minimum: 0, maximum: MAX_OFFSET_DAYS, default: 0 }, true),
);

// One or more category names separated by commas, in any case and spacing (`light jet,Heavy-Jet`).
const aircraftCategories = shaped(v.pipe(
  optionalRaw,
  v.transform((s) => s?.split(',').map((item) => categoryNamed(item))),
  v.check((list) => list?.every((c) => c !== undefined) ?? true, `must be one or more of ${CATEGORY_LIST}, separated by commas`),
  // The set of categories as their bits (`categoryBit`): a leg matches when its category's bit is in it.
  v.transform((list) => list?.reduce((mask, c) => mask | categoryBit(c!), 0)),
), LIST_SHAPE, false);

/** A compiled filter: true when the index entry passes it. */
export type EntryTest = (entry: IndexEntry) => boolean;

/**
 * What a filter's test may consult besides its value: the airport reference, called only when it
 * asks; with `currency`, a leg's price converted into it (null when it has none, docs/api.md, "Prices").
 */
export interface FilterContext {
  airports: () => AirportIndex;
  converted?: ((entry: IndexEntry) => number | null) | undefined;
  /** The sources registry's facts, for `kind` and `verifiedOnly`; undefined: none registered. */
  sources?: SourceFacts | undefined;
}

/** A leg whose source (its index entry's) is one of `ids`. */
const fromSources = (ids: ReadonlySet<string>): EntryTest => (e) => ids.has(e.source);

/** A price bound's test: the converted price within it; a leg without one never passes. */
const bound = (within: (amount: number, limit: number) => boolean) => (limit: number, context: FilterContext): EntryTest => {
  const converted = context.converted;
  if (converted === undefined) return () => false;
  return (e) => {
    const amount = converted(e);
    return amount !== null && within(amount, limit);
  };
};

type Rule = v.GenericSchema<string | undefined, unknown>;

/**
 * One query parameter: its rule (valibot; absent or empty reads as undefined) and, for a filter of
 * its own, the test its parsed value compiles to, once per query (`compileQuery`, src/listing/listing.ts).
 * Without a test it is read with others: the date window, nearby search, the order, paging.
 */
export interface Parameter<S extends Rule> {
  rule: S;
  test?: ((value: NonNullable<v.InferOutput<S>>, context: FilterContext) => EntryTest) | undefined;
}

const param = <S extends Rule>(rule: S, test?: Parameter<S>['test']): Parameter<S> => ({ rule, test });

/** The orders `sort` names (docs/api.md, "Order and paging"); absent is `startDate`. */
export const SORTS = ['startDate', 'detour', 'price', '-price'] as const;
export type Sort = (typeof SORTS)[number];
const sort = shaped(v.pipe(
  optionalRaw,
  v.check((s) => s === undefined || (SORTS as readonly string[]).includes(s), `must be one of ${SORTS.join(', ')}`),
  v.transform((s) => s as Sort | undefined),
), { type: 'string', enum: [...SORTS], default: 'startDate' }, true);

/**
 * The query parameters (docs/api.md, "Query parameters"), defined once, in the contract's order: the
 * parsed query's type, the parameter names, the memo key and the watches' filters derive from it.
 */
const PARAMETERS = {
  page: param(clampedInteger(1, Number.MAX_SAFE_INTEGER, DEFAULT_PAGE)),
  size: param(clampedInteger(1, MAX_SIZE, DEFAULT_SIZE)),
  depDate: param(depDate),
  offsetDays: param(offsetDays),
  depCityName: param(cityName, (needle) => (e) => cityIncludes(e, 'dep', needle)),
  arrCityName: param(cityName, (needle) => (e) => cityIncludes(e, 'arr', needle)),
  depAirportCode: param(airportCode, (a) => (e) => hasCode(e, 'dep', a.kind, a.code)),
  arrAirportCode: param(airportCode, (a) => (e) => hasCode(e, 'arr', a.kind, a.code)),
  depNear: param(airportCode),
  depRadiusKm: param(radiusKm),
  arrNear: param(airportCode),
  arrRadiusKm: param(radiusKm),
  // Unknown seats (0) and an unknown category (0) match no such filter.
  minSeats: param(boundedInteger(MIN_SEATS, MAX_SEATS), (n) => (e) => e.seats >= n),
  aircraftType: param(aircraftCategories, (mask) => (e) => (e.category & mask) !== 0),
  tripFrom: param(airportCode),
  tripTo: param(airportCode),
  maxDetourPct: param(boundedInteger(0, MAX_DETOUR_PCT, ' (percent)')),
  // A leg without a country matches no country filter (`countryOf` is 0 for it).
  depCountryCode: param(countryCodes, inCountries('dep')),
  arrCountryCode: param(countryCodes, inCountries('arr')),
  depContinent: param(continents, onContinents('dep')),
  arrContinent: param(continents, onContinents('arr')),
  // A source's kind and verification are the registry's (src/sources/): an unregistered source is neither.
  source: param(sourceIds, (ids) => fromSources(new Set(ids))),
  kind: param(sourceKinds, (kinds, { sources }) => fromSources(new Set([...(sources?.kinds ?? [])].flatMap(([id, k]) => (kinds.includes(k) ? [id] : []))))),
  verifiedOnly: param(flag, (only, { sources }) => (only ? fromSources(sources?.verified ?? new Set()) : () => true)),
  // Read with the request's instant (`compileQuery`).
  maxAgeHours: param(boundedInteger(1, MAX_AGE_HOURS, ' (hours)')),
  sort: param(sort),
  currency: param(currencyCode),
  minPrice: param(priceBound, bound((amount, limit) => amount >= limit)),
  maxPrice: param(priceBound, bound((amount, limit) => amount <= limit)),
  // With `currency`, a leg with a converted price; without, a leg with a price.
  pricedOnly: param(flag, (only, { converted }) => {
    if (!only) return () => true;
    return converted === undefined ? (e) => !Number.isNaN(e.price) : (e) => converted(e) !== null;
  }),
  group: param(group),
};

type ParameterName = keyof typeof PARAMETERS;
const ListQueryFields = v.object(
  Object.fromEntries(Object.entries(PARAMETERS).map(([name, p]) => [name, p.rule])) as { [K in ParameterName]: (typeof PARAMETERS)[K]['rule'] },
);

/** The tests of the filters of one parameter each that the query gives, in the table's order. */
export function filterTests(query: ListQuery, context: FilterContext): EntryTest[] {
  const tests: EntryTest[] = [];
  for (const [name, p] of Object.entries(PARAMETERS) as unknown as [ParameterName, Parameter<Rule>][]) {
    const value = query[name];
    if (p.test !== undefined && value !== undefined) tests.push(p.test(value, context));
  }
  return tests;
}

/** The integer parameters (a watch answers them as JSON numbers). */
export const INTEGER_PARAMETERS: ReadonlySet<string> = new Set(
  Object.entries(PARAMETERS).flatMap(([name, p]) => (isIntegerRule(p.rule) ? [name] : [])),
);

/** The true/false parameters (a watch answers them as JSON booleans). */
export const FLAG_PARAMETERS: ReadonlySet<string> = new Set(Object.entries(PARAMETERS).flatMap(([name, p]) => (p.rule === flag ? [name] : [])));

/** Each parameter's value as JSON (the MCP search tool's arguments, src/mcp/), from its rule. */
export const PARAMETER_SHAPES: Readonly<Record<string, ValueShape>> = Object.fromEntries(
  Object.entries(PARAMETERS).map(([name, p]) => [name, shapeOf(p.rule)]),
);

/** The names of the query parameters the list operation reads. */
export const LIST_QUERY_FIELDS = Object.keys(ListQueryFields.entries) as readonly (keyof ListQuery)[];

export const ListQuerySchema = v.pipe(
  ListQueryFields,
  v.forward(
    v.check((q) => q.offsetDays === 0 || q.depDate !== undefined, 'a non-zero value requires depDate'),
    ['offsetDays'],
  ),
  v.forward(v.check((q) => q.depRadiusKm === undefined || q.depNear !== undefined, 'requires depNear'), ['depRadiusKm']),
  v.forward(v.check((q) => q.arrRadiusKm === undefined || q.arrNear !== undefined, 'requires arrNear'), ['arrRadiusKm']),
  v.forward(v.check((q) => q.tripFrom === undefined || q.tripTo !== undefined, 'requires tripTo'), ['tripFrom']),
  v.forward(v.check((q) => q.tripTo === undefined || q.tripFrom !== undefined, 'requires tripFrom'), ['tripTo']),
  v.forward(v.check((q) => q.maxDetourPct === undefined || q.tripFrom !== undefined, 'requires tripFrom and tripTo'), ['maxDetourPct']),
  v.forward(v.check((q) => q.sort !== 'detour' || q.tripFrom !== undefined, 'detour requires tripFrom and tripTo'), ['sort']),
  v.forward(v.check((q) => q.minPrice === undefined || q.currency !== undefined, 'requires currency'), ['minPrice']),
  v.forward(v.check((q) => q.maxPrice === undefined || q.currency !== undefined, 'requires currency'), ['maxPrice']),
  v.forward(v.check((q) => q.minPrice === undefined || q.maxPrice === undefined || q.minPrice <= q.maxPrice, 'must not be above maxPrice'), ['minPrice']),
  v.forward(v.check((q) => (q.sort !== 'price' && q.sort !== '-price') || q.currency !== undefined, 'price and -price require currency'), ['sort']),
);

/** A parsed query: page and size clamped, dates checked, city names folded, airport codes typed. */
export type ListQuery = v.InferOutput<typeof ListQuerySchema>;

/** Parses the query string parameters of a v2 event (unknown parameters are ignored). */
export function parseListQuery(params: Readonly<Record<string, string | undefined>> | undefined): ListQuery {
  const input: Record<string, string | undefined> = {};
  for (const key of LIST_QUERY_FIELDS) input[key] = params?.[key];
  const result = v.safeParse(ListQuerySchema, input, { abortPipeEarly: true });
  if (!result.success) {
    const issue = result.issues[0];
    const parameter = issue.path?.map((p) => String(p.key)).join('.') ?? 'query';
    throw invalidParameter(parameter, issue.message);
  }
  return result.output;
}
