import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { sourceOf } from '../../../src/kernel/source.js';
import { expiryInstant, toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { fromStorageItem, isLegItem, planLoad, type StoredItem } from '../../../src/loading/sync-plan.js';
import { storedLeg } from '../../support/legs.js';

/** Planning a load or a sync: pure, over generated tables and files. */
const NOW = Date.parse('2026-11-21T12:00:00Z');
const SOURCES = ['acme', 'jetco', 'default'] as const;
const ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Pacific/Kiritimati', 'Pacific/Pago_Pago'] as const;

const dayOffset = (days: number) => new Date(NOW + days * 86_400_000).toISOString().slice(0, 10);

const legArb = (id: string): fc.Arbitrary<StoredLeg> =>
  fc
    .record({
      start: fc.integer({ min: -10, max: 30 }),
      span: fc.integer({ min: 0, max: 5 }),
      source: fc.option(fc.constantFrom(...SOURCES), { nil: undefined }),
      listed: fc.boolean(),
      blocked: fc.boolean(),
      depTimezone: fc.constantFrom(...ZONES),
      price: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
      city: fc.constantFrom('London', 'Paris', 'Nice'),
    })
    .map((r) => {
      const leg = storedLeg({
        id,
        startDate: dayOffset(r.start),
        endDate: dayOffset(r.start + r.span),
        listed: r.listed,
        blocked: r.blocked,
        depTimezone: r.depTimezone,
        price: r.price,
        currency: r.price === null ? null : 'EUR',
        depCityName: r.city,
      });
      return r.source === undefined ? leg : { ...leg, source: r.source };
    });

const IDS = Array.from({ length: 12 }, (_, i) => `L${i}`);
/** A subset of the ids, each with a generated leg. */
const legsArb: fc.Arbitrary<StoredLeg[]> = fc
  .subarray(IDS)
  .chain((ids) => (ids.length === 0 ? fc.constant<StoredLeg[]>([]) : fc.tuple(...ids.map(legArb)).map((legs): StoredLeg[] => [...legs])));

/** A table of stored items (some written before sources existed: no `source` attribute). */
const tableArb = legsArb.map((legs) => new Map<string, StoredItem>(legs.map((l) => [l.id, toStorageItem(l)] as const)));
/** A file: valid legs with distinct ids, each with an explicit source (as the import gives). */
const fileArb = legsArb.map((legs) => legs.map((l) => ({ ...l, source: l.source ?? 'default' })));

const visible = (item: StoredItem) => {
  const leg = fromStorageItem(item);
  return leg.listed && !leg.blocked && NOW < expiryInstant(leg.endDate, leg.depTimezone);
};

function apply(table: Map<string, StoredItem>, writes: readonly StoredLeg[]): Map<string, StoredItem> {
  const next = new Map(table);
  for (const leg of writes) next.set(leg.id, toStorageItem(leg));
  return next;
}

describe('a stored item and the leg it came from', () => {
  it('reads back the leg that was written, with its source (`default` when it had none)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...IDS).chain(legArb), (leg) => {
        expect(fromStorageItem(toStorageItem(leg))).toEqual({ ...leg, source: leg.source ?? 'default' });
      }),
    );
  });

  it('maps an aircraftType stored before the vocabulary as the import does (what an export and an unlist write)', () => {
    const item = (aircraftType: unknown) => ({ ...toStorageItem(storedLeg({ id: 'A', startDate: '2026-12-01', endDate: '2026-12-02' })), aircraftType });
    expect(fromStorageItem(item('Super Mid')).aircraftType).toBe('Super Midsize Jet');
    expect(fromStorageItem(item('LIGHT JET')).aircraftType).toBe('Light Jet');
    expect(fromStorageItem(item('Glider')).aircraftType).toBeNull();
    expect(fromStorageItem(item(7)).aircraftType).toBeNull();
  });

  it('tells legs from other items of the table', () => {
    const leg = toStorageItem(storedLeg({ id: 'A', startDate: '2026-12-01', endDate: '2026-12-02' }));
    expect(isLegItem(leg)).toBe(true);
    expect(isLegItem({ ...leg, id: '~journal' })).toBe(false);
    expect(isLegItem({ id: 'B', v: 3 })).toBe(false);
  });
});

describe('upsert', () => {
  it('writes every leg of the file and unlists nothing', () => {
    fc.assert(
      fc.property(fileArb, tableArb, (file, table) => {
        const plan = planLoad(file, table.values(), { mode: 'upsert', now: NOW });
        // Each with its instants (test/unit/loading/instants.properties.test.ts).
        expect(plan.writes.map(({ firstSeenAt: _f, updatedAt: _u, confirmedAt: _c, ...leg }) => leg)).toEqual(file);
        expect(plan.writes.every((leg) => leg.confirmedAt === NOW)).toBe(true);
        expect(plan.unlist).toEqual([]);
        expect(plan.refusals).toEqual([]);
        expect(plan.totals.new + plan.totals.changed + plan.totals.unchanged).toBe(file.length);
      }),
    );
  });
});

