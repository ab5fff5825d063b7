import { describe, expect, it } from '@jest/globals';
import { putRates, RatesFutureError } from '../../../src/rates/load-rates.js';
import type { RateSet } from '../../../src/rates/ecb-xml.js';
import type { RatesStore } from '../../../src/rates/store.js';

/** The rates in force, in memory, replaced as the table's conditional write does. */
function memoryStore(): RatesStore & { inForce?: RateSet } {
  const store: RatesStore & { inForce?: RateSet } = {
    read: () => Promise.resolve(store.inForce),
    replace: (set) => {
      if (store.inForce !== undefined && store.inForce.date > set.date) return Promise.resolve(false);
      store.inForce = set;
      return Promise.resolve(true);
    },
  };
  return store;
}

const ratesOf = (date: string): RateSet => ({ date, rates: { USD: '1.0163' } });

describe('putRates: a file dated after tomorrow (UTC, by the clock) is refused', () => {
  it.each([
    // [the clock, the latest date accepted]: tomorrow in UTC, whatever the hour.
    ['2026-11-28T00:00:00Z', '2026-11-29'],
    ['2026-11-28T23:59:59.999Z', '2026-11-29'],
    ['2026-12-31T23:30:00Z', '2027-01-01'],
    ['2028-02-28T12:00:00Z', '2028-02-29'],
  ])('at %s, up to %s', async (now, tomorrow) => {
    const clock = () => Date.parse(now);
    const dayAfter = new Date(Date.parse(`${tomorrow}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const store = memoryStore();
    await expect(putRates(ratesOf(dayAfter), { store, clock })).rejects.toThrow(
      new RatesFutureError(dayAfter, tomorrow),
    );
    expect(store.inForce).toBeUndefined();
    await expect(putRates(ratesOf(tomorrow), { store, clock })).resolves.toEqual({ date: tomorrow, currencies: 1 });
    expect(store.inForce?.date).toBe(tomorrow);
  });

  it('names the date and the limit', () => {
    expect(new RatesFutureError('2027-01-05', '2026-11-29').message).toBe(
      "the file's rates are dated 2027-01-05, after tomorrow (2026-11-29, UTC): a file from the future is refused; nothing replaced",
    );
  });
});
