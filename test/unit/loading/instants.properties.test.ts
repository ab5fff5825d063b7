// @dateIndependent: fixed instants only
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { IndexEntryReader } from '../../../src/kernel/index-entry.js';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { withWrittenInstants, derivedIndexKeyOf, indexRepairOf } from '../../../src/kernel/leg-change.js';
import { confirmedAtOf, instantsOf } from '../../../src/kernel/leg/instants.js';
import { planLoad, type StoredItem } from '../../../src/loading/sync-plan.js';
import { storedLeg } from '../../support/legs.js';

/** A leg's three instants across loads, syncs and hand writes (docs/storage.md, "A leg's instants"). */
const T0 = Date.parse('2027-01-10T08:00:00Z');
const HOUR = 3_600_000;

const legArb: fc.Arbitrary<StoredLeg> = fc
  .record({
    start: fc.integer({ min: 1, max: 40 }),
    span: fc.integer({ min: 0, max: 4 }),
    price: fc.option(fc.integer({ min: 1, max: 90_000 }), { nil: null }),
    source: fc.constantFrom('acme', 'jetco', 'default'),
    depTimeTo: fc.option(fc.constantFrom('09:30', '18:00', '23:59'), { nil: undefined }),
  })
  .map((r) => {
    const startDate = new Date(T0 + r.start * 24 * HOUR).toISOString().slice(0, 10);
    const endDate = new Date(T0 + (r.start + r.span) * 24 * HOUR).toISOString().slice(0, 10);
    const leg = storedLeg({ id: 'L1', startDate, endDate, price: r.price, currency: r.price === null ? null : 'EUR', depTimezone: 'Europe/London' });
    return { ...leg, source: r.source, ...(r.depTimeTo === undefined ? {} : { depTimeTo: r.depTimeTo }) };
  });

/** The table after a load of `legs` at `now` over `table` (mode upsert or sync): the plan's writes as the loader puts them. */
function load(table: Map<string, StoredItem>, legs: StoredLeg[], mode: 'upsert' | 'sync', now: number): Map<string, StoredItem> {
  const plan = planLoad(legs, table.values(), { mode, now });
  const next = new Map(table);
  for (const leg of [...plan.writes, ...plan.unlist]) next.set(leg.id, toStorageItem(leg));
  return next;
}

const entryOf = (item: StoredItem) => new IndexEntryReader().read(item)!;

describe('the instants of a leg', () => {
  it('a sync that carries a leg unchanged writes nothing and moves its confirmed instant only', () => {
    fc.assert(
      fc.property(legArb, fc.integer({ min: 1, max: 1000 }), (leg, minutes) => {
        const t1 = T0 + minutes * 60_000;
        const first = load(new Map(), [leg], 'sync', T0);
        const item0 = first.get('L1')!;
        expect(instantsOf(item0)).toEqual({ firstSeenAt: T0, updatedAt: T0, confirmedAt: T0 });
        expect(entryOf(item0).confirmedAt).toBe(T0);
        const plan = planLoad([leg], first.values(), { mode: 'sync', now: t1 });
        expect(plan.writes).toEqual([]);
        // The source's sync stamp (lastSyncedAt = t1) confirms it: first seen and updated stay.
        const item1 = load(first, [leg], 'sync', t1).get('L1')!;
        expect(item1).toEqual(item0);
        expect(confirmedAtOf(entryOf(item1), t1)).toBe(Math.floor(t1 / 1000) * 1000);
        expect(instantsOf(item1)).toMatchObject({ firstSeenAt: T0, updatedAt: T0 });
      }),
    );
  });

  it('an upsert that carries it unchanged writes it with its confirmed instant moved only', () => {
    fc.assert(
      fc.property(legArb, fc.integer({ min: 1, max: 1000 }), (leg, seconds) => {
        const t1 = T0 + seconds * 1000;
        const item1 = load(load(new Map(), [leg], 'upsert', T0), [leg], 'upsert', t1).get('L1')!;
        expect(instantsOf(item1)).toEqual({ firstSeenAt: T0, updatedAt: T0, confirmedAt: t1 });
        expect(entryOf(item1).confirmedAt).toBe(t1);
      }),
    );
  });

  it('a load that changes what the record shows moves updated and confirmed, never first seen', () => {
    fc.assert(
      fc.property(legArb, fc.constantFrom<'upsert' | 'sync'>('upsert', 'sync'), (leg, mode) => {
        const t1 = T0 + HOUR;
        const changed = { ...leg, depCityName: `${leg.depCityName} City` };
        const item = load(load(new Map(), [leg], mode, T0), [changed], mode, t1).get('L1')!;
        expect(instantsOf(item)).toEqual({ firstSeenAt: T0, updatedAt: t1, confirmedAt: t1 });
        // A change the record does not show (listed again, its source) is no update.
        const hidden = load(load(new Map(), [leg], mode, T0), [{ ...leg, source: 'other' }], mode, t1).get('L1')!;
        expect(instantsOf(hidden)).toEqual({ firstSeenAt: T0, updatedAt: T0, confirmedAt: t1 });
      }),
    );
  });

  it('the change consumer keeps a load write as it is and gives a hand write what a load would have kept', () => {
    fc.assert(
      fc.property(legArb, (leg) => {
        const t1 = T0 + HOUR;
        const before = load(new Map(), [leg], 'upsert', T0).get('L1')!;
        const reloaded = load(new Map([['L1', before]]), [{ ...leg, seatNum: 3 }], 'upsert', t1).get('L1')!;
        const seen = withWrittenInstants(before, reloaded, t1 + 5000);
        expect(indexRepairOf(reloaded, derivedIndexKeyOf(seen.image), seen.instants)).toBeUndefined();
        // By hand: a new field value with the instants as they were, or dropped.
        const hand = { ...before, seatNum: 3 };
        const dropped = Object.fromEntries(Object.entries(hand).filter(([k]) => !['firstSeenAt', 'updatedAt', 'confirmedAt'].includes(k)));
        for (const after of [hand, dropped]) {
          const { image, instants } = withWrittenInstants(before, after, t1);
          expect(instants).toEqual({ firstSeenAt: T0, updatedAt: t1, confirmedAt: T0 });
          const repair = indexRepairOf(after, derivedIndexKeyOf(image), instants)!;
          expect(repair.set.updatedAt).toBe(t1);
        }
        // A new item written by hand: first seen, updated and confirmed by that write.
        expect(withWrittenInstants(undefined, dropped, t1).instants).toEqual({ firstSeenAt: t1, updatedAt: t1, confirmedAt: t1 });
      }),
    );
  });
});
