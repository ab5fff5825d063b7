import { describe, expect, it } from '@jest/globals';
import { AirportIndex } from '../../../src/airports/reference.js';
import { deliveryIdOf, payloadOf, retryDelaySeconds } from '../../../src/watches/delivery.js';
import { parseWatchFilters } from '../../../src/watches/filters.js';
import { deliveriesOf } from '../../../src/watches/match/transitions.js';
import { WatchIndex } from '../../../src/watches/matching.js';
import type { ListingTransition } from '../../../src/changes/transition.js';
import { listedRecord } from '../../../src/kernel/listed.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { storedLeg } from '../../support/legs.js';

/** The deliveries a batch makes: ids stable across a batch read again, payloads as the contract says. */
const NOW = Date.parse('2026-11-21T12:00:00Z');
const airports = new AirportIndex([]);
const leg = listedRecord(toStorageItem(storedLeg({ id: 'L1', startDate: '2026-11-23', endDate: '2026-11-24', depAirportIcao: 'LFPB' })), new Date(NOW))!;
const watches = [
  { id: 'W1', clientId: 'C1', filters: parseWatchFilters({ depAirportCode: 'LFPB' }, () => airports).parsed },
  { id: 'W2', clientId: 'C2', filters: parseWatchFilters({ depAirportCode: 'EGLF' }, () => airports).parsed },
];
const index = new WatchIndex(watches);

describe('deliveriesOf', () => {
  it('one delivery per matching watch, with the same ids when the batch is read again', () => {
    const t: ListingTransition = { id: 'L1', changedAt: '2026-11-21T12:00:00.000Z', before: null, after: leg };
    const first = deliveriesOf(index, [t], NOW);
    const again = deliveriesOf(index, [t], NOW + 60_000);
    expect(first.map((d) => d.record.watchId)).toEqual(['W1']);
    expect(again.map((d) => d.record.id)).toEqual(first.map((d) => d.record.id));
    expect(JSON.parse(first[0]!.message.payload)).toEqual({ type: 'empty_leg.listed', timestamp: t.changedAt, data: { watchId: 'W1', id: 'L1', leg } });
  });

  it('a changeId names the change: a retried batch with a new changedAt keeps its ids', () => {
    const a = deliveryIdOf('W1', { id: 'L1', changedAt: '2026-11-21T12:00:00.000Z', changeId: '42', before: null, after: leg }, 'empty_leg.listed');
    const b = deliveryIdOf('W1', { id: 'L1', changedAt: '2026-11-21T12:00:09.000Z', changeId: '42', before: null, after: leg }, 'empty_leg.listed');
    const c = deliveryIdOf('W1', { id: 'L1', changedAt: '2026-11-21T12:00:09.000Z', changeId: '43', before: null, after: leg }, 'empty_leg.listed');
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(a).toMatch(/^msg_[A-Za-z0-9_-]{27}$/);
  });

  it('withdrawn carries leg null', () => {
    expect(payloadOf('W1', { id: 'L1', changedAt: 'x', before: leg, after: null }, 'empty_leg.withdrawn').data.leg).toBeNull();
  });

  it('retry delays: the schedule, lengthened by at most 20 %, then none', () => {
    for (const r of [0, 0.25, 0.5, 0.999]) {
      const d = retryDelaySeconds([300], 1, () => r)!;
      expect(d).toBeGreaterThanOrEqual(300);
      expect(d).toBeLessThanOrEqual(360);
    }
    expect(retryDelaySeconds([300], 2, () => 0)).toBeUndefined();
  });
});
