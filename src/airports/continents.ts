import type { AirportIndex } from './reference.js';

/**
 * Continents (docs/airports.md, "Continents"): those of the airport reference's source, OurAirports,
 * whose country table gives each country the continent it primarily lies in. An airport's continent
 * is its country's.
 */
export const CONTINENTS = ['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA'] as const;
export type Continent = (typeof CONTINENTS)[number];

/** A continent's bit: a set of continents is the OR of their bits. */
export const continentBit = (continent: Continent): number => 1 << CONTINENTS.indexOf(continent);

/**
 * OurAirports' `countries.csv` (ourairports.com/data, public domain; as of 2026-11): country code to
 * continent. AX, BV and SJ, which it has no row for, take the continent of where it
 * files their airports (FI, NO: EU) or, for Bouvet Island, Antarctica (AN).
 */
const BY_CONTINENT: Readonly<Record<Continent, string>> = {
  AF:
    'AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW KE KM LR LS LY MA MG ML MR MU MW MZ NA ' +
    'NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TF TG TN TZ UG YT ZA ZM ZW',
  AN: 'AQ BV GS',
  AS:
    'AE AF AM AZ BD BH BN BT CC CN CX CY GE HK ID IL IN IO IQ IR JO JP KG KH KP KR KW KZ LA LB LK MM MN MO MV MY ' +
    'NP OM PH PK PS QA SA SG SY TH TJ TL TM TR TW UZ VN YE',
  EU:
    'AD AL AT AX BA BE BG BY CH CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU LV MC MD ME MK ' +
    'MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA XK',
  NA:
    'AG AI AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS MX NI PA PM PR SV SX TC ' +
    'TT US VC VG VI',
  OC: 'AS AU CK FJ FM GU HM KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TO TV UM VU WF WS',
  SA: 'AR BO BR CL CO EC FK GF GY PE PY SR UY VE',
};

const CONTINENT_OF: ReadonlyMap<string, Continent> = new Map(
  CONTINENTS.flatMap((continent) => BY_CONTINENT[continent].split(' ').map((country) => [country, continent] as const)),
);

/** The continent of an ISO 3166-1 alpha-2 code (upper case); undefined for a code the table lacks. */
export function continentOfCountry(countryCode: string): Continent | undefined {
  return CONTINENT_OF.get(countryCode);
}

/** Per reference: a lower-case airport code to its continent's bit, 0 for a code no airport has. */
const byCode = new WeakMap<AirportIndex, Map<string, number>>();

/** The bit of the continent of the airport with this code (lower case, as index entries hold codes); 0 when none has it. */
export function airportContinentBit(airports: AirportIndex, code: string): number {
  let memo = byCode.get(airports);
  if (memo === undefined) byCode.set(airports, (memo = new Map<string, number>()));
  let bit = memo.get(code);
  if (bit === undefined) {
    const country = code === '' ? undefined : airports.byCode(code)?.countryCode;
    const found = country === undefined ? undefined : continentOfCountry(country);
    memo.set(code, (bit = found === undefined ? 0 : continentBit(found)));
  }
  return bit;
}
