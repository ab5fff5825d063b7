import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { readIndexPage, readParsed } from '../../../src/legs/index-page.js';
import { cityIncludes, entryFields, hasCode, IndexEntryReader, toStorageItem, type IndexEntry } from '../../../src/legs/storage.js';
import { storedLeg } from '../../support/legs.js';

/**
 * The page reader's fast path (the response text, cut with indexOf) against its slow path (JSON.parse
 * of the whole body, then the reader over the items), which is how entries were always read: over
 * generated bodies in every form a JSON writer may give them, both must give the same entries and
 * the same rest of the body.
 */

/** A JSON string as a writer may encode it: control characters in upper or lower case hex, other characters as they are or as \u escapes. */
function encodeString(value: string, style: { upperHex: boolean; escapeNonAscii: boolean }): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (code < 0x20 || (style.escapeNonAscii && code > 0x7e)) {
      const units = code > 0xffff ? [0xd800 + ((code - 0x10000) >> 10), 0xdc00 + ((code - 0x10000) & 0x3ff)] : [code];
      for (const u of units) {
        const hex = u.toString(16).padStart(4, '0');
        out += `\\u${style.upperHex ? hex.toUpperCase() : hex}`;
      }
    } else out += ch;
  }
  return `${out}"`;
}

type Attribute = [name: string, type: 'S' | 'N', value: string];

function encodeBody(items: Attribute[][], rest: string, style: { upperHex: boolean; escapeNonAscii: boolean; itemsFirst: boolean }): string {
  const item = (attrs: Attribute[]) =>
    `{${attrs.map(([name, type, value]) => `${encodeString(name, style)}:{"${type}":${encodeString(value, style)}}`).join(',')}}`;
  const list = `"Items":[${items.map(item).join(',')}]`;
  return style.itemsFirst ? `{${list},${rest}}` : `{${rest},${list}}`;
}

function both(body: string): { fast: IndexEntry[]; slow: IndexEntry[]; fastRest: unknown; slowRest: unknown } {
  const fast: IndexEntry[] = [];
  const slow: IndexEntry[] = [];
  const fastRest = JSON.parse(readIndexPage(body, new IndexEntryReader(), fast)) as unknown;
  const slowRest = JSON.parse(readParsed(body, new IndexEntryReader(), slow)) as unknown;
  return { fast, slow, fastRest, slowRest };
}

const REST = '"Count":2,"ScannedCount":2,"LastEvaluatedKey":{"id":{"S":"b"},"lb":{"S":"2027-02"},"ls":{"S":"2027-02-01#b"}}';

