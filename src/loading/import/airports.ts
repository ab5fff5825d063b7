import type { Airport, AirportIndex } from '../../airports/index.js';
import { offsetAt } from '../../kernel/leg-item.js';
import { show } from './show.js';

/**
 * The import's airport checks (docs/import-format.md, "Airports"), pure: a record's codes against
 * the airport reference, the departure's time zone, and the fields an airport fills in.
 */
export type Side = 'dep' | 'arr';

/** The fields of a record the checks read (already valid on their own: codes upper-cased). */
export interface PlaceFields {
  depCityName: string;
  depAirportIcao: string | null;
  depAirportIata: string | null;
  depCountryCode: string | null;
  arrCityName: string;
  arrAirportIcao: string | null;
  arrAirportIata: string | null;
  arrCountryCode: string | null;
}

export interface AirportIssue {
  field: keyof PlaceFields | 'depTimezone';
  rule: string;
}

export interface AirportCheckOptions {
  airports: AirportIndex;
  allowUnknown: boolean;
}

const FLAG = '--allow-unknown-airports';

function describe(a: Airport): string {
  const codes = [a.icao, a.iata].filter((c) => c !== null).join('/');
  return `${codes} ${a.name}${a.municipality ? ` (${a.municipality}, ${a.countryCode})` : ` (${a.countryCode})`}`;
}

/**
 * The airport of one side of a record: the one its ICAO code names, else its IATA code's. Issues
 * for codes no airport has and for codes of two airports; the airport is undefined then, and when
 * the record gives no code.
 */
export function resolveAirport(
  record: PlaceFields,
  side: Side,
  options: AirportCheckOptions,
): { airport: Airport | undefined; issues: AirportIssue[] } {
  const icaoField = `${side}AirportIcao` as const;
  const iataField = `${side}AirportIata` as const;
  const icao = record[icaoField];
  const iata = record[iataField];
  const byIcao = icao === null ? undefined : options.airports.byCode(icao);
  const byIata = iata === null ? undefined : options.airports.byCode(iata);
  const issues: AirportIssue[] = [];
  // With the override, the codes stand as given: the ICAO code's airport when it names one (as the
  // listing places a leg by its ICAO code first), else the IATA code's.
  if (options.allowUnknown) return { airport: icao !== null ? byIcao : byIata, issues };
  const near = { city: record[`${side}CityName`], countryCode: record[`${side}CountryCode`] };
  const unknown = (field: typeof icaoField | typeof iataField, code: string, kind: string) => {
    const similar = options.airports.similarCodes(code, near);
    const hint = similar.length > 0 ? ` (did you mean ${similar.map(describe).join(', or ')}?)` : '';
    issues.push({
      field,
      rule: `no airport has the ${kind} code ${show(code)}${hint}; correct it, or load with ${FLAG} if the code is right`,
    });
  };
  if (icao !== null && byIcao === undefined) unknown(icaoField, icao, 'ICAO');
  if (iata !== null && byIata === undefined) unknown(iataField, iata, 'IATA');
  if (byIcao !== undefined && byIata !== undefined && byIcao !== byIata) {
    issues.push({
      field: iataField,
      rule:
        `${show(iata)} is ${describe(byIata)}, but ${icaoField} ${show(icao)} is ${describe(byIcao)}: ` +
        `give the codes of one airport (or load with ${FLAG} if both are right)`,
    });
  }
  return { airport: issues.length > 0 ? undefined : (byIcao ?? byIata), issues };
}

/** `UTC+01:00`, the zone's offset at `instant` (the expiry's offsetAt, src/kernel/leg-item.ts). */
export function utcOffsetAt(timeZone: string, instant: number): string {
  const minutes = offsetAt(instant, timeZone) / 60_000;
  const abs = Math.abs(minutes);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `UTC${minutes < 0 ? '-' : '+'}${hhmm}`;
}

/**
 * The departure's time zone, or the issue that says why there is none. `given` is the record's
 * `depTimezone` (undefined when left out); `instant` is the departure (its `departureAt`, or noon
 * UTC of its `startDate`), at which a given zone must have the airport's offset.
 */
export function departureZone(
  record: PlaceFields,
  airport: Airport | undefined,
  given: string | undefined,
  instant: number,
  airports: AirportIndex,
): { zone: string } | { issue: AirportIssue } {
  if (airport !== undefined) {
    if (given === undefined || given === airport.timeZone) return { zone: airport.timeZone };
    const mine = utcOffsetAt(airport.timeZone, instant);
    const theirs = utcOffsetAt(given, instant);
    if (mine === theirs) return { zone: airport.timeZone };
    return {
      issue: {
        field: 'depTimezone',
        rule:
          `${show(given)} (${theirs} at the departure) is not the time zone of ${describe(airport)}, ` +
          `${airport.timeZone} (${mine}); leave depTimezone out, or correct the airport or the zone`,
      },
    };
  }
  if (given !== undefined) return { zone: given };
  const cityZone = airports.cityZone(record.depCityName, record.depCountryCode);
  if (cityZone !== undefined) return { zone: cityZone };
  const codes = record.depAirportIcao ?? record.depAirportIata;
  const why =
    codes !== null
      ? `the departure airport ${show(codes)} is not in the airport reference`
      : 'the record names no departure airport';
  return {
    issue: {
      field: 'depTimezone',
      rule:
        `is required here: ${why}, and ${show(record.depCityName)}${record.depCountryCode ? ` (${record.depCountryCode})` : ''} ` +
        'is not a city whose airports lie in one time zone; give depTimezone (an IANA zone such as Europe/Paris), ' +
        'or the departure airport\'s ICAO or IATA code',
    },
  };
}

/** The fields an airport fills in when the record leaves them empty. */
export const FILLED_FIELDS = ['AirportName', 'AirportIcao', 'AirportIata', 'CountryCode', 'CountryName'] as const;

/** True when `leg` holds an airport field that `record` left empty (it was filled from the airport). */
export function wasFilled(record: Readonly<Record<string, unknown>>, leg: Readonly<Record<string, unknown>>): boolean {
  for (const side of ['dep', 'arr'] as const) {
    for (const field of FILLED_FIELDS) {
      const key = `${side}${field}`;
      if ((record[key] === null || record[key] === undefined) && leg[key] !== null && leg[key] !== undefined) return true;
    }
  }
  return false;
}

/**
 * Fills the side's empty airport name, other code and country from `airport`; what the record
 * gives is kept. True when some field was filled.
 */
export function fillFromAirport(leg: Record<string, unknown>, side: Side, airport: Airport): boolean {
  const values: Record<(typeof FILLED_FIELDS)[number], string | null> = {
    AirportName: airport.name,
    AirportIcao: airport.icao,
    AirportIata: airport.iata,
    CountryCode: airport.countryCode,
    CountryName: airport.countryName,
  };
  let filled = false;
  for (const field of FILLED_FIELDS) {
    const key = `${side}${field}`;
    const value = values[field];
    if ((leg[key] === null || leg[key] === undefined) && value !== null) {
      leg[key] = value;
      filled = true;
    }
  }
  return filled;
}
