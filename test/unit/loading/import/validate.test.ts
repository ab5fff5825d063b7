import { describe, expect, it } from '@jest/globals';
import { parseImportText, validateImportRecords } from '../../../../src/loading/import/index.js';
import { MAX_ERRORS_KEPT } from '../../../../src/loading/import/file-limits.js';
import { TODAY, record } from '../../../support/import-records.js';

describe('duplicate ids', () => {
  it('refuses every occurrence: the first names the next and how many more, the others name the first', () => {
    const lines = [record({ id: 'D' }), record({ id: 'E' }), record({ id: 'D' }), record({ id: 'D' })].map((r) => JSON.stringify(r));
    const result = parseImportText(lines.join('\n'), { today: TODAY });
    expect(result.errors.map((e) => e.message)).toEqual([
      'line 1: id: duplicate id "D", also at line 3 and 1 more record',
      'line 3: id: duplicate id "D", first at line 1',
      'line 4: id: duplicate id "D", first at line 1',
    ]);
    expect(result.legs.map((l) => l.id)).toEqual(['E']);
    expect(result.invalidRecords).toBe(3);
  });

  it("keeps a record's own errors before its duplicate-id error, the first occurrence's too", () => {
    const lines = [record({ id: 'D', depAirportIcao: 'EGL' }), record({ id: 'D' }), record({ id: 'D', seatNum: 0 })].map((r) => JSON.stringify(r));
    const result = parseImportText(lines.join('\n'), { today: TODAY });
    expect(result.errors.map((e) => e.message)).toEqual([
      'line 1: depAirportIcao: must be 4 letters (ICAO), got "EGL"',
      'line 1: id: duplicate id "D", also at line 2 and 1 more record',
      'line 2: id: duplicate id "D", first at line 1',
      expect.stringMatching(/^line 3: seatNum: /) as unknown as string,
      'line 3: id: duplicate id "D", first at line 1',
    ]);
    expect(result.invalidRecords).toBe(3);
  });

  it('8,000 copies of one id: messages of constant length, the errors capped and the rest counted', () => {
    const text = Array.from({ length: 8000 }, () => JSON.stringify(record({ id: 'X' }))).join('\n');
    const result = parseImportText(text, { today: TODAY });
    expect(result.errors).toHaveLength(MAX_ERRORS_KEPT);
    expect(result.moreErrors).toBe(8000 - MAX_ERRORS_KEPT);
    expect(result.errors[0]!.message).toBe('line 1: id: duplicate id "X", also at line 2 and 7998 more records');
    expect(result.errors[MAX_ERRORS_KEPT - 1]!.message).toBe(`line ${MAX_ERRORS_KEPT}: id: duplicate id "X", first at line 1`);
    expect(result.invalidRecords).toBe(8000);
    expect(result.legs).toEqual([]);
  });

  it('works on parsed records with index positions', () => {
    const result = validateImportRecords([record({ id: 'X' }), record({ id: 'X' })], { today: TODAY });
    expect(result.errors.map((e) => e.message)).toEqual([
      'index 0: id: duplicate id "X", also at index 1',
      'index 1: id: duplicate id "X", first at index 0',
    ]);
  });
});
