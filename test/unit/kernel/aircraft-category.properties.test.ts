import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AIRCRAFT_CATEGORIES, categoryNamed, type AircraftCategory } from '../../../src/kernel/aircraft-category.js';
import { categoryOf, otherNames } from '../../../src/loading/import/aircraft-spellings.js';
import { validateImportRecord } from '../../../src/loading/import/index.js';
import { fcParams } from '../../support/fast-check.js';
import { record, TODAY } from '../../support/import-records.js';

/**
 * The aircraft category vocabulary (src/kernel/aircraft-category.ts): how the feeds' spellings map to
 * it at the import (src/loading/import/aircraft-spellings.ts), and which names the `aircraftType`
 * filter and the reading of a stored leg take (`categoryNamed`: the names only).
 */

const SEPARATORS = ['', ' ', '  ', '-', '_', ' - ', '.', '/', '\t', '\u00a0'];

/** A spelling of `words`: any case per letter, any separator between the words, around them blanks, maybe a plural `s`. */
function spelling(words: readonly string[]): fc.Arbitrary<string> {
  const letters = words.join('').length;
  return fc
    .record({
      upper: fc.array(fc.boolean(), { minLength: letters, maxLength: letters }),
      between: fc.array(fc.constantFrom(...SEPARATORS), { minLength: words.length, maxLength: words.length }),
      around: fc.tuple(fc.constantFrom('', ' ', '\t'), fc.constantFrom('', ' ', '\n')),
      plural: fc.boolean(),
    })
    .map(({ upper, between, around, plural }) => {
      let k = 0;
      const cased = words.map((w) => [...w].map((c) => (upper[k++] ? c.toUpperCase() : c.toLowerCase())).join(''));
      const joined = cased.map((w, i) => (i === 0 ? w : between[i]! + w)).join('');
      return around[0] + joined + (plural ? 's' : '') + around[1];
    });
}

/** A category and one of its spellings: its name's words, or another name with separators put anywhere. */
const spelled: fc.Arbitrary<[AircraftCategory, string]> = fc.constantFrom(...AIRCRAFT_CATEGORIES).chain((category) => {
  const names = [category.split(' '), ...otherNames(category).map((name) => [name])];
  const split = (name: string) =>
    fc.array(fc.nat(name.length), { maxLength: 3 }).map((cuts) => {
      const at = [...new Set(cuts)].filter((c) => c > 0 && c < name.length).sort((a, b) => a - b);
      return [0, ...at].map((from, i) => name.slice(from, at[i] ?? name.length));
    });
  return fc
    .constantFrom(...names)
    .chain((words) => (words.length === 1 ? split(words[0]!) : fc.constant(words)))
    .chain(spelling)
    .map((s): [AircraftCategory, string] => [category, s]);
});

