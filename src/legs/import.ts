import * as v from 'valibot';
import { addDays, dateInZone, isCalendarDate, isTimeZone } from './dates.js';
import { AMENITY_TYPES, EMPTY_LEG_FIELDS, type Amenity } from './model.js';
import { LISTING_HORIZON_DAYS, type StoredLeg } from './storage.js';

/**
 * The import format (docs/import-format.md): a JSON array or NDJSON of
 * records in the API's EmptyLeg shape plus `listed`, `blocked`, `depTimezone`, and optionally
 * `departureAt` instead of `startDate`. Everything here is pure: text in, legs and errors out.
 */

/** A record as written in an import file (what the demo generator produces). */
export interface ImportRecord {
  id: string;
  /** Give exactly one of startDate and departureAt. */
  startDate?: string;
  /** ISO 8601 instant with an offset or Z; startDate becomes its date in depTimezone. */
  departureAt?: string;
  endDate: string;
  depCityName: string;
  depAirportName?: string | null;
  depAirportIcao?: string | null;
  depAirportIata?: string | null;
  depCountryName?: string | null;
  depCountryCode?: string | null;
  arrCityName: string;
  arrAirportName?: string | null;
  arrAirportIcao?: string | null;
  arrAirportIata?: string | null;
  arrCountryName?: string | null;
  arrCountryCode?: string | null;
  airlineName?: string | null;
  aircraftModelName?: string | null;
  aircraftType?: string | null;
  registration?: string | null;
  aircraftImg?: string | null;
  makeYear?: number | null;
  renovateYear?: number | null;
  seatNum?: number | null;
  price?: number | null;
  currency?: string | null;
  amenities?: Amenity[] | null;
  listed?: boolean;
  blocked?: boolean;
  depTimezone?: string;
}

/** Where a record sits: `index` (0-based) in a JSON array, `line` (1-based) in NDJSON. */
export interface RecordPosition {
  kind: 'index' | 'line';
  n: number;
}

export interface ImportError {
  /** The record (or, for a JSON syntax error, the line); null for the file as a whole. */
  at: RecordPosition | null;
  /** The field, e.g. `depAirportIcao` or `amenities[1].amenityName`; null for the whole record. */
  field: string | null;
  /** The rule broken, e.g. `must be 4 letters (ICAO), got "EGL"`. */
  rule: string;
  /** One line: `line 13: depAirportIcao: must be 4 letters (ICAO), got "EGL"`. */
  message: string;
}

export interface ImportResult {
  /** The valid legs, in file order. */
  legs: StoredLeg[];
  /** Every error, in file order. */
  errors: ImportError[];
  /** Records found in the file (valid or not). */
  records: number;
  /** Records refused (each has at least one error). */
  invalidRecords: number;
  /** True when the file as a whole could not be read (e.g. broken JSON array): nothing is usable. */
  fatal: boolean;
  format: 'json' | 'ndjson';
}

export interface ImportOptions {
  /** The load day, `yyyy-MM-dd` (UTC): the listing horizon and the year limits count from it. */
  today: string;
}

// ---------------------------------------------------------------------------------------------
// Reference data

/**
 * ISO 3166-1 alpha-2: the 249 officially assigned codes, plus `XK` (Kosovo; user-assigned, but the
 * code the EU, SWIFT and aviation data use for Pristina). Refused: exceptionally or transitionally
 * reserved and non-country codes that Intl also names (EU, UN, EZ, UK, AC, IC, TA, DG, EA, CP, CQ,
 * FX, QO, ZZ, XA, XB, and withdrawn codes such as AN, CS, SU, YU). A fixed list, so the rule does
 * not move with the ICU version of the runtime.
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
export const MIN_YEAR = 1950;
export const MAX_SEATS = 850;
export const MAX_PRICE = 100_000_000;
export const MAX_AMENITIES = 20;

/** Every field a record may carry. */
export const IMPORT_FIELDS = [
  ...EMPTY_LEG_FIELDS,
  'departureAt',
  'listed',
  'blocked',
  'depTimezone',
] as const;

// ---------------------------------------------------------------------------------------------
// Small pure helpers

/** C0 and C1 control characters and DEL (the index joins fields with U+001F), or a lone surrogate. */
const BAD_CHARACTER = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;

