import * as v from 'valibot';
import { isCalendarDate } from '../../kernel/dates.js';
import { AMENITY_TYPES } from '../../kernel/model.js';
import { CATEGORY_LIST, type AircraftCategory } from '../../kernel/aircraft-category.js';
import { categoryOf } from './aircraft-spellings.js';
import { DEP_TIME_PATTERN, DEP_TIME_RULE } from '../../kernel/leg/departure.js';




import { isIanaTimeZone, parseInstant } from './instant.js';
import { COUNTRY_CODES, CURRENCY_CODES } from './reference-data.js';
import { show } from './show.js';
import { unknownFieldRule } from './suggest.js';

/** The fields an import record has besides an EmptyLeg's. */
export type ExtraField = 'departureAt' | 'listed' | 'blocked' | 'sold' | 'depTimezone' | 'source' | 'depTimeFrom' | 'depTimeTo';

/** C0 and C1 control characters and DEL (the index joins fields with U+001F), or a lone surrogate. */
export const BAD_CHARACTER = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;

type Issue = v.BaseIssue<unknown>;
export const got =
  (rule: string) =>
  (issue: Issue): string =>
    `${rule}, got ${show(issue.input)}`;

/** A departure time, `HH:mm` local to the departure airport (src/kernel/leg/departure.ts). */
export const depTime = v.pipe(v.string(got('must be a string')), v.regex(DEP_TIME_PATTERN, got(DEP_TIME_RULE)));

/** A string: trimmed, not blank, at most `max` characters, no control characters. */
export function text(max: number, nullable: boolean) {
  const what = nullable ? 'must be a string or null' : 'must be a string';
  return v.pipe(
    v.string(got(what)),
    v.trim(),
    v.minLength(1, nullable ? 'must not be blank (use null, or leave the field out, when unknown)' : 'must not be blank'),
    v.maxLength(max, (i) => `must be at most ${max} characters, got ${i.received.replace(/"/g, '')}`),
    v.check((s) => !BAD_CHARACTER.test(s), got('must not contain control characters')),
  );
}

export function code(pattern: RegExp, rule: string) {
  return v.pipe(v.string(got('must be a string or null')), v.trim(), v.regex(pattern, got(rule)), v.toUpperCase());
}

export function integer(min: number, max: number, rule: string) {
  return v.pipe(
    v.number(got('must be a number or null')),
    v.integer(got(rule)),
    v.minValue(min, got(rule)),
    v.maxValue(max, got(rule)),
  );
}

export const icao = code(/^[A-Za-z]{4}$/, 'must be 4 letters (ICAO)');
export const iata = code(/^[A-Za-z]{3}$/, 'must be 3 letters (IATA)');
export const country = v.pipe(
  code(/^[A-Za-z]{2}$/, 'must be 2 letters (ISO 3166-1 alpha-2)'),
  v.check((c) => COUNTRY_CODES.has(c), got('must be an ISO 3166-1 alpha-2 country code')),
);
export const currency = v.pipe(
  code(/^[A-Za-z]{3}$/, 'must be 3 letters (ISO 4217)'),
  v.check((c) => CURRENCY_CODES.has(c), got('must be an ISO 4217 currency code')),
);
export const calendarDate = v.pipe(
  v.string(got('must be a string')),
  v.check(isCalendarDate, got('must be a real calendar date yyyy-MM-dd')),
);
export const instant = v.pipe(
  v.string(got('must be a string')),
  v.check(
    (s) => parseInstant(s) !== undefined,
    got('must be an ISO 8601 instant with an offset or Z, e.g. 2026-03-01T23:30:00-05:00'),
  ),
);
export const timeZone = v.pipe(
  v.string(got('must be a string')),
  v.trim(),
  v.check(isIanaTimeZone, got('must be an IANA time zone such as Europe/Paris (not an offset)')),
);
export const httpsUrl = v.pipe(
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
export const registration = v.pipe(
  text(12, true),
  v.regex(/^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/, got('must be letters and digits, optionally joined by -')),
  v.toUpperCase(),
);
export const amenity = v.strictObject(
  {
    amenityType: v.picklist(AMENITY_TYPES, got(`must be one of ${AMENITY_TYPES.join(', ')}`)),
    amenityName: text(100, false),
    amenityDesc: text(500, false),
  },
  (issue) => objectRule(issue, ['amenityType', 'amenityName', 'amenityDesc'], 'must be an object'),
);

/**
 * An aircraft category (docs/import-format.md, "Aircraft categories"): any spelling of one, stored
 * as the vocabulary's name. Another text is refused, or with `allowUnknown`
 * (`--allow-unknown-categories`) stored as null.
 */
export function aircraftCategory(allowUnknown: boolean) {
  return v.pipe(
    text(100, true),
    v.rawTransform<string, AircraftCategory | null>(({ dataset, addIssue, NEVER }) => {
      const category = categoryOf(dataset.value);
      if (category !== undefined || allowUnknown) return category ?? null;
      addIssue({
        message:
          `must be an aircraft category, one of ${CATEGORY_LIST} (or a usual spelling of one, such as VLJ or Super Mid), ` +
          `got ${show(dataset.value)}; correct it, or load with --allow-unknown-categories to store it as null`,
      });
      return NEVER;
    }),
  );
}

export function objectRule(issue: Issue, known: readonly string[], typeRule: string): string {
  if (issue.expected === 'never') return unknownFieldRule(String(issue.input), known);
  if (issue.input === undefined && issue.path?.length) return 'is required';
  return `${typeRule}, got ${show(issue.input)}`;
}
