import * as v from 'valibot';
import { isSource, SOURCE_KINDS, type RegisteredKind } from '../kernel/source.js';

/** Building blocks of query-string parameters (docs/api.md, "Query parameters"), shared by the operations. */

/**
 * A parameter's value as a JSON value (the MCP tools' arguments, src/mcp/): its JSON Schema, and
 * `exact` when that schema accepts exactly what the rule accepts of the value alone.
 */
export interface ValueShape {
  readonly schema: Readonly<Record<string, unknown>> & { readonly type: 'string' | 'integer' | 'number' | 'boolean' };
  readonly exact: boolean;
}
const SHAPES = new WeakMap<object, ValueShape>();

/** `rule`, its JSON shape recorded (read by `shapeOf`). */
export function shaped<S extends object>(rule: S, schema: ValueShape['schema'], exact: boolean): S {
  SHAPES.set(rule, { schema, exact });
  return rule;
}

/** The JSON shape of a rule; a rule without one takes its query-string text as it is. */
export function shapeOf(rule: object): ValueShape {
  return SHAPES.get(rule) ?? { schema: { type: 'string', minLength: 1 }, exact: false };
}

/** An integer literal: an optional sign, then digits. */
export const INTEGER = /^[+-]?\d+$/;

/** `raw` (an INTEGER) clamped into min-max, compared as decimal strings so any length of digits clamps. */
function clamp(raw: string, min: number, max: number): number {
  const negative = raw.startsWith('-');
  const digits = raw.replace(/^[+-]/, '').replace(/^0+(?=\d)/, '');
  if (negative) return digits === '0' ? Math.max(min, 0) : min;
  const maxDigits = String(max);
  if (digits.length > maxDigits.length || (digits.length === maxDigits.length && digits > maxDigits)) return max;
  return Math.min(max, Math.max(min, Number(digits)));
}

/**
 * Empty (`?page=`) counts as absent: an absent parameter reads as the empty string, and the empty
 * string as undefined (so every field of a parsed query is present, possibly undefined).
 */
export const optionalRaw = v.optional(
  v.pipe(
    v.string(),
    v.transform((s) => (s === '' ? undefined : s)),
  ),
  '',
);

/** The rules whose values are integers (a watch answers them as JSON numbers). */
const INTEGER_RULES = new WeakSet<object>();
export const isIntegerRule = (rule: object): boolean => INTEGER_RULES.has(rule);
export const integerRule = <S extends object>(rule: S): S => {
  INTEGER_RULES.add(rule);
  return rule;
};

/**
 * An integer literal from `min` to `max`, checked (not clamped: a value out of range is a mistake,
 * not a preference; a clamped `minSeats=1000` would list 850-seat legs, and `minSeats=0` clamped to
 * 1 would drop the legs whose seats are unknown).
 */
export const boundedInteger = (min: number, max: number, unit = '') =>
  integerRule(shaped(v.pipe(
    optionalRaw,
    v.check(
      (s) => s === undefined || (INTEGER.test(s) && Number(s) >= min && Number(s) <= max),
      `must be an integer from ${min} to ${max}${unit}`,
    ),
    v.transform((s) => (s === undefined ? undefined : Number(s))),
  ), { type: 'integer', minimum: min, maximum: max }, true));

/** An integer parameter clamped into min-max (default when absent); not an integer is refused. */
export const clampedInteger = (min: number, max: number, fallback: number) =>
  shaped(
    v.pipe(
      optionalRaw,
      v.check((s) => s === undefined || INTEGER.test(s), 'must be an integer'),
      v.transform((s) => (s === undefined ? fallback : clamp(s, min, max))),
    ),
    { type: 'integer', default: fallback },
    true,
  );

/** `minPrice`, `maxPrice` (docs/api.md, "Prices"): decimals from 0, at most 2 decimals, below this. */
export const MAX_PRICE = 1_000_000_000_000;

const DECIMAL = /^\d{1,13}(\.\d{1,2})?$/;
export const priceBound = shaped(
  v.pipe(
    optionalRaw,
    v.check((s) => s === undefined || (DECIMAL.test(s) && Number(s) <= MAX_PRICE), `must be a decimal from 0 to ${MAX_PRICE} with at most 2 decimals`),
    v.transform((s) => (s === undefined ? undefined : Number(s))),
  ),
  { type: 'number', minimum: 0, maximum: MAX_PRICE },
  false,
);

// ISO 4217's shape; whether the rates in force know it is checked when the query is compiled.
export const currencyCode = shaped(
  v.pipe(
    optionalRaw,
    v.check((s) => s === undefined || /^[A-Z]{3}$/.test(s), 'must be an ISO 4217 code of 3 capital letters, such as EUR'),
  ),
  { type: 'string', pattern: '^[A-Z]{3}$' },
  true,
);

export const flag = shaped(
  v.pipe(
    optionalRaw,
    v.check((s) => s === undefined || s === 'true' || s === 'false', 'must be true or false'),
    v.transform((s) => (s === undefined ? undefined : s === 'true')),
  ),
  { type: 'boolean', default: false },
  true,
);

/** `source` (docs/api.md, "Sources"): at most this many ids. */
export const MAX_SOURCE_IDS = 50;

/** One or more items separated by commas, each trimmed (never re-cased), at most `max`; checked by `known`, naming the first it refuses. */
const trimmedList = (known: (item: string) => boolean, rule: string, max: number) =>
  v.pipe(
    optionalRaw,
    v.transform((s) => s?.split(',').map((item) => item.trim())),
    v.check((list) => (list?.length ?? 0) <= max, `must give at most ${max}, separated by commas`),
    v.check(
      (list) => list?.every(known) ?? true,
      (issue) => `${JSON.stringify((issue.input as string[]).find((item) => !known(item)))} is not ${rule}: give one or more, separated by commas`,
    ),
  );

/** A comma list of `item` (a regular expression's text) as JSON Schema says it, blanks around each allowed. */
const listPattern = (item: string) => `^\\s*${item}\\s*(,\\s*${item}\\s*)*$`;

/** `source`: source ids as `GET /open/v1/sources` gives them (src/kernel/source.ts). */
export const sourceIds = shaped(
  trimmedList(isSource, 'a source id (1-40 of a-z 0-9 -, starting with a letter or digit)', MAX_SOURCE_IDS),
  { type: 'string', pattern: listPattern('[a-z0-9][a-z0-9-]{0,39}') },
  false,
);

/** `kind`: `operator`, `broker` or both; a source of kind `unknown` matches neither. */
export const sourceKinds = shaped(
  v.pipe(
    trimmedList((k) => (SOURCE_KINDS as readonly string[]).includes(k), `one of ${SOURCE_KINDS.join(', ')}`, SOURCE_KINDS.length),
    v.transform((list) => list as RegisteredKind[] | undefined),
  ),
  { type: 'string', pattern: listPattern(`(${SOURCE_KINDS.join('|')})`) },
  false,
);