/** A value as it appears in a message: JSON, cut short. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  let s: string | undefined;
  try {
    s = JSON.stringify(value);
  } catch {
    s = undefined;
  }
  s ??= `a ${typeof value}`;
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an ISO 8601 instant that carries its offset (`Z` or `±hh:mm`), e.g.
 * `2026-03-01T23:30:00-05:00`. Returns epoch milliseconds, or undefined when the text is not one
 * (a real calendar date, hours 00-23, minutes and seconds 00-59, offset at most ±18:00).
 */
export function parseInstant(text: string): number | undefined {
  const m = INSTANT.exec(text);
  if (!m) return undefined;
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  if (!isCalendarDate(date)) return undefined;
  const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? '0')];
  if (h > 23 || mi > 59 || s > 59) return undefined;
  const ms = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  let offsetMinutes = 0;
  if (!m[8]) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (om > 59 || oh * 60 + om > 18 * 60) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), h, mi, s, ms) - offsetMinutes * 60_000;
}

/** An IANA zone name the runtime knows (`Europe/Paris`, `UTC`); plain offsets are refused. */
export function isIanaTimeZone(value: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(value) && isTimeZone(value);
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

function unknownFieldRule(name: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  const hint = best !== undefined && bestDistance <= 3 ? ` (did you mean ${best}?)` : '';
  return `is not a field of the import format${hint}`;
}

// ---------------------------------------------------------------------------------------------
// The record schema

type Issue = v.BaseIssue<unknown>;
const got =
  (rule: string) =>
  (issue: Issue): string =>
    `${rule}, got ${show(issue.input)}`;

/** A string: trimmed, not blank, at most `max` characters, no control characters. */
function text(max: number, nullable: boolean) {
  const what = nullable ? 'must be a string or null' : 'must be a string';
  return v.pipe(
    v.string(got(what)),
    v.trim(),
    v.minLength(1, nullable ? 'must not be blank (use null, or leave the field out, when unknown)' : 'must not be blank'),
    v.maxLength(max, (i) => `must be at most ${max} characters, got ${i.received.replace(/"/g, '')}`),
    v.check((s) => !BAD_CHARACTER.test(s), got('must not contain control characters')),
  );
}

function code(pattern: RegExp, rule: string) {
  return v.pipe(v.string(got('must be a string or null')), v.trim(), v.regex(pattern, got(rule)), v.toUpperCase());
}

function integer(min: number, max: number, rule: string) {
  return v.pipe(
    v.number(got('must be a number or null')),
    v.integer(got(rule)),
    v.minValue(min, got(rule)),
    v.maxValue(max, got(rule)),
  );
}

const icao = code(/^[A-Za-z]{4}$/, 'must be 4 letters (ICAO)');
const iata = code(/^[A-Za-z]{3}$/, 'must be 3 letters (IATA)');
const country = v.pipe(
  code(/^[A-Za-z]{2}$/, 'must be 2 letters (ISO 3166-1 alpha-2)'),
  v.check((c) => COUNTRY_CODES.has(c), got('must be an ISO 3166-1 alpha-2 country code')),
);
const currency = v.pipe(
  code(/^[A-Za-z]{3}$/, 'must be 3 letters (ISO 4217)'),
  v.check((c) => CURRENCY_CODES.has(c), got('must be an ISO 4217 currency code')),
);
const calendarDate = v.pipe(
  v.string(got('must be a string')),
  v.check(isCalendarDate, got('must be a real calendar date yyyy-MM-dd')),
);
const instant = v.pipe(
  v.string(got('must be a string')),
  v.check(
    (s) => parseInstant(s) !== undefined,
    got('must be an ISO 8601 instant with an offset or Z, e.g. 2026-03-01T23:30:00-05:00'),
  ),
);
const timeZone = v.pipe(
  v.string(got('must be a string')),
  v.trim(),
  v.check(isIanaTimeZone, got('must be an IANA time zone such as Europe/Paris (not an offset)')),
);
const httpsUrl = v.pipe(
  text(2048, true),
  v.check((s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'https:' && u.hostname !== '' && !/\s/.test(s);
    } catch {
      return false;
    }
  }, got('must be an https URL')),
);
const registration = v.pipe(
  text(12, true),
  v.regex(/^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/, got('must be letters and digits, optionally joined by -')),
  v.toUpperCase(),
);
const amenity = v.strictObject(
  {
    amenityType: v.picklist(AMENITY_TYPES, got(`must be one of ${AMENITY_TYPES.join(', ')}`)),
    amenityName: text(100, false),
    amenityDesc: text(500, false),
  },
  (issue) => objectRule(issue, ['amenityType', 'amenityName', 'amenityDesc'], 'must be an object'),
);

