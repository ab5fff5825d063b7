import { describe, expect, it } from '@jest/globals';
import { flightRecord } from '../../../src/flights/index.js';
import type { Flight } from '../../../src/flights/index.js';
import { IndexEntryReader } from '../../../src/kernel/index-entry.js';
import { filterText } from '../../../src/kernel/leg-item.js';
import type { EmptyLeg } from '../../../src/kernel/model.js';
import { toApiRecord } from '../../../src/kernel/model.js';
import { withConvertedPrice } from '../../../src/rates/index.js';
import { storedLeg } from '../../support/legs.js';

/**
 * A flight's record and a converted price are made once for the same inputs: the same object, so a
 * warm container serializes a page of them once (src/http/envelope.ts), and a new one when any input changes.
 */
const stored = storedLeg({ id: 'L1', startDate: '2027-03-01', endDate: '2027-03-02', registration: 'N123AB', depAirportIcao: 'LFMN', arrAirportIcao: 'LSGG', price: 9000, currency: 'EUR' });
const record: EmptyLeg = toApiRecord({ ...stored });
const entry = new IndexEntryReader().fromFilter('L1', stored.startDate, filterText(stored, '0'))!;
const flight = (): Flight => ({ offers: [entry], facts: [{ id: 'L1', source: 'default', kind: 'unknown', verified: false, confirmedAt: Number.NaN, euros: 9000 }] });
const rates = { date: '2027-02-26', rates: { USD: '1.25' } };

describe('flightRecord', () => {
  it('gives the same object for the same flight, record, currency and rates, and a new one when one changes', () => {
    const f = flight();
    const first = flightRecord(record, f, undefined, undefined);
    expect(flightRecord(record, f, undefined, undefined)).toBe(first);
    expect(first).toEqual({ ...record, offerCount: 1, offers: [{ id: 'L1', source: 'default', kind: 'unknown', verified: false, price: 9000, currency: 'EUR', confirmedAt: null }] });
    const usd = flightRecord(record, f, 'USD', rates);
    expect(usd).not.toBe(first);
    expect(usd.offers[0]).toMatchObject({ convertedPrice: { amount: 11250, currency: 'USD', rateDate: '2027-02-26' } });
    expect(flightRecord(record, f, 'USD', { ...rates })).not.toBe(usd);
    expect(flightRecord({ ...record }, f, undefined, undefined)).not.toBe(first);
    expect(flightRecord(record, flight(), undefined, undefined)).not.toBe(first);
  });
});

describe('withConvertedPrice', () => {
  it('gives the same object for the same record, currency and rates, and a new one when one changes', () => {
    const usd = withConvertedPrice(record, 'USD', rates);
    expect(withConvertedPrice(record, 'USD', rates)).toBe(usd);
    expect(usd.convertedPrice).toEqual({ amount: 11250, currency: 'USD', rateDate: '2027-02-26' });
    expect(withConvertedPrice(record, 'EUR', rates)).not.toBe(usd);
    expect(withConvertedPrice(record, 'USD', { ...rates, date: '2027-02-27' }).convertedPrice?.rateDate).toBe('2027-02-27');
    expect(withConvertedPrice(record, 'USD', undefined).convertedPrice).toBeNull();
  });
});
