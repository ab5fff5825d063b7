import type { EmptyLeg } from '../kernel/model.js';
import type { RateSet } from './ecb-xml.js';

/**
 * Prices converted through the euro (docs/rates.md, "Conversion"): amount / rate of its currency x
 * rate of the asked one, rounded half up to 2 decimals. Exact: a result near a half cent is
 * computed again in integers from the decimal texts.
 */

export const BASE_CURRENCY = 'EUR';

/** The rate of `currency` in `set` (units per euro) as decimal text; '1' for EUR; undefined when unknown. */
export function rateText(set: RateSet, currency: string): string | undefined {
  if (currency === BASE_CURRENCY) return '1';
  return Object.hasOwn(set.rates, currency) ? set.rates[currency] : undefined;
}

/** True when `currency` is EUR or a currency of `set`. */
export function knowsCurrency(set: RateSet, currency: string): boolean {
  return rateText(set, currency) !== undefined;
}

/** A decimal (digits, optional fraction and exponent) as an integer and a power of ten: n / 10^scale. */
function decimal(text: string): { n: bigint; scale: number } {
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!m) throw new RangeError(`not a decimal: ${text}`);
  const fraction = m[2] ?? '';
  const exponent = Number(m[3] ?? 0);
  let scale = fraction.length - exponent;
  let n = BigInt(m[1]! + fraction);
  if (scale < 0) {
    n *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { n, scale };
}

/** amount / from x to, rounded half up to cents, in exact integer arithmetic (amount >= 0). */
export function exactCents(amount: string, from: string, to: string): bigint {
  const a = decimal(amount);
  const f = decimal(from);
  const t = decimal(to);
  // (a.n / 10^a.scale) / (f.n / 10^f.scale) * (t.n / 10^t.scale) * 100
  const numerator = a.n * t.n * 10n ** BigInt(f.scale) * 100n;
  const denominator = f.n * 10n ** BigInt(a.scale + t.scale);
  return (2n * numerator + denominator) / (2n * denominator);
}

/**
 * `amount` in `from` as an amount in `to`, rounded half up to 2 decimals; null when either currency
 * is unknown to `set`, or the amount is not a finite number >= 0.
 */
export function convertAmount(amount: number, from: string, to: string, set: RateSet): number | null {
  const fromRate = rateText(set, from);
  const toRate = rateText(set, to);
  if (fromRate === undefined || toRate === undefined || !Number.isFinite(amount) || amount < 0) return null;
  const cents = (amount / Number(fromRate)) * Number(toRate) * 100;
  const below = Math.floor(cents);
  // Far from a half cent, the float's rounding is the exact one.
  if (Math.abs(cents - below - 0.5) > 1e-9 + cents * 1e-12 && Number.isSafeInteger(below)) {
    return Math.floor(cents + 0.5) / 100;
  }
  return Number(exactCents(String(amount), fromRate, toRate)) / 100;
}

/** A record's price in the asked currency (docs/api.md, "Prices"); null when it cannot be converted. */
export interface ConvertedPrice {
  amount: number;
  currency: string;
  rateDate: string;
}

type Converted = EmptyLeg & { convertedPrice: ConvertedPrice | null };

/** The last conversion of each record: the same record, currency and rates give the same object (serialized once: src/http/envelope.ts). */
const converted = new WeakMap<EmptyLeg, { currency: string; rates: RateSet | undefined; value: Converted }>();

/** The record with `convertedPrice` into `currency` through `rates` (none in force: null). */
export function withConvertedPrice(record: EmptyLeg, currency: string, rates: RateSet | undefined): Converted {
  const held = converted.get(record);
  if (held !== undefined && held.currency === currency && held.rates === rates) return held.value;
  const amount = rates === undefined || record.price === null || record.currency === null ? null : convertAmount(record.price, record.currency, currency, rates);
  const value = { ...record, convertedPrice: amount === null ? null : { amount, currency, rateDate: rates!.date } };
  converted.set(record, { currency, rates, value });
  return value;
}