describe('categoryOf', () => {
  it('maps every spelling variant of a category, or of one of its other names, back to it (property)', () => {
    fc.assert(
      fc.property(spelled, ([category, text]) => {
        expect(categoryOf(text)).toBe(category);
      }),
      fcParams(3_000),
    );
  });

  it('maps the spellings feeds use', () => {
    const cases: [string, AircraftCategory][] = [
      ['Light jet', 'Light Jet'],
      ['LIGHT JET', 'Light Jet'],
      ['Super-Midsize', 'Super Midsize Jet'],
      ['Super Mid', 'Super Midsize Jet'],
      ['super mid-size jet', 'Super Midsize Jet'],
      ['Ultra Long Range', 'Ultra Long Range'],
      ['ULR', 'Ultra Long Range'],
      ['Long range', 'Ultra Long Range'],
      ['VLJ', 'Very Light Jet'],
      ['Very light', 'Very Light Jet'],
      ['Large jet', 'Heavy Jet'],
      ['Heavy', 'Heavy Jet'],
      ['Mid-size', 'Midsize Jet'],
      ['Midsize Jets', 'Midsize Jet'],
      ['Turbo-prop', 'Turboprop'],
      ['turbo prop', 'Turboprop'],
      ['Twin piston', 'Piston'],
      ['VIP Airliner', 'Airliner'],
      ['Bizliner', 'Airliner'],
      ['Regional jet', 'Airliner'],
      ['Heli', 'Helicopter'],
      ['Helicopters', 'Helicopter'],
      ['ＬＩＧＨＴ ＪＥＴ', 'Light Jet'],
    ];
    for (const [text, category] of cases) expect([text, categoryOf(text)]).toEqual([text, category]);
  });

  it.each(['', ' ', 'Jet', 'Jets', 'Glider', 'Light Heavy Jet', 'Light Jet 2', 'Airship', 's', 'Mid Light', 'ultra', 'İ'])('names no category in %j', (text) => {
    expect(categoryOf(text)).toBeUndefined();
  });

  it('either maps an arbitrary string to a category that maps to itself, or to nothing; it never throws (property)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.constantFrom(...AIRCRAFT_CATEGORIES).chain((c) => fc.tuple(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 })).map(([a, b]) => a + c + b)),
    );
    fc.assert(
      fc.property(text, (s) => {
        const category = categoryOf(s);
        if (category !== undefined) {
          expect(AIRCRAFT_CATEGORIES).toContain(category);
          expect(categoryOf(category)).toBe(category);
        }
      }),
      fcParams(3_000),
    );
  });

  it('has no spelling of two categories (the other names are distinct from the names and from each other)', () => {
    const keys = AIRCRAFT_CATEGORIES.flatMap((c) => [c.toLowerCase().replace(/ /g, ''), ...otherNames(c)]);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('categoryNamed (the filter, and a stored text read back)', () => {
  it('maps every case and spacing of a name, and only names: no other name of the import (property)', () => {
    const nameSpelling = fc.constantFrom(...AIRCRAFT_CATEGORIES).chain((c) => spelling(c.split(' ')).map((s): [AircraftCategory, string] => [c, s]));
    fc.assert(
      fc.property(nameSpelling, ([category, text]) => {
        expect(categoryNamed(text)).toBe(category);
      }),
      fcParams(1_000),
    );
    for (const c of AIRCRAFT_CATEGORIES) for (const other of otherNames(c)) expect([other, categoryNamed(other)]).toEqual([other, undefined]);
  });

  it('names a category only where the import maps the text to the same one (property)', () => {
    fc.assert(
      fc.property(fc.oneof(spelled.map(([, s]) => s), fc.string({ maxLength: 20 })), (s) => {
        const named = categoryNamed(s);
        if (named !== undefined) expect(categoryOf(s)).toBe(named);
      }),
      fcParams(1_000),
    );
  });
});

describe('the import maps aircraftType to the vocabulary', () => {
  it('stores any spelling of a category as its name, or refuses the record listing the categories (property)', () => {
    // Without control characters (a tab, a newline): the import refuses those in any text field.
    const text = fc.oneof(spelled.map(([, s]) => s), fc.string({ minLength: 1, maxLength: 20 })).filter((s) => !/\p{Cc}/u.test(s));
    fc.assert(
      fc.property(text, (s) => {
        const result = validateImportRecord(record({ aircraftType: s }), { today: TODAY });
        const category = categoryOf(s);
        if (result.ok) {
          expect(result.leg.aircraftType).toBe(category);
          return;
        }
        expect(category).toBeUndefined();
        expect(result.issues.map((i) => i.field)).toEqual(['aircraftType']);
      }),
      fcParams(500),
    );
  });

  it('refuses an unknown category with the accepted ones and the override; with --allow-unknown-categories stores null', () => {
    const refused = validateImportRecord(record({ aircraftType: 'Glider' }), { today: TODAY });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.issues).toEqual([
        {
          field: 'aircraftType',
          rule: expect.stringContaining(
            'must be an aircraft category, one of Piston, Turboprop, Very Light Jet, Light Jet, Midsize Jet, Super Midsize Jet, Heavy Jet, Ultra Long Range, Airliner, Helicopter',
          ),
        },
      ]);
      expect(refused.issues[0]!.rule).toContain('got "Glider"');
      expect(refused.issues[0]!.rule).toContain('--allow-unknown-categories');
    }
    const kept = validateImportRecord(record({ aircraftType: 'Glider' }), { today: TODAY, allowUnknownCategories: true });
    expect(kept.ok && kept.leg.aircraftType).toBeNull();
    const mapped = validateImportRecord(record({ aircraftType: 'super-mid' }), { today: TODAY, allowUnknownCategories: true });
    expect(mapped.ok && mapped.leg.aircraftType).toBe('Super Midsize Jet');
  });
});
