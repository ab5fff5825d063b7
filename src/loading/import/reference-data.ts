/** Reference data and limits the import format checks against. */

/**
 * ISO 3166-1 alpha-2: the 249 officially assigned codes plus `XK` (Kosovo), a fixed list; reserved,
 * withdrawn and non-country codes are refused (docs/import-format.md, "Rules, and what the error says").
 */
export const COUNTRY_CODES: ReadonlySet<string> = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV ' +
    'BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET ' +
    'FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM ' +
    'IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ' +
    'ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE ' +
    'PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST ' +
    'SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS ' +
    'XK YE YT ZA ZM ZW'
  ).split(' '),
);

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
