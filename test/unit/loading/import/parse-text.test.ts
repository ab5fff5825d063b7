import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { findJsonSyntaxError, parseImportText } from '../../../../src/loading/import/index.js';
import { findTooDeep } from '../../../../src/loading/import/text/json-syntax.js';
import { fcParams } from '../../../support/fast-check.js';
import { TODAY, fixture, record } from '../../../support/import-records.js';

/** Reading a file's text: JSON array or NDJSON, syntax errors with their place (src/loading/import/parse-text.ts, json-syntax.ts). */

describe('file formats', () => {
  it('reads the same legs from the JSON array and the NDJSON fixtures', () => {
    const json = parseImportText(fixture('legs-valid.json'), { today: TODAY });
    const ndjson = parseImportText(fixture('legs-valid.ndjson'), { today: TODAY });
    const raw = JSON.parse(fixture('legs-valid.json')) as { id: string }[];
    expect(json.errors).toEqual([]);
    expect(json.format).toBe('json');
    expect(ndjson.errors).toEqual([]);
    expect(ndjson.format).toBe('ndjson');
    expect(json.legs.map((l) => l.id)).toEqual(raw.map((r) => r.id));
    expect(ndjson.legs).toEqual(json.legs);
  });

  it('numbers NDJSON records by line (1-based, blank lines counted) and JSON records by index', () => {
    const lines = [JSON.stringify(record({ id: 'A' })), '', '   ', JSON.stringify(record({ id: 'B', depAirportIcao: 'EGL' }))];
    expect(parseImportText(lines.join('\n'), { today: TODAY }).errors.map((e) => e.message)).toEqual([
      'line 4: depAirportIcao: must be 4 letters (ICAO), got "EGL"',
    ]);
    expect(parseImportText(lines.join('\r\n'), { today: TODAY }).errors[0]!.at).toEqual({ kind: 'line', n: 4 });
    const array = [record({ id: 'A' }), record({ id: 'B' }), record({ id: 'C', depAirportIcao: 'EGL' })];
    expect(parseImportText(JSON.stringify(array, null, 2), { today: TODAY }).errors[0]!.message).toMatch(/^index 2: depAirportIcao:/);
  });

  it('reports a broken JSON array with its line and column, and nothing else', () => {
    const text = '[\n  {"id": "A"},\n  {"id": "B" "x": 1}\n]';
    const result = parseImportText(text, { today: TODAY });
    expect(result.fatal).toBe(true);
    expect(result.legs).toEqual([]);
    expect(result.errors.map((e) => e.message)).toEqual([`line 3: invalid JSON at column 14: expected ',' or '}'`]);
  });

  it.each<[string, string]>([
    ['[{"id": "A"},]', 'trailing comma before ]'],
    ['[{"id": "A"}', 'unexpected end of file'],
    ['[{"id": x}]', 'unexpected character "x"'],
    ["[{'id': 'A'}]", 'expected a "quoted" field name'],
    ['[1] 2', 'unexpected text after the end of the JSON value'],
  ])('locates the syntax error in %s', (text, reason) => {
    const result = parseImportText(text, { today: TODAY });
    expect(result.fatal).toBe(true);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.message).toContain(reason);
  });

  it('agrees with JSON.parse on what is valid', () => {
    for (const text of ['[]', '[{"a":[1,-2.5e3,true,false,null,"\\u00e9\\n"]}]', ' [ ] ']) {
      expect(() => JSON.parse(text) as unknown).not.toThrow();
      expect(findJsonSyntaxError(text)).toBeUndefined();
    }
  });

  it('reports a broken NDJSON line and still validates the other lines', () => {
    const result = parseImportText(fixture('legs-bad.ndjson'), { today: TODAY });
    const lines = fixture('legs-bad.ndjson').split('\n');
    const lineOf = (id: string) => lines.findIndex((l) => l.includes(`"id": "${id}"`)) + 1;
    const messages = result.errors.map((e) => e.message);
    expect(messages).toContain(`line ${lineOf('FX-BROKEN')}: invalid JSON at column ${lines[lineOf('FX-BROKEN') - 1]!.length + 1}: unexpected end of line`);
    expect(messages).toContain(`line ${lineOf('FX-TYPO')}: arrAirprtIcao: is not a field of the import format (did you mean arrAirportIcao?)`);
    expect(messages).toContain(`line ${lineOf('FX-LONG-WINDOW')}: startDate: must be a real calendar date yyyy-MM-dd, got "2026-02-30"`);
    // the only record without a problem
    expect(result.legs.map((l) => l.id)).toEqual(['FX-DEPARTURE-AT']);
    const nonBlank = lines.filter((l) => l.trim() !== '').length;
    expect(result.records).toBe(nonBlank);
    expect(result.invalidRecords).toBe(nonBlank - 1);
    expect(result.fatal).toBe(false);
  });

  it('explains that a lone pretty-printed object is not the format', () => {
    const result = parseImportText(JSON.stringify(record(), null, 2), { today: TODAY });
    expect(result.fatal).toBe(true);
    expect(result.errors.map((e) => e.message)).toEqual([
      'file: a JSON file must be an array of records ([...]); NDJSON has one record per line',
    ]);
  });

  it('accepts a byte-order mark, an empty array and an empty file', () => {
    expect(parseImportText(`\ufeff${JSON.stringify([record()])}`, { today: TODAY }).legs).toHaveLength(1);
    expect(parseImportText('[]', { today: TODAY })).toMatchObject({ legs: [], errors: [], records: 0 });
    expect(parseImportText('\n\n', { today: TODAY })).toMatchObject({ legs: [], errors: [], records: 0 });
  });
});

describe('the syntax checks, without recursion', () => {
  const token = fc.constantFrom('{', '}', '[', ']', ',', ':', '"a"', '"[{"', '"\\u12', '"\\x"', '"\\""', '1', '-', '-0', '1.', '1.5', '1e', '1e+5', 'tru', 'true', 'null', ' ', '\n', 'x', '"', '\\');

  it('finds an error exactly when JSON.parse refuses the text, at any depth', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 24 }), fc.nat({ max: 100_000 }), (parts, depth) => {
        for (const text of [parts.join(''), `${'['.repeat(depth)}${parts.join('')}${']'.repeat(depth)}`]) {
          let valid = true;
          try {
            JSON.parse(text);
          } catch {
            valid = false;
          }
          expect(findJsonSyntaxError(text) === undefined).toBe(valid);
        }
      }),
      fcParams(300),
    );
  });

  it('finds the first bracket past the depth, skipping strings, as a plain count does', () => {
    const naive = (text: string, max: number) => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inString) {
          if (c === '\\') i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '[' || c === '{') {
          if (++depth > max) return i;
        } else if ((c === ']' || c === '}') && depth > 0) depth--;
      }
      return undefined;
    };
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }), fc.integer({ min: 0, max: 6 }), (parts, max) => {
        const text = parts.join('');
        expect(findTooDeep(text, max)).toBe(naive(text, max));
      }),
      fcParams(500),
    );
  });
});
