import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { convertAmount, exactCents } from '../../../src/rates/conversion.js';
import { parseEcbRates } from '../../../src/rates/ecb-xml.js';

// The ECB's file of 8 July 2022 (src/rates/data/): USD 1.0163, GBP 0.84585, CHF 0.9913, HKD 7.9769, JPY 138.05 per euro.
const rates = parseEcbRates(readFileSync(new URL('../../../src/rates/data/eurofxref-daily-2022-07-08.xml', import.meta.url), 'utf8'));

describe('convertAmount, against figures worked by hand from the ECB file of 2022-07-08', () => {
  it.each([
    // 10000 / 1.0163 = 9839.6142871…
    [10_000, 'USD', 'EUR', 9839.61],
    // 15000 / 0.84585 x 1.0163 = 18022.6990601…: half up to .70
    [15_000, 'GBP', 'USD', 18022.7],
    // 250000 / 7.9769 x 0.84585 = 26509.3582720…
    [250_000, 'HKD', 'GBP', 26509.36],
    // 12345.67 / 0.9913 x 138.05 = 1719277.4573792…
    [12_345.67, 'CHF', 'JPY', 1_719_277.46],
    // 9999.99 x 7.9769 = 79768.920231
    [9_999.99, 'EUR', 'HKD', 79_768.92],
    // 0.85007925 / 0.84585 = 1.005 exactly: half up gives 1.01 (a float division lands just below)
    [0.85007925, 'GBP', 'EUR', 1.01],
    // 1.005 in EUR: the double 1.005 is below 1.005, but the price is the decimal the operator gave
    [1.005, 'EUR', 'EUR', 1.01],
    [0, 'USD', 'GBP', 0],
  ])('%p %s in %s is %p', (amount, from, to, expected) => {
    expect(convertAmount(amount, from, to, rates)).toBe(expected);
  });

  it('is null for a currency the rates do not know, either way, and for a negative or non-finite amount', () => {
    expect(convertAmount(100, 'XAU', 'EUR', rates)).toBeNull();
    expect(convertAmount(100, 'EUR', 'RUB', rates)).toBeNull();
    expect(convertAmount(100, 'toString', 'EUR', rates)).toBeNull();
    expect(convertAmount(-1, 'EUR', 'USD', rates)).toBeNull();
    expect(convertAmount(Number.NaN, 'EUR', 'USD', rates)).toBeNull();
  });

  it('agrees with the exact integer computation for any amount in cents and any pair of currencies', () => {
    const codes = ['EUR', ...Object.keys(rates.rates)];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000_000 }), fc.constantFrom(...codes), fc.constantFrom(...codes), (cents, from, to) => {
        const amount = cents / 100;
        const rate = (c: string) => (c === 'EUR' ? '1' : rates.rates[c]!);
        expect(convertAmount(amount, from, to, rates)).toBe(Number(exactCents(String(amount), rate(from), rate(to))) / 100);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('exactCents', () => {
  it('rounds half up, and reads exponents', () => {
    expect(exactCents('0.125', '1', '1')).toBe(13n);
    expect(exactCents('0.124999', '1', '1')).toBe(12n);
    expect(exactCents('1e21', '1', '2')).toBe(2n * 10n ** 23n);
    expect(exactCents('1.5e-7', '1', '1')).toBe(0n);
  });
});