function objectRule(issue: Issue, known: readonly string[], typeRule: string): string {
  if (issue.expected === 'never') return unknownFieldRule(String(issue.input), known);
  if (issue.input === undefined && issue.path?.length) return 'is required';
  return `${typeRule}, got ${show(issue.input)}`;
}

function buildSchema(today: string) {
  const maxYear = Number(today.slice(0, 4)) + 1;
  const horizon = addDays(today, LISTING_HORIZON_DAYS);
  const yearRule = `must be a whole year from ${MIN_YEAR} to ${maxYear}`;
  const nullish = <T extends v.GenericSchema>(schema: T) => v.nullish(schema, null);
  const entries = {
    id: v.pipe(v.string(got('must be a string')), v.regex(ID_PATTERN, got('must be 1-64 of A-Z a-z 0-9 _ -'))),
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
    aircraftType: nullish(text(100, true)),
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
    depTimezone: v.optional(timeZone, 'UTC'),
  };
  const known = Object.keys(entries);

  const objectSchema = v.strictObject(entries, (issue) => objectRule(issue, known, 'must be a JSON object'));
  type Rec = v.InferOutput<typeof objectSchema>;

  // Computed once per record (the checks below and the transform all need it).
  const starts = new WeakMap<object, string | undefined>();
  /** The leg's startDate: given, or the date of departureAt in depTimezone. */
  const effectiveStart = (r: Rec): string | undefined => {
    if (r.startDate !== undefined || r.departureAt === undefined) return r.startDate;
    if (starts.has(r)) return starts.get(r);
    const start = dateInZone(new Date(parseInstant(r.departureAt)!), r.depTimezone);
    starts.set(r, start);
    return start;
  };

  /**
   * A rule across fields, reported on `target`. It runs only when the fields it reads passed their
   * own rules (valibot's partialCheck also runs after a failed validation of a well-typed field).
   */
  const crossCheck = (
    reads: readonly (keyof Rec)[],
    target: keyof Rec,
    holds: (r: Rec) => boolean,
    message: (r: Rec) => string,
  ) =>
    v.rawCheck<Rec>(({ dataset, addIssue }) => {
      const blocked = dataset.issues?.some((issue) => {
        const key = issue.path?.[0]?.key;
        return key === undefined || reads.includes(key as keyof Rec);
      });
      if (blocked) return;
      const r = dataset.value as Rec;
      if (holds(r)) return;
      addIssue({
        message: message(r),
        path: [{ type: 'object', origin: 'value', input: r, key: target, value: r[target] }],
      });
    });

  return v.pipe(
    objectSchema,
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
      const amenities = r.amenities.map((a) => ({
        amenityType: a.amenityType,
        amenityName: a.amenityName,
        amenityDesc: a.amenityDesc,
      }));
      return {
        id: r.id,
        startDate: effectiveStart(r)!,
        endDate: r.endDate,
        depCityName: r.depCityName,
        depAirportName: r.depAirportName,
        depAirportIcao: r.depAirportIcao,
        depAirportIata: r.depAirportIata,
        depCountryName: r.depCountryName,
        depCountryCode: r.depCountryCode,
        arrCityName: r.arrCityName,
        arrAirportName: r.arrAirportName,
        arrAirportIcao: r.arrAirportIcao,
        arrAirportIata: r.arrAirportIata,
        arrCountryName: r.arrCountryName,
        arrCountryCode: r.arrCountryCode,
        airlineName: r.airlineName,
        aircraftModelName: r.aircraftModelName,
        aircraftType: r.aircraftType,
        registration: r.registration,
        aircraftImg: r.aircraftImg,
        makeYear: r.makeYear,
        renovateYear: r.renovateYear,
        seatNum: r.seatNum,
        price: r.price,
        currency: r.currency,
        amenities,
        listed: r.listed,
        blocked: r.blocked,
        depTimezone: r.depTimezone,
      };
    }),
  );
}

