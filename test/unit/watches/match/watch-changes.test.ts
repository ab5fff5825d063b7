import { describe, expect, it } from '@jest/globals';
import { planChanges } from '../../../../src/watches/match/watch-changes.js';

const key = (i: number) => ({ clientId: `cli_${i % 3}`, watchId: `wat_${i}` });
/** The version item after changes 1..version, slot `v mod slots` holding the last change written there; `unwritten` never wrote theirs. */
function versionItem(version: number, slots: number, unwritten: readonly number[] = []) {
  const bySlot = new Map<number, number>();
  for (let v = 1; v <= version; v++) if (!unwritten.includes(v)) bySlot.set(v % slots, v);
  return { version, changes: new Map([...bySlot.values()].map((v) => [v, key(v)])) };
}

describe('planChanges', () => {
  it('reads every watch without an index, after a reset of the version, or further behind than the slots', () => {
    expect(planChanges(undefined, versionItem(3, 4), 4)).toEqual({ kind: 'scan' });
    expect(planChanges(5, versionItem(3, 4), 4)).toEqual({ kind: 'scan' });
    expect(planChanges(1, versionItem(6, 4), 4)).toEqual({ kind: 'scan' });
  });

  it('nothing when the version did not move; the watches named since, once each, when it did', () => {
    expect(planChanges(3, versionItem(3, 4), 4)).toEqual({ kind: 'none' });
    expect(planChanges(2, versionItem(6, 4), 4)).toEqual({ kind: 'patch', keys: [3, 4, 5, 6].map(key), upTo: 6, complete: true });
    const same = { version: 3, changes: new Map([[2, key(7)], [3, key(7)]]) };
    expect(planChanges(1, same, 4)).toEqual({ kind: 'patch', keys: [key(7)], upTo: 3, complete: true });
  });

  it('stops before a slot not written yet', () => {
    expect(planChanges(2, versionItem(6, 8, [5]), 8)).toEqual({ kind: 'patch', keys: [3, 4].map(key), upTo: 4, complete: false });
    expect(planChanges(2, versionItem(6, 8, [3]), 8)).toEqual({ kind: 'patch', keys: [], upTo: 2, complete: false });
    expect(planChanges(0, versionItem(4, 4, [1]), 4)).toEqual({ kind: 'patch', keys: [], upTo: 0, complete: false });
  });
});
