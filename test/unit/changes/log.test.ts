import { describe, expect, it } from '@jest/globals';
import { changeTypeOf, digestOf, planLog, type SequencedTransition } from '../../../src/changes/log.js';
import { compareSequenceNumbers, shownLeg, transitionOf, type ItemChange } from '../../../src/changes/transition.js';
import { toApiRecord } from '../../../src/kernel/model.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { storedLeg } from '../../support/legs.js';

const AT = Date.parse('2026-11-25T10:00:00Z');
const item = (fields: Parameters<typeof storedLeg>[0]) => toStorageItem(storedLeg(fields));
const leg = item({ id: 'L1', startDate: '2026-12-01', endDate: '2026-12-03', price: 1000 });
const change = (sequenceNumber: string, oldImage?: Record<string, unknown>, newImage?: Record<string, unknown>, id = 'L1'): ItemChange => ({
  id,
  sequenceNumber,
  oldImage,
  newImage,
});
const seq = (c: ItemChange): SequencedTransition => ({ transition: transitionOf(c, AT)!, sequenceNumber: c.sequenceNumber });

describe('listing transitions from the stream images', () => {
  it('a listed, unblocked leg is shown as the API record; unlisted, blocked, retired (no index attributes) or absent is null', () => {
    expect(shownLeg(leg)).toEqual(toApiRecord(leg));
    expect(shownLeg(item({ id: 'L1', startDate: '2026-12-01', endDate: '2026-12-03', listed: false }))).toBeNull();
    expect(shownLeg(item({ id: 'L1', startDate: '2026-12-01', endDate: '2026-12-03', blocked: true }))).toBeNull();
    const { lb: _lb, ls: _ls, lf: _lf, ...retired } = leg;
    expect(shownLeg({ ...retired, ttl: 1 })).toBeNull();
    expect(shownLeg(undefined)).toBeNull();
  });

  it("the table's own items (journal, snapshot, change log) make no transition", () => {
    expect(transitionOf(change('1', undefined, { id: '~journal', v: 1 }, '~journal'), AT)).toBeUndefined();
    expect(transitionOf(change('1', undefined, leg), AT)).toEqual({ id: 'L1', changedAt: '2026-11-25T10:00:00.000Z', changeId: '1', before: null, after: toApiRecord(leg) });
  });

  it('sequence numbers compare as numbers of any length', () => {
    expect(compareSequenceNumbers('9', '10')).toBeLessThan(0);
    expect(compareSequenceNumbers('000123', '123')).toBe(0);
    expect(compareSequenceNumbers('40000000000000000000000000000000000000001', '4')).toBeGreaterThan(0);
  });
});

describe('the change log plan', () => {
  it('types follow what the log last gave: listed, updated, withdrawn; a change to nothing shown gives nothing', () => {
    expect(changeTypeOf(null, 'a')).toBe('listed');
    expect(changeTypeOf('a', 'b')).toBe('updated');
    expect(changeTypeOf('a', null)).toBe('withdrawn');
    expect(changeTypeOf('a', 'a')).toBeUndefined();
    expect(changeTypeOf(null, null)).toBeUndefined();
    const stamped = { ...leg, lc: '2026-11-25T09:00:00Z', source: 'other' };
    expect(planLog([seq(change('2', leg, stamped))], new Map(), 49)).toEqual([]);
  });

  it("a sweep's touch lists a shown leg the log never gave (written while its source was stale), and nothing more for one it gave", () => {
    const touched = { ...leg, xs: AT };
    const touch = change('5', leg, touched);
    expect(planLog([seq(touch)], new Map(), 49).flatMap((g) => g.entries.map((e) => [e.type, e.id]))).toEqual([['listed', 'L1']]);
    const gave = new Map([['L1', { sequenceNumber: '4', digest: digestOf(toApiRecord(leg)) }]]);
    expect(planLog([seq(touch)], gave, 49)).toEqual([]);
    const told = new Map([['L1', { sequenceNumber: '4', digest: null }]]);
    expect(planLog([seq(touch)], told, 49).flatMap((g) => g.entries.map((e) => e.type))).toEqual(['listed']);
    // Touched again (a later run): the same rule; a hand write that keeps the touch's instant is no touch.
    expect(transitionOf(change('6', touched, { ...touched, xs: AT + 60_000 }), AT)!.before).toBeNull();
    expect(transitionOf(change('7', touched, { ...touched, price: 2000 }), AT)!.before).toEqual(toApiRecord(leg));
    // A touch of a leg its source's staleness takes out: withdrawn from what it showed.
    const stale = (source: string) => source === 'default';
    expect(planLog([{ transition: transitionOf(touch, AT, stale)!, sequenceNumber: '5' }], new Map(), 49).flatMap((g) => g.entries.map((e) => [e.type, e.reason]))).toEqual([['withdrawn', 'stale']]);
  });

  it('new, changed, blocked then deleted: listed, updated, withdrawn, nothing', () => {
    const changed = { ...leg, price: 900 };
    const blocked = item({ id: 'L1', startDate: '2026-12-01', endDate: '2026-12-03', price: 900, blocked: true });
    const groups = planLog(
      [seq(change('1', undefined, leg)), seq(change('2', leg, changed)), seq(change('3', changed, blocked)), seq(change('4', blocked, undefined))],
      new Map(),
      49,
    );
    expect(groups.flatMap((g) => g.entries.map((e) => [e.type, e.leg?.price ?? null]))).toEqual([
      ['listed', 1000],
      ['updated', 900],
      ['withdrawn', null],
    ]);
    expect(groups[0]!.states.get('L1')).toEqual({ next: { sequenceNumber: '3', digest: null, changedAt: '2026-11-25T10:00:00.000Z' }, prior: undefined });
  });

  it('records already applied (sequence number not above the state) are skipped: a batch given again adds nothing', () => {
    const batch = [seq(change('5', undefined, leg)), seq(change('6', leg, { ...leg, price: 7 }))];
    const first = planLog(batch, new Map(), 49);
    const stored = new Map([...first[0]!.states].map(([id, s]) => [id, s.next]));
    expect(planLog(batch, stored, 49)).toEqual([]);
    // Half applied: only what follows the state.
    const half = planLog(batch, new Map([['L1', { sequenceNumber: '5', digest: digestOf(toApiRecord(leg)) }]]), 49);
    expect(half.flatMap((g) => g.entries.map((e) => e.type))).toEqual(['updated']);
  });

  it('groups hold at most groupSize entries, in order, each with the states after it and before it', () => {
    const batch = Array.from({ length: 7 }, (_, i) =>
      seq(change(String(i + 1), undefined, item({ id: `L${i % 3}`, startDate: '2026-12-01', endDate: '2026-12-03', price: i }), `L${i % 3}`)),
    );
    const groups = planLog(batch, new Map(), 3);
    expect(groups.map((g) => g.entries.length)).toEqual([3, 3, 1]);
    expect(groups[1]!.states.get('L0')).toEqual({
      next: { sequenceNumber: '4', digest: digestOf(batch[3]!.transition.after), changedAt: batch[3]!.transition.changedAt },
      prior: groups[0]!.states.get('L0')!.next,
    });
  });
});
