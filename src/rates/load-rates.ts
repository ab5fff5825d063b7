import type { Clock } from '../clock.js';
import { addDays, utcDate } from '../kernel/dates.js';
import { parseEcbRates, type RateSet } from './ecb-xml.js';
import type { RatesStore } from './store.js';

/** A file whose rates are older than the rates in force: refused, nothing replaced. */
export class RatesOlderError extends Error {
  override readonly name = 'RatesOlderError';
  constructor(
    readonly date: string,
    readonly inForce: string | undefined,
  ) {
    super(`the file's rates of ${date} are older than the rates in force (${inForce ?? 'newer'}): nothing replaced`);
  }
}

/** A file dated after tomorrow (UTC, by the clock): refused, nothing replaced (it would outrank every real file). */
export class RatesFutureError extends Error {
  override readonly name = 'RatesFutureError';
  constructor(
    readonly date: string,
    readonly latest: string,
  ) {
    super(`the file's rates are dated ${date}, after tomorrow (${latest}, UTC): a file from the future is refused; nothing replaced`);
  }
}

export interface LoadedRates {
  date: string;
  currencies: number;
}

/** Makes `set` the rates in force; throws `RatesFutureError` when it is dated after tomorrow, `RatesOlderError` when those in force are newer. */
export async function putRates(set: RateSet, deps: { store: RatesStore; clock: Clock }): Promise<LoadedRates> {
  const tomorrow = addDays(utcDate(new Date(deps.clock())), 1);
  if (set.date > tomorrow) throw new RatesFutureError(set.date, tomorrow);
  if (!(await deps.store.replace(set, deps.clock()))) {
    throw new RatesOlderError(set.date, (await deps.store.read())?.date);
  }
  return { date: set.date, currencies: Object.keys(set.rates).length };
}

/**
 * `rates:load`: an ECB file's latest day as the rates in force. A malformed file throws
 * `RatesFileError` before anything is written; one dated after tomorrow `RatesFutureError`; an older one `RatesOlderError`.
 */
export async function loadRatesText(xml: string, deps: { store: RatesStore; clock: Clock }): Promise<LoadedRates> {
  return putRates(parseEcbRates(xml), deps);
}
