import { describe, expect, it } from '@jest/globals';
import { parseImportText } from '../../../../src/loading/import/index.js';

/** The id `changes` is the change feed's path segment: the import refuses it, saying why; `Changes` is another id. */
const record = (id: string) => ({
  id,
  startDate: '2026-12-01',
  endDate: '2026-12-02',
  depCityName: 'Paris',
  arrCityName: 'Nice',
  listed: true,
  blocked: false,
  depTimezone: 'Europe/Paris',
});

describe('reserved leg ids', () => {
  it("refuses the id 'changes' with the reason", () => {
    const parsed = parseImportText(JSON.stringify([record('changes'), record('Changes')]), { today: '2026-11-25', allowUnknownAirports: true });
    expect(parsed.errors.map((e) => e.message)).toEqual([
      'index 0: id: is reserved: GET /open/v1/empty-legs/changes is the change feed, so no leg could be read by this id, got "changes"',
    ]);
  });
});
