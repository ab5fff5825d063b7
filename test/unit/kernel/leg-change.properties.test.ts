import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AIRCRAFT_CATEGORIES } from '../../../src/kernel/aircraft-category.js';
import { addDays } from '../../../src/kernel/dates.js';
import { derivedIndexKeyOf, indexKeyOf, indexRepairOf } from '../../../src/kernel/leg-change.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { fcParams } from '../../support/fast-check.js';
import { storedLeg } from '../../support/legs.js';

/**
 * A leg's derived attributes: the loader's items need no repair; a hand edit of any field the index
 * holds gives the attributes the loader would write for the edited leg; an item that is not listed
 * (unlisted, blocked, retired, a span that is none) has no index entry, and a repair removes it.
 */
const code = (n: number) => fc.stringMatching(new RegExp(`^[A-Z]{${n}}$`));
const leg = fc
  .record({
    id: fc.stringMatching(/^[A-Za-z0-9]{1,8}$/),
    start: fc.integer({ min: 0, max: 400 }),
    span: fc.integer({ min: 0, max: 40 }),
    depCityName: fc.string({ maxLength: 8 }),
    arrCityName: fc.string({ maxLength: 8 }),
    depAirportIcao: fc.option(code(4)),
    depAirportIata: fc.option(code(3)),
    arrAirportIcao: fc.option(code(4)),
    seatNum: fc.option(fc.integer({ min: 1, max: 850 })),
    aircraftType: fc.option(fc.constantFrom(...AIRCRAFT_CATEGORIES)),
    depTimezone: fc.constantFrom('UTC', 'Europe/Paris', 'Pacific/Kiritimati', 'America/Los_Angeles'),
    listed: fc.boolean(),
    blocked: fc.boolean(),
    registration: fc.option(fc.constantFrom('N-123AB', 'G-ABCD')),
    depTimeFrom: fc.option(fc.constantFrom('00:00', '08:15', '23:59')),
    depTimeTo: fc.option(fc.constantFrom('00:00', '18:30', '23:59')),
  })
  .map(({ start, span, depTimeFrom, depTimeTo, ...f }) =>
    storedLeg({
      ...f,
      ...(depTimeFrom === null ? {} : { depTimeFrom }),
      ...(depTimeTo === null ? {} : { depTimeTo }),
      startDate: addDays('2026-11-01', start),
      endDate: addDays('2026-11-01', start + span),
    }),
  );

describe('derived index attributes', () => {
  it("the loader's item is its own derivation: no repair, the same index entry", () => {
    fc.assert(
      fc.property(leg, (l) => {
        const item = toStorageItem(l);
        expect(derivedIndexKeyOf(item)).toEqual(indexKeyOf(item));
        expect(indexRepairOf(item)).toBeUndefined();
      }),
      fcParams(300),
    );
  });

  it('a hand edit of the leg is repaired into what the loader writes for the edited leg', () => {
    fc.assert(
      fc.property(leg, leg, (a, b) => {
        // b's indexed fields written over a's item by hand, a's derived attributes left as they were.
        const { id: _id, ...fields } = b;
        const edited = { ...toStorageItem(a), ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null)) };
        for (const [k, v] of Object.entries(fields)) if (v === null) delete edited[k];
        // b's departure times written as b has them: none when it has none.
        for (const k of ['depTimeFrom', 'depTimeTo']) if (!(k in fields)) delete edited[k];
        const expected = toStorageItem({ ...b, id: a.id });
        const repair = indexRepairOf(edited);
        const repaired: Record<string, unknown> = { ...edited, ...repair?.set };
        for (const name of repair?.remove ?? []) delete repaired[name];
        for (const name of ['lb', 'ls', 'lf', 'xd']) expect(repaired[name]).toEqual(expected[name]);
      }),
      fcParams(300),
    );
  });

  it('is none for a retired leg, an end before the start or an unreadable date; a repair removes what such an item holds', () => {
    const item = toStorageItem(storedLeg({ id: 'A', startDate: '2026-12-01', endDate: '2026-12-03' }));
    expect(derivedIndexKeyOf({ ...item, ttl: 1 })).toBeUndefined();
    expect(derivedIndexKeyOf({ ...item, endDate: '2026-11-30' })).toBeUndefined();
    expect(derivedIndexKeyOf({ ...item, startDate: '2026-12-1' })).toBeUndefined();
    expect(indexRepairOf({ ...item, startDate: 7 })).toEqual({ set: {}, remove: ['lb', 'ls', 'lf', 'xa'] });
    expect(indexRepairOf({ ...item, seatNum: 'many' })).toBeUndefined();
    expect(indexRepairOf({ ...item, seatNum: 3.5 })).toBeUndefined();
  });
});