type RecordSchema = ReturnType<typeof buildSchema>;
const schemas = new Map<string, RecordSchema>();

/** The valibot schema of one import record for a load day (cached per day). */
export function importRecordSchema(today: string): RecordSchema {
  if (!isCalendarDate(today)) throw new Error(`today must be a calendar date yyyy-MM-dd, got ${show(today)}`);
  let schema = schemas.get(today);
  if (!schema) {
    schema = buildSchema(today);
    schemas.set(today, schema);
  }
  return schema;
}

// ---------------------------------------------------------------------------------------------
// Validation of records

export interface FieldIssue {
  field: string | null;
  rule: string;
}

export type RecordResult = { ok: true; leg: StoredLeg } | { ok: false; issues: FieldIssue[] };

function fieldOf(issue: Issue): string | null {
  let field = '';
  for (const item of issue.path ?? []) {
    const key = (item as { key: unknown }).key;
    if (typeof key === 'number') field += `[${key}]`;
    else field += field === '' ? String(key) : `.${String(key)}`;
  }
  return field === '' ? null : field;
}

/**
 * Validates one record. Every broken field is reported, with the first rule it breaks (a field
 * that fails keeps the cross-field rules that involve it from running, so there is no echo).
 */
export function validateImportRecord(record: unknown, options: ImportOptions): RecordResult {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    return { ok: false, issues: [{ field: null, rule: `must be a JSON object, got ${show(record)}` }] };
  }
  const result = v.safeParse(importRecordSchema(options.today), record);
  if (result.success) return { ok: true, leg: result.output };
  const seen = new Set<string | null>();
  const issues: FieldIssue[] = [];
  for (const issue of result.issues) {
    const field = fieldOf(issue);
    // The whole-record issues (not an object) are kept once; per field, the first rule wins.
    if (seen.has(field)) continue;
    seen.add(field);
    issues.push({ field, rule: issue.message });
  }
  return { ok: false, issues };
}

export function describePosition(at: RecordPosition): string {
  return `${at.kind} ${at.n}`;
}

function importError(at: RecordPosition | null, field: string | null, rule: string): ImportError {
  const where = at ? describePosition(at) : 'file';
  return { at, field, rule, message: field ? `${where}: ${field}: ${rule}` : `${where}: ${rule}` };
}

/**
 * Validates parsed records. `positions[i]` says where record i sits in its file (default: index i).
 * Refuses duplicate ids (every occurrence, naming the others). Legs come back in input order.
 */
export function validateImportRecords(
  records: readonly unknown[],
  options: ImportOptions & { positions?: readonly RecordPosition[] },
): Omit<ImportResult, 'format' | 'fatal'> {
  const positionOf = (i: number): RecordPosition => options.positions?.[i] ?? { kind: 'index', n: i };
  const byId = new Map<string, number[]>();
  records.forEach((r, i) => {
    const id = typeof r === 'object' && r !== null ? (r as { id?: unknown }).id : undefined;
    if (typeof id === 'string' && ID_PATTERN.test(id)) {
      const list = byId.get(id);
      if (list) list.push(i);
      else byId.set(id, [i]);
    }
  });

  const legs: StoredLeg[] = [];
  const errors: ImportError[] = [];
  let invalidRecords = 0;
  records.forEach((record, i) => {
    const at = positionOf(i);
    const recordErrors: ImportError[] = [];
    const result = validateImportRecord(record, options);
    if (!result.ok) for (const issue of result.issues) recordErrors.push(importError(at, issue.field, issue.rule));
    const id = (record as { id?: unknown } | null)?.id;
    const same = typeof id === 'string' ? byId.get(id) : undefined;
    if (same && same.length > 1) {
      const others = same.filter((j) => j !== i).map((j) => describePosition(positionOf(j)));
      recordErrors.push(importError(at, 'id', `duplicate id ${show(id)}, also at ${others.join(', ')}`));
    }
    if (recordErrors.length > 0) {
      invalidRecords += 1;
      errors.push(...recordErrors);
    } else if (result.ok) {
      legs.push(result.leg);
    }
  });
  return { legs, errors, records: records.length, invalidRecords };
}

