import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { IndexEntryReader } from '../../../src/kernel/index-entry.js';
import { filterText, type IndexedFields } from '../../../src/kernel/leg-item.js';

/** The source in the index entry (docs/storage.md, "The leg's item"): a tenth field, absent for `default`. */
const leg: IndexedFields = {
  startDate: '2026-12-01',
  endDate: '2026-12-03',
  depCityName: 'Nice',
  depAirportIcao: 'LFMN',
  depAirportIata: 'NCE',
  depCountryCode: 'FR',
  arrCityName: 'Genève',
  arrAirportIcao: 'LSGG',
  arrAirportIata: 'GVA',
  arrCountryCode: 'CH',
  seatNum: 8,
  aircraftType: 'Light Jet',
};
const read = (text: string) => new IndexEntryReader().fromFilter('L1', leg.startDate, text);
const SEP = '\u001f';

describe('the source field of the filter attribute', () => {
  it('is absent for the default source: the text is the one written before sources were shown', () => {
    const plain = filterText(leg, '0');
    expect(plain.split(SEP)).toHaveLength(8);
    expect(filterText({ ...leg, source: 'default' }, '0')).toBe(plain);
    expect(read(plain)!.source).toBe('default');
    const priced = filterText({ ...leg, price: 12500, currency: 'USD' }, '0');
    expect(priced.split(SEP)).toHaveLength(9);
    expect(read(priced)).toMatchObject({ source: 'default', price: 12500, currency: 'USD' });
  });

  it('is the tenth field otherwise, after an empty price field when the leg has no price', () => {
    const text = filterText({ ...leg, source: 'acme-jets' }, '0');
    expect(text.split(SEP).slice(8)).toEqual(['', 'acme-jets']);
    const entry = read(text)!;
    expect(entry.source).toBe('acme-jets');
    expect(entry.price).toBeNaN();
    expect(entry.currency).toBe('');
    expect(entry.countriesAt).toBeGreaterThan(0);
  });

  it('reads back any source and price together, and refuses a text with more fields or a bad source', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,39}$/), fc.option(fc.integer({ min: 0, max: 10_000_000 })), (source, price) => {
        const entry = read(filterText({ ...leg, source, ...(price === null ? {} : { price, currency: 'EUR' }) }, '4'))!;
        expect(entry.source).toBe(source);
        if (price === null) expect(entry.price).toBeNaN();
        else expect([entry.price, entry.currency]).toEqual([price, 'EUR']);
      }),
    );
    const text = filterText({ ...leg, source: 'acme' }, '0');
    expect(read(`${text}${SEP}1${SEP}more`)).toBeUndefined();
    expect(read(text.replace('acme', 'Not A Slug'))).toBeUndefined();
  });
});
