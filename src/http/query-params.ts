import * as v from 'valibot';

/** Building blocks of query-string parameters (docs/api.md, "Query parameters"), shared by the operations. */

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

/** An integer parameter clamped into min-max (default when absent); not an integer is refused. */
export const clampedInteger = (min: number, max: number, fallback: number) =>
  v.pipe(
    optionalRaw,
    v.check((s) => s === undefined || INTEGER.test(s), 'must be an integer'),
    v.transform((s) => (s === undefined ? fallback : clamp(s, min, max))),
  );

/** `minPrice`, `maxPrice` (docs/api.md, "Prices"): decimals from 0, at most 2 decimals, below this. */
export const MAX_PRICE = 1_000_000_000_000;

const DECIMAL = /^\d{1,13}(\.\d{1,2})?$/;
export const priceBound = v.pipe(
  optionalRaw,
  v.check((s) => s === undefined || (DECIMAL.test(s) && Number(s) <= MAX_PRICE), `must be a decimal from 0 to ${MAX_PRICE} with at most 2 decimals`),
  v.transform((s) => (s === undefined ? undefined : Number(s))),
);

// ISO 4217's shape; whether the rates in force know it is checked when the query is compiled.
export const currencyCode = v.pipe(
  optionalRaw,
  v.check((s) => s === undefined || /^[A-Z]{3}$/.test(s), 'must be an ISO 4217 code of 3 capital letters, such as EUR'),
);

export const flag = v.pipe(
  optionalRaw,
  v.check((s) => s === undefined || s === 'true' || s === 'false', 'must be true or false'),
  v.transform((s) => (s === undefined ? undefined : s === 'true')),
);