// ---------------------------------------------------------------------------------------------
// Reading the text of a file

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Finds the first JSON syntax error in `text` (V8's messages do not always carry a position).
 * Returns its offset and a short reason, or undefined when the text is valid JSON.
 */
export function findJsonSyntaxError(
  text: string,
  unit: 'file' | 'line' = 'file',
): { offset: number; reason: string } | undefined {
  let i = 0;
  class Stop extends Error {
    constructor(
      readonly offset: number,
      readonly reason: string,
    ) {
      super(reason);
    }
  }
  const fail = (reason?: string): never => {
    if (i >= text.length) throw new Stop(text.length, `unexpected end of ${unit}`);
    throw new Stop(i, reason ?? `unexpected character ${JSON.stringify(text[i])}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail();
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail('control character in a string (a line break inside a string must be written \\n)');
      if (c === 0x5c) {
        i++;
        const e = text[i];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('bad \\u escape');
          i += 5;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else fail('bad escape in a string');
      } else i++;
    }
  };
  const number = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '-' || m[0] === '') fail();
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(text[i] === '}' ? 'trailing comma before }' : 'expected a "quoted" field name');
        string();
        ws();
        if (text[i] !== ':') fail("expected ':' after a field name");
        i++;
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail("expected ',' or '}'");
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] === ']') fail('trailing comma before ]');
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail("expected ',' or ']'");
      }
    } else if (c === '"') string();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) number();
    else fail();
  };
  try {
    value();
    ws();
    if (i < text.length) fail('unexpected text after the end of the JSON value');
    return undefined;
  } catch (err) {
    if (err instanceof Stop) return { offset: err.offset, reason: err.reason };
    throw err;
  }
}

function jsonError(text: string, err: unknown, unit: 'file' | 'line'): { line: number; rule: string } {
  const found = findJsonSyntaxError(text, unit);
  if (found) {
    const { line, column } = lineColumn(text, found.offset);
    return { line, rule: `invalid JSON at column ${column}: ${found.reason}` };
  }
  return { line: 1, rule: `invalid JSON: ${err instanceof Error ? err.message : String(err)}` };
}

/**
 * Parses and validates the text of an import file. A text whose first non-blank character is `[`
 * is a JSON array (positions are 0-based indexes); anything else is NDJSON (one object per line,
 * blank lines allowed, positions are 1-based lines). A broken JSON array is one fatal error with
 * its line and column; a broken NDJSON line is an error of that line only.
 */
export function parseImportText(text: string, options: ImportOptions): ImportResult {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = /\S/.exec(body);
  if (first?.[0] === '[') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      const { line, rule } = jsonError(body, err, 'file');
      return {
        legs: [],
        errors: [importError({ kind: 'line', n: line }, null, rule)],
        records: 0,
        invalidRecords: 0,
        fatal: true,
        format: 'json',
      };
    }
    const records = parsed as unknown[];
    return { ...validateImportRecords(records, options), fatal: false, format: 'json' };
  }

  const lines = body.split(/\r?\n/);
  const records: unknown[] = [];
  const positions: RecordPosition[] = [];
  const lineErrors: ImportError[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const record: unknown = JSON.parse(line);
      records.push(record);
      positions.push({ kind: 'line', n: i + 1 });
    } catch (err) {
      const { rule } = jsonError(line, err, 'line');
      lineErrors.push(importError({ kind: 'line', n: i + 1 }, null, rule));
    }
  });

  // A pretty-printed JSON object (not an array) fails on every line: say what the format is.
  if (lineErrors.length > 0 && records.length === 0 && first?.[0] === '{') {
    try {
      JSON.parse(body);
      return {
        legs: [],
        errors: [importError(null, null, 'a JSON file must be an array of records ([...]); NDJSON has one record per line')],
        records: 0,
        invalidRecords: 0,
        fatal: true,
        format: 'json',
      };
    } catch {
      // not one JSON value either: report the lines
    }
  }

  const result = validateImportRecords(records, { ...options, positions });
  const errors = [...lineErrors, ...result.errors].sort(
    (a, b) => (a.at?.n ?? 0) - (b.at?.n ?? 0),
  );
  return {
    legs: result.legs,
    errors,
    records: result.records + lineErrors.length,
    invalidRecords: result.invalidRecords + lineErrors.length,
    fatal: false,
    format: 'ndjson',
  };
}