describe('readIndexPage', () => {
  it('reads a page as DynamoDB Local writes it (items first, the separator as \\u001F)', () => {
    const legs = [
      storedLeg({ id: 'a', startDate: '2027-02-01', endDate: '2027-02-02', depCityName: 'Zürich', depAirportIcao: 'LSZH', depAirportIata: 'ZRH' }),
      storedLeg({ id: 'b', startDate: '2027-02-01', endDate: '2027-02-09', depTimezone: 'America/New_York', arrCityName: 'Rio de Janeiro "Galeão"' }),
    ];
    const items = legs.map((leg) => {
      const item = toStorageItem(leg);
      return [['lf', 'S', String(item.lf)], ['ls', 'S', String(item.ls)], ['id', 'S', String(item.id)]] as Attribute[];
    });
    const body = encodeBody(items, REST, { upperHex: true, escapeNonAscii: false, itemsFirst: true });
    expect(body).toContain('\\u001F');
    const out: IndexEntry[] = [];
    const rest = JSON.parse(readIndexPage(body, new IndexEntryReader(), out)) as Record<string, unknown>;
    const reader = new IndexEntryReader();
    expect(out.map(entryFields)).toEqual(legs.map((leg) => entryFields(reader.read(toStorageItem(leg))!)));
    expect(out.map(entryFields).map((e) => [e.id, e.depCity, e.depIcao, e.depIata, e.arrCity, e.endDate])).toEqual([
      ['a', 'zurich', 'lszh', 'zrh', 'nice', '2027-02-02'],
      ['b', 'london', '', '', 'rio de janeiro "galeao"', '2027-02-09'],
    ]);
    expect(rest).toEqual({ Items: [], ...(JSON.parse(`{${REST}}`) as object) });
  });

  it('takes each id from the sort key when the page leaves the id attribute out, as the listing asks', () => {
    const legs = [
      storedLeg({ id: 'EL-000001', startDate: '2027-02-01', endDate: '2027-02-02' }),
      storedLeg({ id: 'a-much-longer-id-#-with-a-hash', startDate: '2027-02-03', endDate: '2027-02-05' }),
    ];
    const items = legs.map((leg) => {
      const item = toStorageItem(leg);
      return [['lf', 'S', String(item.lf)], ['ls', 'S', String(item.ls)]] as Attribute[];
    });
    const out: IndexEntry[] = [];
    readIndexPage(encodeBody(items, REST, { upperHex: true, escapeNonAscii: false, itemsFirst: true }), new IndexEntryReader(), out);
    expect(out.map((e) => [e.id, e.startDate])).toEqual([
      ['EL-000001', '2027-02-01'],
      ['a-much-longer-id-#-with-a-hash', '2027-02-03'],
    ]);
  });

  it('gives the entries and the rest of the body that JSON.parse gives, for every form of page (property)', () => {
    const text = fc.string({ unit: 'binary', maxLength: 16 });
    const city = fc.oneof(fc.constantFrom('london', 'rio de janeiro', 'sao paulo', 'zurich'), text);
    const codes = fc.oneof(fc.constantFrom('', 'eglf', 'fab', 'eglffab', 'ab/cdef'), text);
    const filterFields = fc.tuple(
      fc.oneof(fc.nat({ max: 400 }).map(String), text),
      fc.oneof(fc.integer({ min: -56, max: 56 }).map(String), fc.integer({ min: -900, max: 900 }).map((m) => `m${m}`), text),
      city,
      codes,
      city,
      codes,
    );
    const filter = fc.oneof(
      { weight: 6, arbitrary: filterFields.map((f) => f.join('\u001f')) },
      { weight: 1, arbitrary: fc.array(text, { maxLength: 8 }).map((f) => f.join('\u001f')) },
      { weight: 1, arbitrary: text },
    );
    const date = fc.date({ min: new Date('2026-01-01'), max: new Date('2028-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    const id = fc.oneof(fc.stringMatching(/^EL-[0-9]{6}$/), fc.uuid(), text);
    const sort = fc.oneof(fc.tuple(date, id).map(([d, i]) => `${d}#${i}`), text);
    const attribute = (name: string, value: fc.Arbitrary<string>) => value.map((v): Attribute => [name, 'S', v]);
    const entryItem = fc
      .tuple(
        // The listing's Query leaves `id` out (the sort key holds it); other readers ask for it.
        fc.option(attribute('id', id), { nil: undefined }),
        attribute('ls', sort),
        attribute('lf', filter),
        fc.option(attribute('lb', text), { nil: undefined }),
        fc.nat(),
      )
      .map(([a, b, c, extra, order]) => {
        const attrs = [...(a ? [a] : []), b, c, ...(extra ? [extra] : [])];
        // Attribute order varies between writers: rotate.
        return [...attrs.slice(order % attrs.length), ...attrs.slice(0, order % attrs.length)];
      });
    const oddItem = fc.oneof(
      // Missing attributes, another type, other names, an empty item.
      fc.array(fc.tuple(fc.constantFrom('id', 'ls', 'lf', 'x', 'i\\d'), fc.constantFrom<'S' | 'N'>('S', 'N'), text), { maxLength: 4 }),
    );
    const items = fc.array(fc.oneof({ weight: 8, arbitrary: entryItem }, { weight: 1, arbitrary: oddItem }), { maxLength: 12 });
    const style = fc.record({ upperHex: fc.boolean(), escapeNonAscii: fc.boolean(), itemsFirst: fc.boolean() });
    fc.assert(
      fc.property(items, style, fc.boolean(), (generated, s, pretty) => {
        // Names are written as the generator says; `i\\d` is a name holding a backslash.
        const body = encodeBody(generated.map((attrs) => attrs.map(([n, t, v]): Attribute => [n === 'i\\d' ? 'i\\d' : n, t, v])), REST, s);
        const written = pretty ? JSON.stringify(JSON.parse(body), null, 1) : body;
        const { fast, slow, fastRest, slowRest } = both(written);
        // The same entries; the fast path's text may hold the separator escaped, so they are
        // compared field by field.
        expect(fast.map(entryFields)).toEqual(slow.map(entryFields));
        expect(fastRest).toEqual(slowRest);
      }),
    );
  });
});

describe('cityIncludes and hasCode on entries read from the text', () => {
  it('match as the fields do, with the separator escaped in the text or not', () => {
    const city = fc.oneof(fc.constantFrom('london', 'new york', 'sao paulo', 'u001f', 'a\\b', 'x/y'), fc.string({ maxLength: 8 }));
    const code = fc.oneof(fc.constantFrom('eglf', 'fab', 'kteb', 'teb', 'u00', '001f', 'k1'), fc.stringMatching(/^[a-z0-9]{0,5}$/));
    const codes = fc.oneof(
      fc.tuple(code, code).map(([i, a]) => ((i === '' || i.length === 4) && (a === '' || a.length === 3) ? i + a : `${i}/${a}`)),
      fc.constantFrom('', 'eglffab', 'eglf', 'fab', 'k1/nce'),
    );
    const needle = fc.oneof(city, code, fc.constantFrom('u001f', '001', '1f', '\\', '\\u', 'f\\u', 'n\\u001fe', 'don'));
    fc.assert(
      fc.property(fc.tuple(city, codes, city, codes), fc.array(needle, { minLength: 1, maxLength: 4 }), fc.boolean(), ([depCity, depCodes, arrCity, arrCodes], needles, upperHex) => {
        const item = { id: 'EL-1', ls: '2027-02-01#EL-1', lf: ['2', '4', depCity, depCodes, arrCity, arrCodes].join('\u001f') };
        const body = encodeBody([[['id', 'S', item.id], ['ls', 'S', item.ls], ['lf', 'S', item.lf]]], REST, { upperHex, escapeNonAscii: false, itemsFirst: true });
        const fromText: IndexEntry[] = [];
        readIndexPage(body, new IndexEntryReader(), fromText);
        const fromItem = new IndexEntryReader().read(item)!;
        for (const e of [fromText[0]!, fromItem]) {
          const f = entryFields(e);
          for (const n of needles) {
            expect(cityIncludes(e, 'dep', n)).toBe(f.depCity.includes(n));
            expect(cityIncludes(e, 'arr', n)).toBe(f.arrCity.includes(n));
            for (const side of ['dep', 'arr'] as const) {
              expect(hasCode(e, side, 'icao', n)).toBe(n !== '' && f[`${side}Icao`] === n);
              expect(hasCode(e, side, 'iata', n)).toBe(n !== '' && f[`${side}Iata`] === n);
            }
          }
        }
        expect(entryFields(fromText[0]!)).toEqual(entryFields(fromItem));
      }),
    );
  });
});
