import * as v from 'valibot';
import { addDays, dateInZone, isCalendarDate } from '../../kernel/dates.js';
import { EMPTY_LEG_FIELDS, type EmptyLegField } from '../../kernel/model.js';

import { DEFAULT_SOURCE, SOURCE_PATTERN, SOURCE_RULE } from '../../kernel/source.js';
import { LISTING_HORIZON_DAYS, type StoredLeg } from '../../kernel/leg-item.js';
import { airportReference, type Airport, type AirportIndex } from '../../airports/index.js';
import { departureZone, fillFromAirport, resolveAirport, type AirportIssue } from './airports.js';
import { parseInstant } from './instant.js';
import { ID_PATTERN, RESERVED_IDS, RESERVED_ID_RULE, MAX_AMENITIES, MAX_PRICE, MAX_SEATS, MIN_YEAR } from './reference-data.js';
import { show } from './show.js';

import { aircraftCategory, amenity, calendarDate, depTime, type ExtraField, country, currency, got, httpsUrl, iata, icao, instant, integer, objectRule, registration, text, timeZone } from './schema-fields.js';

/**
 * The valibot schema of one import record: the API's EmptyLeg fields (each with the rule it must
 * follow) plus `departureAt`, `listed`, `blocked`, `sold`, `depTimezone` and `source`. The rules are keyed by the one
 * field list of src/kernel/model.ts, so a field added there and not here fails to compile.
 */

