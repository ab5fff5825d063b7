import { describe, expect, it } from '@jest/globals';
import { needsJournal } from '../../../src/changes/journal-follower.js';
import { toStorageItem } from '../../../src/legs/storage.js';
import { storedLeg } from '../../support/legs.js';

const leg = toStorageItem(storedLeg({ id: 'L1', startDate: '2026-12-01', endDate: '2026-12-03', price: 10 }));
const change = (oldImage?: Record<string, unknown>, newImage?: Record<string, unknown>, id = 'L1') => ({ id, sequenceNumber: '1', oldImage, newImage });

describe('what the consumer journals for the caches', () => {
  it('writes made around the tools (no new change stamp) that move the index entry or the record', () => {
    expect(needsJournal(change(undefined, leg))).toBe(true);
    expect(needsJournal(change(leg, { ...leg, price: 11 }))).toBe(true);
    expect(needsJournal(change(leg, undefined))).toBe(true);
    const { lb: _b, ls: _s, lf: _f, ...out } = leg;
    expect(needsJournal(change(leg, { ...out, blocked: true }))).toBe(true);
  });

  it("not the tools' own writes (a new `lc`, journaled by them), nor a change to nothing the listing holds, nor the table's own items", () => {
    expect(needsJournal(change({ ...leg, lc: 'a' }, { ...leg, price: 11, lc: 'b' }))).toBe(false);
    expect(needsJournal(change(leg, { ...leg, source: 'other' }))).toBe(false);
    expect(needsJournal(change(undefined, { id: '~journal', v: 2 }, '~journal'))).toBe(false);
    // A hand-made write that keeps the tool's old stamp is still around the tools.
    expect(needsJournal(change({ ...leg, lc: 'a' }, { ...leg, price: 12, lc: 'a' }))).toBe(true);
  });
});
