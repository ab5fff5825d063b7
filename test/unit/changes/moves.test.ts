// @dateIndependent: fixed instants (AT) for the data and the code alike.
import { describe, expect, it } from '@jest/globals';
import { consumeChanges } from '../../../src/changes/consume.js';
import type { ItemChange, ListingTransition } from '../../../src/changes/transition.js';
import { toStorageItem, TOUCH_ATTR, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { storedLeg } from '../../support/legs.js';
import { modelTable } from '../../support/memory-change-log.js';

/**
 * The change consumer gives its subscribers no transition that moves nothing (src/changes/moves.ts):
 * the record of its own repair write comes back on the stream and reaches none, while a change of
 * anything they read (the record, the reason, the entry's facts, what `include` reads, a sweep's
 * touch that lists a leg) still does. On the consumer's model table (its repairs written back).
 */
const AT = Date.parse('2026-11-25T10:00:00Z');
const T0 = AT - 86_400_000;
const T1 = AT - 3_600_000;
const leg = (id: string, fields: Partial<StoredLeg> = {}) => storedLeg({ id, startDate: '2026-12-01', endDate: '2026-12-05', price: 100, ...fields });
/** As a load writes it, with its instants; without them it is a write by hand, which the consumer repairs. */
const loaded = (id: string, fields: Partial<StoredLeg> = {}) => toStorageItem({ ...leg(id, fields), firstSeenAt: T0, updatedAt: T0, confirmedAt: T0 });

function consumer(staleSource?: { stale: boolean }) {
  const model = modelTable();
  let consumed = 0;
  let now = AT;
  /** Consumes the records written since the last call: the transitions its subscriber got and the records read. */
  const consume = async (records = model.stream.slice(consumed)) => {
    consumed = model.stream.length;
    now += 1_000;
    const got: ListingTransition[] = [];
    const stale = staleSource && (() => Promise.resolve((source: string) => staleSource.stale && source === 'acme'));
    await consumeChanges(records, { store: model.log, clock: () => now, subscribers: [(t) => Promise.resolve(void got.push(...t))], ...(stale ? { staleSources: stale } : {}) });
    return { got, records };
  };
  const update = (id: string, fields: Record<string, unknown>) => model.write(id, { ...model.table.get(id)!, ...fields });
  const setNow = (at: number) => void (now = at);
  return { ...model, consume, update, now: () => now, setNow };
}

const ids = (records: readonly ItemChange[]) => records.map((r) => r.id);

describe('the subscribers get no transition that moves nothing', () => {
  it("a leg written by hand: one transition, with its facts as the log keeps them; its repair's record none, beside a real change", async () => {
    const c = consumer();
    c.write('H', toStorageItem(leg('H')));
    const first = await c.consume();
    expect(first.got.map((t) => [t.id, t.before, t.after?.price])).toEqual([['H', null, 100]]);
    // Confirmed by its first write, at the consumer's instant, as the log's state says (it came with the repair's record before).
    expect(first.got[0]!.afterFacts).toEqual({ confirmedAt: c.now() });

    c.write('K', loaded('K'));
    const second = await c.consume();
    expect(ids(second.records)).toEqual(['H', 'K']);
    expect(second.got.map((t) => t.id)).toEqual(['K']);
    expect(c.log.log.map((e) => [e.type, e.id])).toEqual([['listed', 'H'], ['listed', 'K']]);
    // The item holds what the consumer derived: nothing more to write, nothing more on the stream.
    expect(c.table.get('H')).toMatchObject({ firstSeenAt: first.got[0]!.afterFacts!.confirmedAt, confirmedAt: first.got[0]!.afterFacts!.confirmedAt });
    expect((await c.consume()).records).toEqual([]);
  });

  it('a hand-made put over a loaded leg (a new price, no instants): one transition, none for its repair', async () => {
    const c = consumer();
    c.write('L', loaded('L'));
    await c.consume();
    c.write('L', toStorageItem(leg('L', { price: 200 })));
    expect((await c.consume()).got.map((t) => [t.before?.price, t.after?.price])).toEqual([[100, 200]]);
    const repair = await c.consume();
    expect(ids(repair.records)).toEqual(['L']);
    expect(repair.got).toEqual([]);
    expect(c.table.get('L')).toMatchObject({ firstSeenAt: T0, confirmedAt: T0, updatedAt: c.now() - 1_000 });
  });

  it('the same record with anything else the subscribers read changed still reaches them; their repairs do not, but where the state lags', async () => {
    // Each: the writes by hand, what the subscribers read of the last one's transition, and the transitions its repair gives.
    const cases: [string, Record<string, unknown>[], (t: ListingTransition) => unknown, unknown, number][] = [
      // A load that carries it again moves `confirmedAt` alone (the feed gives no change; a watch's `maxAgeHours` reads it).
      ['confirmed again', [{ confirmedAt: T1 }], (t) => [t.beforeFacts?.confirmedAt, t.afterFacts?.confirmedAt], [T0, T1], 0],
      // Back to what the log's state still keeps (it logs no such move): the subscribers hold T1.
      ['confirmed back', [{ confirmedAt: T1 }, { confirmedAt: T0 }], (t) => [t.beforeFacts?.confirmedAt, t.afterFacts?.confirmedAt], [T1, T0], 0],
      ['source', [{ source: 'other' }], (t) => [t.beforeFacts?.source, t.afterFacts?.source], ['acme', 'other'], 0],
      // A change of what the record shows (its departure times): the repair moves `updatedAt`, which the log's state,
      // following the record only, does not hold yet: given too (more, never less).
      ['departure time', [{ depTimeFrom: '09:00' }], (t) => [t.beforeFacts?.depTimeFrom, t.afterFacts?.depTimeFrom], ['08:00', '09:00'], 1],
      // What `include` reads of the item alone (its departure block's zone): not the record, not the entry's facts.
      ['departure zone', [{ depTimezone: 'Europe/Paris' }], (t) => [JSON.stringify(t.before) === JSON.stringify(t.after), t.afterFacts?.source], [true, 'acme'], 0],
    ];
    for (const [name, patches, read, expected, repaired] of cases) {
      const c = consumer();
      c.write('E', loaded('E', { registration: 'G-ABCD', depTimeFrom: '08:00', depTimeTo: '18:00', source: 'acme' }));
      await c.consume();
      await c.consume();
      let got: ListingTransition[] = [];
      let repair: ListingTransition[] = [];
      for (const fields of patches) {
        c.update('E', fields);
        got = (await c.consume()).got;
        repair = (await c.consume()).got;
      }
      expect([name, got.map(read), repair.length]).toEqual([name, [expected], repaired]);
    }
  });

  it('not listed on either side: a new reason reaches them, the repair of a leg written sold by hand does not', async () => {
    const c = consumer();
    c.write('S', toStorageItem(leg('S', { sold: true })));
    expect((await c.consume()).got.map((t) => [t.before, t.after, t.reason])).toEqual([[null, null, 'sold']]);
    const repair = await c.consume();
    expect(ids(repair.records)).toEqual(['S']);
    expect(repair.got).toEqual([]);
    c.update('S', { sold: false, blocked: true });
    expect((await c.consume()).got.map((t) => t.reason)).toEqual(['blocked']);
  });

  it('a leg past its expiry, withdrawn already: writes by hand and their repairs give nothing more', async () => {
    const c = consumer();
    c.write('X', loaded('X', { startDate: '2026-11-25', endDate: '2026-11-26' }));
    await c.consume();
    c.setNow(Date.parse('2026-11-27T00:00:00Z'));
    c.update('X', { price: 150, updatedAt: undefined });
    expect((await c.consume()).got.map((t) => [t.before?.price, t.after, t.reason])).toEqual([[100, null, 'expired']]);
    // Its repair's record, then another write: each shows the record before (the stream's old image), none after.
    const repair = await c.consume();
    expect(ids(repair.records)).toEqual(['X']);
    expect(repair.got).toEqual([]);
    c.update('X', { price: 160 });
    expect((await c.consume()).got).toEqual([]);
    expect(c.log.log.map((e) => [e.type, e.id])).toEqual([['listed', 'X'], ['withdrawn', 'X']]);
  });

  it("a sweep's touch lists a leg first written while its source was stale", async () => {
    const source = { stale: true };
    const c = consumer(source);
    c.write('T', loaded('T', { source: 'acme' }));
    expect((await c.consume()).got.map((t) => [t.after, t.reason])).toEqual([[null, 'stale']]);
    source.stale = false;
    c.update('T', { [TOUCH_ATTR]: c.now() });
    expect((await c.consume()).got.map((t) => [t.before, t.after?.price])).toEqual([[null, 100]]);
    expect(c.log.log.map((e) => [e.type, e.id])).toEqual([['listed', 'T']]);
  });

  it('a batch given again gives its moving transitions again, and again none for a repair', async () => {
    const c = consumer();
    c.write('H', toStorageItem(leg('H')));
    await c.consume();
    c.write('K', loaded('K'));
    const { records, got } = await c.consume();
    expect(got.map((t) => t.id)).toEqual(['K']);
    const again = await c.consume(records);
    expect(again.got).toEqual(got);
  });
});