function buildSchema(today: string, airports: AirportIndex, allowUnknown: boolean, allowUnknownCategories: boolean) {
  const maxYear = Number(today.slice(0, 4)) + 1;
  const horizon = addDays(today, LISTING_HORIZON_DAYS);
  const yearRule = `must be a whole year from ${MIN_YEAR} to ${maxYear}`;
  const nullish = <T extends v.GenericSchema>(schema: T) => v.nullish(schema, null);
  const entries = {
    id: v.pipe(
      v.string(got('must be a string')),
      v.regex(ID_PATTERN, got('must be 1-64 of A-Z a-z 0-9 _ -')),
      v.check((id) => !RESERVED_IDS.has(id), got(RESERVED_ID_RULE)),
    ),
    startDate: v.optional(calendarDate),
    departureAt: v.optional(instant),
    endDate: calendarDate,
    depCityName: text(100, false),
    depAirportName: nullish(text(200, true)),
    depAirportIcao: nullish(icao),
    depAirportIata: nullish(iata),
    depCountryName: nullish(text(100, true)),
    depCountryCode: nullish(country),
    arrCityName: text(100, false),
    arrAirportName: nullish(text(200, true)),
    arrAirportIcao: nullish(icao),
    arrAirportIata: nullish(iata),
    arrCountryName: nullish(text(100, true)),
    arrCountryCode: nullish(country),
    airlineName: nullish(text(200, true)),
    aircraftModelName: nullish(text(100, true)),
    aircraftType: nullish(aircraftCategory(allowUnknownCategories)),
    registration: nullish(registration),
    aircraftImg: nullish(httpsUrl),
    makeYear: nullish(integer(MIN_YEAR, maxYear, yearRule)),
    renovateYear: nullish(integer(MIN_YEAR, maxYear, yearRule)),
    seatNum: nullish(integer(1, MAX_SEATS, `must be a whole number from 1 to ${MAX_SEATS}`)),
    price: nullish(
      v.pipe(
        v.number(got('must be a number or null')),
        v.finite(got('must be a finite number')),
        v.minValue(0, got('must not be negative')),
        v.maxValue(MAX_PRICE, got(`must be at most ${MAX_PRICE}`)),
      ),
    ),
    currency: nullish(currency),
    amenities: v.nullish(
      v.pipe(
        v.array(amenity, got('must be an array of amenities')),
        v.maxLength(MAX_AMENITIES, (i) => `must hold at most ${MAX_AMENITIES} amenities, got ${i.received}`),
      ),
      [],
    ),
    listed: v.optional(v.boolean(got('must be true or false')), true),
    blocked: v.optional(v.boolean(got('must be true or false')), false),
    sold: v.optional(v.boolean(got('must be true or false')), false),
    depTimezone: v.optional(timeZone),
    source: v.optional(v.pipe(v.string(got('must be a string')), v.regex(SOURCE_PATTERN, got(SOURCE_RULE))), DEFAULT_SOURCE),
    depTimeFrom: v.optional(depTime),
    depTimeTo: v.optional(depTime),
  } satisfies Record<EmptyLegField | ExtraField, v.GenericSchema>;
  const known = Object.keys(entries);

  const objectSchema = v.strictObject(entries, (issue) => objectRule(issue, known, 'must be a JSON object'));
  type Rec = v.InferOutput<typeof objectSchema>;

  /** A record's airports and departure zone (src/loading/import/airports.ts), or why they are refused. */
  interface Places {
    dep: Airport | undefined;
    arr: Airport | undefined;
    /** Undefined when refused (then `issues` says why). */
    zone: string | undefined;
    issues: AirportIssue[];
  }
  // Computed once per record (the checks below and the transform all need them).
  const places = new WeakMap<object, Places>();
  const placesOf = (r: Rec): Places => {
    let p = places.get(r);
    if (p === undefined) {
      const options = { airports, allowUnknown };
      const dep = resolveAirport(r, 'dep', options);
      const arr = resolveAirport(r, 'arr', options);
      const issues = [...dep.issues, ...arr.issues];
      let zone: string | undefined;
      // A refused departure code leaves the zone undecided (its issue says why).
      if (dep.issues.length === 0) {
        const instant = r.departureAt !== undefined ? parseInstant(r.departureAt)! : Date.parse(`${r.startDate}T12:00:00Z`);
        const found = departureZone(r, dep.airport, r.depTimezone, instant, airports);
        if ('zone' in found) zone = found.zone;
        else issues.push(found.issue);
      }
      places.set(r, (p = { dep: dep.airport, arr: arr.airport, zone, issues }));
    }
    return p;
  };
  const starts = new WeakMap<object, string | undefined>();
  /** The leg's startDate: given, or the date of departureAt in the departure's zone (undefined while that is unknown). */
  const effectiveStart = (r: Rec): string | undefined => {
    if (r.startDate !== undefined || r.departureAt === undefined) return r.startDate;
    if (starts.has(r)) return starts.get(r);
    const zone = placesOf(r).zone;
    const start = zone === undefined ? undefined : dateInZone(new Date(parseInstant(r.departureAt)!), zone);
    starts.set(r, start);
    return start;
  };

  /** The fields the airport checks read: they run once these passed their own rules. */
  const PLACE_FIELDS = [
    'depCityName', 'depAirportIcao', 'depAirportIata', 'depCountryCode',
    'arrCityName', 'arrAirportIcao', 'arrAirportIata', 'arrCountryCode',
    'depTimezone', 'startDate', 'departureAt',
  ] as const satisfies readonly (keyof Rec)[];
  /**
   * Rules across fields: `issuesOf` gives each broken one, reported on its field. They run only when
   * the fields they read passed their own rules (valibot's partialCheck also runs after a failed
   * validation of a well-typed field), so a broken field is reported once, not echoed.
   */
  const fieldsCheck = (reads: readonly (keyof Rec)[], issuesOf: (r: Rec) => readonly { field: keyof Rec; rule: string }[]) =>
    v.rawCheck<Rec>(({ dataset, addIssue }) => {
      const blocked = dataset.issues?.some((issue) => {
        const key = issue.path?.[0]?.key;
        return key === undefined || reads.includes(key as keyof Rec);
      });
      if (blocked) return;
      const r = dataset.value as Rec;
      for (const { field, rule } of issuesOf(r)) {
        addIssue({ message: rule, path: [{ type: 'object', origin: 'value', input: r, key: field, value: r[field] }] });
      }
    });

  /** One rule across fields, reported on `target`. */
  const crossCheck = (reads: readonly (keyof Rec)[], target: keyof Rec, holds: (r: Rec) => boolean, message: (r: Rec) => string) =>
    fieldsCheck(reads, (r) => (holds(r) ? [] : [{ field: target, rule: message(r) }]));

  /** The airport checks (src/loading/import/airports.ts), once the record has a start date or departure. */
  const placesCheck = fieldsCheck(PLACE_FIELDS, (r) => (r.startDate === undefined && r.departureAt === undefined ? [] : placesOf(r).issues));

  return v.pipe(
    objectSchema,
    placesCheck,
    crossCheck(
      ['startDate', 'departureAt'],
      'departureAt',
      (r) => !(r.startDate !== undefined && r.departureAt !== undefined),
      () => 'give either startDate or departureAt, not both',
    ),
    crossCheck(
      ['startDate', 'departureAt'],
      'startDate',
      (r) => r.startDate !== undefined || r.departureAt !== undefined,
      () => 'is required (or give departureAt instead)',
    ),
    crossCheck(
      ['startDate', 'departureAt', 'depTimezone', 'endDate'],
      'endDate',
      (r) => {
        const start = effectiveStart(r);
        return start === undefined || r.endDate >= start;
      },
      (r) => `must not be before startDate ${effectiveStart(r)}, got ${show(r.endDate)}`,
    ),
    crossCheck(
      ['startDate', 'departureAt', 'depTimezone'],
      'startDate',
      (r) => {
        const start = effectiveStart(r);
        return start === undefined || start <= horizon;
      },
      (r) =>
        `${effectiveStart(r)} is more than ${LISTING_HORIZON_DAYS} days after today (${today}): ` +
        `the listing only reads ${LISTING_HORIZON_DAYS} days ahead, load this leg later`,
    ),
    crossCheck(
      ['startDate', 'departureAt', 'depTimezone', 'endDate', 'depTimeFrom', 'depTimeTo'],
      'depTimeTo',
      (r) => r.depTimeFrom === undefined || r.depTimeTo === undefined || effectiveStart(r) !== r.endDate || r.depTimeTo >= r.depTimeFrom,
      (r) => `must not be before depTimeFrom ${r.depTimeFrom} on a one-day leg, got ${show(r.depTimeTo)}`,
    ),
    crossCheck(
      ['makeYear', 'renovateYear'],
      'renovateYear',
      (r) => r.makeYear === null || r.renovateYear === null || r.renovateYear >= r.makeYear,
      (r) => `must not be before makeYear ${r.makeYear}, got ${r.renovateYear}`,
    ),
    crossCheck(
      ['price', 'currency'],
      'currency',
      (r) => r.price === null || r.currency !== null,
      () => 'is required when price is given',
    ),
    v.transform((r): StoredLeg => {
      const leg: Record<string, unknown> = {};
      for (const field of EMPTY_LEG_FIELDS) leg[field] = r[field];
      leg.startDate = effectiveStart(r)!;
      leg.amenities = r.amenities.map(({ amenityType, amenityName, amenityDesc }) => ({ amenityType, amenityName, amenityDesc }));
      leg.listed = r.listed;
      leg.blocked = r.blocked;
      if (r.sold) leg.sold = true;
      const { dep, arr, zone } = placesOf(r);
      leg.depTimezone = zone!;
      if (dep) fillFromAirport(leg, 'dep', dep);
      if (arr) fillFromAirport(leg, 'arr', arr);
      leg.source = r.source;
      if (r.depTimeFrom !== undefined) leg.depTimeFrom = r.depTimeFrom;
      if (r.depTimeTo !== undefined) leg.depTimeTo = r.depTimeTo;
      return leg as unknown as StoredLeg;
    }),
  );
}

