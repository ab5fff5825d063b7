import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { IndexEntryReader } from '../../../../src/kernel/index-entry.js';
import { filterText, type IndexedFields } from '../../../../src/kernel/leg-item.js';
import { confirmedAtOf, decodeConfirmed, encodeConfirmed } from '../../../../src/kernel/leg/instants.js';
import { routedLeg } from '../../../support/legs.js';

/** The confirmed instant in the index entry (docs/storage.md, "The leg's item"): an eleventh field. */
const leg: IndexedFields = routedLeg({ id: 'L1', startDate: '2027-03-27', endDate: '2027-03-29', aircraftType: 'Light Jet' });
const SEP = '\u001f';
const read = (text: string) => new IndexEntryReader().fromFilter('L1', leg.startDate, text);
const AT = Date.parse('2027-03-01T10:20:30Z');

describe('the confirmed instant of the index entry', () => {
  it('is absent (NaN) in an entry written without one, which is exactly as before', () => {
    const plain = filterText(leg, '0');
    expect(plain.split(SEP)).toHaveLength(8);
    expect(read(plain)!.confirmedAt).toBeNaN();
    expect(read(filterText({ ...leg, source: 'acme' }, '0'))!.confirmedAt).toBeNaN();
  });

  it('is the eleventh field in seconds, after empty price and source fields for an unpriced leg of the default source', () => {
    const text = filterText({ ...leg, confirmedAt: AT }, '0');
    expect(text.split(SEP).slice(8)).toEqual(['', '', Math.floor(AT / 1000).toString(36)]);
    const entry = read(text)!;
    expect(entry).toMatchObject({ confirmedAt: AT, source: 'default', currency: '', seats: 8 });
    expect(entry.price).toBeNaN();
  });

  it('reads back with any price and source, in whole seconds', () => {
    fc.assert(
      fc.property(
        fc.option(fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,39}$/)),
        fc.option(fc.integer({ min: 0, max: 10_000_000 })),
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        (source, price, at) => {
          const entry = read(
            filterText({ ...leg, ...(source === null ? {} : { source }), ...(price === null ? {} : { price, currency: 'EUR' }), confirmedAt: at }, '4'),
          )!;
          expect(entry.confirmedAt).toBe(Math.floor(at / 1000) * 1000);
          expect(entry.source).toBe(source ?? 'default');
          if (price === null) expect(entry.price).toBeNaN();
          else expect(entry.price).toBe(price);
        },
      ),
    );
  });

  it('refuses an entry with a twelfth field or a confirmed field that is no base-36 number', () => {
    const text = filterText({ ...leg, confirmedAt: AT }, '0');
    expect(read(`${text}${SEP}x`)).toBeUndefined();
    expect(read(`${text.slice(0, text.lastIndexOf(SEP))}${SEP}NOT`)).toBeUndefined();
    expect(read(`${text.slice(0, text.lastIndexOf(SEP))}${SEP}`)).toBeUndefined();
    expect(decodeConfirmed(encodeConfirmed(undefined))).toBeNaN();
  });

  it('confirmedAtOf: the later of its own and its source last complete sync; unknown stays unknown without a sync', () => {
    expect(confirmedAtOf({ confirmedAt: AT })).toBe(AT);
    expect(confirmedAtOf({ confirmedAt: AT }, AT + 5000)).toBe(AT + 5000);
    expect(confirmedAtOf({ confirmedAt: AT }, AT - 5000)).toBe(AT);
    expect(confirmedAtOf({ confirmedAt: Number.NaN })).toBeNaN();
    expect(confirmedAtOf({ confirmedAt: Number.NaN }, AT)).toBe(AT);
  });
});
