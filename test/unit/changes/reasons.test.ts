// @dateIndependent: fixed instants (AT) for the data and the code alike.
import { describe, expect, it } from '@jest/globals';
import { transitionOf, withdrawReasonOf, type ItemChange } from '../../../src/changes/transition.js';
import { planLog } from '../../../src/changes/log.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { toApiRecord } from '../../../src/kernel/model.js';
import { deliveriesOf } from '../../../src/watches/match/transitions.js';
import { WatchIndex } from '../../../src/watches/matching.js';
import { parseWatchFilters } from '../../../src/watches/filters.js';
import { AirportIndex } from '../../../src/airports/reference.js';
import { storedLeg } from '../../support/legs.js';

/**
 * Why a leg left (docs/api.md, "Change feed"): each reason from what the item says at the
 * consumer's instant, in the order of precedence, and a watch's `no_longer_matching`.
 */
const AT = Date.parse('2026-11-25T10:00:00Z');
const leg = (over: Record<string, unknown> = {}) => ({ ...toStorageItem(storedLeg({ id: 'L1', startDate: '2026-11-25', endDate: '2026-11-27', source: 'acme' })), ...over });
const none = () => false;

describe('withdrawReasonOf', () => {
  it('is undefined for a listed leg, and each reason for what makes the leg leave', () => {
    expect(withdrawReasonOf(leg(), AT, none)).toBeUndefined();
    expect(withdrawReasonOf(undefined, AT)).toBe('deleted');
    expect(withdrawReasonOf(leg({ sold: true, listed: false }), AT)).toBe('sold');
    expect(withdrawReasonOf(leg({ blocked: true }), AT)).toBe('blocked');
    expect(withdrawReasonOf(leg({ listed: false }), AT)).toBe('unlisted');
    expect(withdrawReasonOf(leg({ ttl: 1 }), AT)).toBe('expired');
    expect(withdrawReasonOf(leg(), AT, (s) => s === 'acme')).toBe('stale');
    expect(withdrawReasonOf(leg(), AT, (s) => s === 'other')).toBeUndefined();
  });

  it('is expired from the leg\'s expiry instant in its departure zone on, not before', () => {
    // Ends 2026-11-27 in UTC: expired from 2026-11-28T00:00Z; in Los Angeles from 08:00Z.
    expect(withdrawReasonOf(leg(), Date.parse('2026-11-27T23:59:59Z'))).toBeUndefined();
    expect(withdrawReasonOf(leg(), Date.parse('2026-11-28T00:00:00Z'))).toBe('expired');
    const la = { ...toStorageItem(storedLeg({ id: 'L1', startDate: '2026-11-25', endDate: '2026-11-27', depTimezone: 'America/Los_Angeles' })) };
    expect(withdrawReasonOf(la, Date.parse('2026-11-28T07:59:00Z'))).toBeUndefined();
    expect(withdrawReasonOf(la, Date.parse('2026-11-28T08:00:00Z'))).toBe('expired');
  });

  it('puts sold before blocked, blocked before unlisted, expired before stale', () => {
    expect(withdrawReasonOf(leg({ sold: true, blocked: true, listed: false }), AT)).toBe('sold');
    expect(withdrawReasonOf(leg({ blocked: true, listed: false }), AT)).toBe('blocked');
    expect(withdrawReasonOf(leg(), Date.parse('2026-12-01T00:00:00Z'), () => true)).toBe('expired');
  });
});

describe('a withdrawn entry', () => {
  const change = (oldImage: Record<string, unknown> | undefined, newImage: Record<string, unknown> | undefined, n: string): ItemChange => ({ id: 'L1', sequenceNumber: n, oldImage, newImage });

  it('carries the reason of the change that withdrew the leg; the other types none', () => {
    const listed = transitionOf(change(undefined, leg(), '1'), AT)!;
    // A hand edit moving endDate into the past: withdrawn at once, expired (not `updated`).
    const moved = transitionOf(change(leg(), leg({ endDate: '2026-11-24', startDate: '2026-11-20' }), '2'), AT)!;
    expect(moved.after).toBeNull();
    expect(moved.reason).toBe('expired');
    const [group] = planLog([{ transition: listed, sequenceNumber: '1' }, { transition: moved, sequenceNumber: '2' }], new Map(), 10);
    expect(group!.entries.map((e) => [e.type, e.reason])).toEqual([
      ['listed', undefined],
      ['withdrawn', 'expired'],
    ]);
  });
});

describe("a watch's withdrawn delivery", () => {
  const airports = new AirportIndex([]);
  const index = new WatchIndex([{ id: 'w1', clientId: 'c1', filters: parseWatchFilters({ minSeats: 4 }, () => airports).parsed }]);

  it('says the reason of the change, or no_longer_matching while the leg is still listed', () => {
    const cheap = toApiRecord(toStorageItem(storedLeg({ id: 'L1', startDate: '2026-11-25', endDate: '2026-11-27', seatNum: 8 })));
    const dear = { ...cheap, seatNum: 2 };
    const payloads = (before: typeof cheap | null, after: typeof cheap | null, reason?: 'sold') =>
      deliveriesOf(index, [{ id: 'L1', changedAt: new Date(AT).toISOString(), changeId: '9', before, after, ...(reason ? { reason } : {}) }], AT).map(
        (d) => JSON.parse(d.message.payload) as { type: string; data: { reason?: string; leg: unknown } },
      );
    expect(payloads(cheap, null, 'sold')).toEqual([expect.objectContaining({ type: 'empty_leg.withdrawn', data: expect.objectContaining({ reason: 'sold', leg: null }) })]);
    expect(payloads(cheap, dear)).toEqual([expect.objectContaining({ type: 'empty_leg.withdrawn', data: expect.objectContaining({ reason: 'no_longer_matching', leg: null }) })]);
    const [listed] = payloads(null, cheap);
    expect(listed!.type).toBe('empty_leg.listed');
    expect(listed!.data).not.toHaveProperty('reason');
  });
});