export type RecordSchema = ReturnType<typeof buildSchema>;

/** A record as written in an import file (what the demo generator produces). */
export type ImportRecord = v.InferInput<RecordSchema>;
const schemas = new WeakMap<AirportIndex, Map<string, RecordSchema>>();

export interface SchemaOptions {
  /** The airport reference the codes are checked against (default: the bundled one, src/airports/). */
  airports?: AirportIndex | undefined;
  /** Keep codes the reference does not know, or pairs it gives to two airports (`--allow-unknown-airports`). */
  allowUnknownAirports?: boolean | undefined;
  /** Store an aircraftType that names no category as null (`--allow-unknown-categories`). */
  allowUnknownCategories?: boolean | undefined;
}

/** The valibot schema of one import record for a load day (cached per day, reference and overrides). */
export function importRecordSchema(today: string, options: SchemaOptions = {}): RecordSchema {
  if (!isCalendarDate(today)) throw new Error(`today must be a calendar date yyyy-MM-dd, got ${show(today)}`);
  const airports = options.airports ?? airportReference();
  const allowUnknown = options.allowUnknownAirports === true;
  const allowUnknownCategories = options.allowUnknownCategories === true;
  let byDay = schemas.get(airports);
  if (!byDay) schemas.set(airports, (byDay = new Map<string, RecordSchema>()));
  const key = `${today}|${allowUnknown}|${allowUnknownCategories}`;
  let schema = byDay.get(key);
  if (!schema) byDay.set(key, (schema = buildSchema(today, airports, allowUnknown, allowUnknownCategories)));
  return schema;
}