describe('sync', () => {
  it('writes new and changed legs, unlists the listed legs of the synced sources absent from the file, touches nothing else', () => {
    fc.assert(
      fc.property(fileArb, tableArb, fc.option(fc.subarray([...SOURCES], { minLength: 1 }), { nil: undefined }), (file, table, given) => {
        const plan = planLoad(file, table.values(), { mode: 'sync', sources: given, now: NOW });
        const synced = new Set(given ?? file.map((l) => l.source));
        expect(plan.sources).toEqual([...synced].sort());

        const fileIds = new Set(file.map((l) => l.id));
        const newIds = file.filter((l) => !table.has(l.id)).map((l) => l.id);
        const same = file.filter((l) => table.has(l.id) && JSON.stringify(sortKeys(toStorageItem(l))) === JSON.stringify(sortKeys(table.get(l.id)!)));
        expect(plan.writes.map((l) => l.id)).toEqual(file.filter((l) => !same.includes(l)).map((l) => l.id));
        expect(plan.totals.new).toBe(newIds.length);
        expect(plan.totals.unchanged).toBe(same.length);
        expect(plan.totals.changed).toBe(file.length - newIds.length - same.length);

        const expectedUnlist = [...table.values()]
          .filter((item) => synced.has(sourceOf(item)) && !fileIds.has(item.id as string) && item.listed === true)
          .map((item) => item.id as string)
          .sort();
        expect(plan.unlist.map((l) => l.id)).toEqual(expectedUnlist);
        for (const leg of plan.unlist) expect(leg).toEqual({ ...fromStorageItem(table.get(leg.id)!), listed: false });
      }),
    );
  });

  it('refuses exactly when more than half of a synced source legs in the listing would leave it', () => {
    fc.assert(
      fc.property(fileArb, tableArb, (file, table) => {
        const plan = planLoad(file, table.values(), { mode: 'sync', now: NOW });
        const fileIds = new Set(file.map((l) => l.id));
        const expected = [...new Set(file.map((l) => l.source))].sort().flatMap((source) => {
          const shown = [...table.values()].filter((item) => sourceOf(item) === source && visible(item));
          const leaving = shown.filter((item) => !fileIds.has(item.id as string)).length;
          return leaving * 2 > shown.length ? [{ source, inListing: shown.length, leaving }] : [];
        });
        expect(plan.refusals).toEqual(expected);
      }),
    );
  });

  it('is idempotent: after its writes, the same sync plans nothing', () => {
    fc.assert(
      fc.property(fileArb, tableArb, (file, table) => {
        const first = planLoad(file, table.values(), { mode: 'sync', now: NOW });
        const after = apply(table, [...first.writes, ...first.unlist]);
        const again = planLoad(file, after.values(), { mode: 'sync', now: NOW });
        expect([again.writes, again.unlist, again.totals.new, again.totals.changed]).toEqual([[], [], 0, 0]);
        expect(again.totals.unchanged).toBe(file.length);
      }),
    );
  });

  it('is finished by running it again after it stopped part-way', () => {
    fc.assert(
      fc.property(fileArb, tableArb, fc.nat(), (file, table, cut) => {
        const plan = planLoad(file, table.values(), { mode: 'sync', now: NOW });
        const all = [...plan.writes, ...plan.unlist];
        const partial = apply(table, all.slice(0, all.length === 0 ? 0 : cut % all.length));
        const rerun = planLoad(file, partial.values(), { mode: 'sync', now: NOW });
        expect(apply(partial, [...rerun.writes, ...rerun.unlist])).toEqual(apply(table, all));
      }),
    );
  });

  it('names legs that move from another source, and counts them as changed', () => {
    const a = storedLeg({ id: 'A', startDate: dayOffset(1), endDate: dayOffset(2), source: 'acme' });
    const plan = planLoad([{ ...a, source: 'jetco' }], [toStorageItem(a)], { mode: 'sync', now: NOW });
    expect(plan.moves).toEqual([{ id: 'A', from: 'acme', to: 'jetco' }]);
    expect(plan.bySource.map((s) => [s.source, s.changed])).toEqual([['jetco', 1]]);
  });

  it('counts a truncated feed: 3 of 4 listed legs gone is refused, 2 of 4 is not', () => {
    const legs = ['A', 'B', 'C', 'D'].map((id) => storedLeg({ id, startDate: dayOffset(1), endDate: dayOffset(2), source: 'acme' }));
    const table = legs.map(toStorageItem);
    const truncated = planLoad(legs.slice(0, 1), table, { mode: 'sync', now: NOW });
    expect(truncated.refusals).toEqual([{ source: 'acme', inListing: 4, leaving: 3 }]);
    expect(truncated.unlist.map((l) => l.id)).toEqual(['B', 'C', 'D']);
    const half = planLoad(legs.slice(0, 2), table, { mode: 'sync', now: NOW });
    expect(half.refusals).toEqual([]);
    expect(half.bySource).toEqual([{ source: 'acme', synced: true, new: 0, changed: 0, unchanged: 2, unlist: 2, inListing: 4, leaving: 2 }]);
  });

  it('an empty file for a given source unlists all of it (refused unless forced); expired legs do not count for the guard', () => {
    const live = storedLeg({ id: 'LIVE', startDate: dayOffset(1), endDate: dayOffset(2), source: 'acme' });
    const old = storedLeg({ id: 'OLD', startDate: dayOffset(-9), endDate: dayOffset(-8), source: 'acme' });
    const other = storedLeg({ id: 'OTHER', startDate: dayOffset(1), endDate: dayOffset(2), source: 'jetco' });
    const plan = planLoad([], [live, old, other].map(toStorageItem), { mode: 'sync', sources: ['acme'], now: NOW });
    expect(plan.unlist.map((l) => l.id)).toEqual(['LIVE', 'OLD']);
    expect(plan.refusals).toEqual([{ source: 'acme', inListing: 1, leaving: 1 }]);
    const onlyOld = planLoad([live], [live, old].map(toStorageItem), { mode: 'sync', now: NOW });
    expect([onlyOld.unlist.map((l) => l.id), onlyOld.refusals]).toEqual([['OLD'], []]);
  });
});

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, sortKeys(v)]));
}
