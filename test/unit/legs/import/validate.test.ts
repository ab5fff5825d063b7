import { describe, expect, it } from '@jest/globals';
import { parseImportText, validateImportRecords } from '../../../../src/legs/import/index.js';
import { TODAY, record } from '../../../support/import-records.js';

describe('duplicate ids', () => {
  it('refuses every occurrence and names the other positions', () => {
    const lines = [record({ id: 'D' }), record({ id: 'E' }), record({ id: 'D' }), record({ id: 'D' })].map((r) => JSON.stringify(r));
    const result = parseImportText(lines.join('\n'), { today: TODAY });
    expect(result.errors.map((e) => e.message)).toEqual([
      'line 1: id: duplicate id "D", also at line 3, line 4',
      'line 3: id: duplicate id "D", also at line 1, line 4',
      'line 4: id: duplicate id "D", also at line 1, line 3',
    ]);
    expect(result.legs.map((l) => l.id)).toEqual(['E']);
  });

  it('works on parsed records with index positions', () => {
    const result = validateImportRecords([record({ id: 'X' }), record({ id: 'X' })], { today: TODAY });
    expect(result.errors.map((e) => e.message)).toEqual([
      'index 0: id: duplicate id "X", also at index 1',
      'index 1: id: duplicate id "X", also at index 0',
    ]);
  });
});
