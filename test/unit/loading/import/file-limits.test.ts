import { describe, expect, it } from '@jest/globals';
import { Readable } from 'node:stream';
import { MAX_ERRORS_KEPT, MAX_JSON_DEPTH } from '../../../../src/loading/import/file-limits.js';
import { parseImportText, readImportStream } from '../../../../src/loading/import/index.js';
import { TODAY, record } from '../../../support/import-records.js';

/** What one file may hold (src/loading/import/file-limits.ts): nesting, UTF-8, records, bytes, errors kept. */

const line = (patch: Record<string, unknown> = {}) => JSON.stringify(record(patch));
const nested = (depth: number) => `{"id":"N","x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
const messages = (text: string, limits = {}) => parseImportText(text, { today: TODAY, limits }).errors.map((e) => e.message);

describe('nesting depth', () => {
  it('a line of 200,000 [ is a bad line with its number and reason; the other lines are read', async () => {
    const text = [line({ id: 'A' }), '['.repeat(200_000), line({ id: 'B' })].join('\n');
    const result = parseImportText(`\n${text}`, { today: TODAY });
    expect(result.fatal).toBe(false);
    expect(result.errors.map((e) => e.message)).toEqual([`line 3: nested deeper than ${MAX_JSON_DEPTH} levels at column ${MAX_JSON_DEPTH + 1} (a record is 3 at most)`]);
    expect(result.legs.map((l) => l.id)).toEqual(['A', 'B']);
    expect(await readImportStream(Readable.from([Buffer.from(`\n${text}`)]), { today: TODAY })).toEqual(result);
  });

  it(`refuses a record nested ${MAX_JSON_DEPTH + 1} deep for its depth, not one ${MAX_JSON_DEPTH} deep`, () => {
    expect(messages(nested(MAX_JSON_DEPTH + 1)).some((m) => m.includes('nested deeper'))).toBe(true);
    expect(messages(nested(MAX_JSON_DEPTH)).some((m) => m.includes('nested deeper'))).toBe(false);
    // Brackets inside strings do not count.
    expect(messages(`{"id":"S","x":"${'['.repeat(100)}"}`).some((m) => m.includes('nested deeper'))).toBe(false);
  });

  it('a JSON array nested too deep is refused as a whole, with its line', () => {
    const result = parseImportText(`[\n${line()},\n${'['.repeat(100_000)}`, { today: TODAY });
    expect(result.fatal).toBe(true);
    expect(result.errors.map((e) => e.message)).toEqual([`line 3: nested deeper than ${MAX_JSON_DEPTH} levels at column ${MAX_JSON_DEPTH + 1} (a record is 3 at most)`]);
  });
});

describe('UTF-8', () => {
  it('a line with bytes that are not UTF-8 is a bad line, however the bytes are cut', async () => {
    const bytes = Buffer.concat([Buffer.from(`${line({ id: 'A' })}\n{"id":"B","depCityName":"Z`), Buffer.from([0xc3]), Buffer.from(`x"}\n${line({ id: 'C' })}\n`)]);
    for (const cut of [1, 30, bytes.indexOf(0xc3), bytes.indexOf(0xc3) + 1]) {
      const result = await readImportStream(Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)]), { today: TODAY });
      expect(result.errors.map((e) => e.message)).toEqual(['line 2: not valid UTF-8 at column 27 (bytes that are not UTF-8, or U+FFFD)']);
      expect(result.legs.map((l) => l.id)).toEqual(['A', 'C']);
    }
  });

  it('a JSON array with bytes that are not UTF-8 is refused as a whole', async () => {
    const bytes = Buffer.concat([Buffer.from('[\n{"id":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]')]);
    const result = await readImportStream(Readable.from([bytes]), { today: TODAY });
    expect(result).toMatchObject({ fatal: true, legs: [] });
    expect(result.errors[0]!.message).toBe('line 2: not valid UTF-8 at column 8 (bytes that are not UTF-8, or U+FFFD)');
  });
});

describe('records and bytes', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => line({ id: `R-${i}` })).join('\n');

  it('a file with more records than the limit is refused as a whole; at the limit it loads', async () => {
    const limits = { maxFileRecords: 3 };
    expect(parseImportText(lines(3), { today: TODAY, limits }).legs).toHaveLength(3);
    const over = parseImportText(`${lines(4)}\n`, { today: TODAY, limits });
    expect(over).toMatchObject({ fatal: true, legs: [], records: 0 });
    expect(over.errors.map((e) => e.message)).toEqual(['file: the file has more than 3 records, the most one file may hold; split it']);
    expect(await readImportStream(Readable.from([Buffer.from(lines(4))]), { today: TODAY, limits })).toEqual(over);
    const array = parseImportText(JSON.stringify([record({ id: 'A' }), record({ id: 'B' }), record({ id: 'C' }), record({ id: 'D' })]), { today: TODAY, limits });
    expect(array).toMatchObject({ fatal: true, format: 'json', legs: [] });
  });

  it('a file larger than the limit is refused as a whole, and the stream is not read past it', async () => {
    const text = lines(40);
    const maxFileBytes = 4096;
    let pulled = 0;
    function* chunks() {
      for (let i = 0; i < text.length; i += 512) {
        pulled += 1;
        yield Buffer.from(text.slice(i, i + 512));
      }
    }
    const result = await readImportStream(Readable.from(chunks()), { today: TODAY, limits: { maxFileBytes } });
    expect(result).toMatchObject({ fatal: true, legs: [] });
    expect(result.errors.map((e) => e.message)).toEqual(['file: the file is larger than 0 MB (4096 bytes), the most one file may be; split it']);
    expect(pulled).toBe(Math.floor(maxFileBytes / 512) + 1);
    expect(parseImportText(text, { today: TODAY, limits: { maxFileBytes } })).toEqual(result);
  });
});

describe('errors kept', () => {
  it(`keeps the first ${MAX_ERRORS_KEPT} errors in file order and counts the rest`, () => {
    const text = Array.from({ length: 300 }, (_, i) => line({ id: `E-${i}`, depAirportIcao: 'EGL', seatNum: 0 })).join('\n');
    const result = parseImportText(text, { today: TODAY });
    expect(result.errors).toHaveLength(MAX_ERRORS_KEPT);
    expect(result.moreErrors).toBe(600 - MAX_ERRORS_KEPT);
    expect(result.invalidRecords).toBe(300);
    expect(result.errors.map((e) => e.at!.n)).toEqual([...result.errors.map((e) => e.at!.n)].sort((a, b) => a - b));
  });

  it('shows a field name of 900,000 characters cut short', () => {
    const [first] = messages(JSON.stringify({ ...record(), ['x'.repeat(900_000)]: 1 }));
    expect(first).toBe(`line 1: ${'x'.repeat(57)}...: is not a field of the import format`);
  });
});
