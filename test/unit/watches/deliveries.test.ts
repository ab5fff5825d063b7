import { describe, expect, it } from '@jest/globals';
import { AirportIndex } from '../../../src/airports/reference.js';
import { deliveryIdOf, payloadOf, retryDelaySeconds } from '../../../src/watches/delivery.js';
import type { RateSet } from '../../../src/rates/index.js';
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

  it("a watch with a currency gets the leg with convertedPrice in it, with the rates it was matched with; others get the leg as listed", () => {
    const rates: RateSet = { date: '2026-11-20', rates: { USD: '1.0500', GBP: '0.8400' } };
    const priced = { ...leg, price: 10_500, currency: 'USD' };
    const index = new WatchIndex([
      { id: 'W3', clientId: 'C3', filters: parseWatchFilters({ currency: 'GBP', maxPrice: 9000 }, () => airports, rates).parsed },
      { id: 'W4', clientId: 'C4', filters: parseWatchFilters({ depAirportCode: 'LFPB' }, () => airports).parsed },
    ]);
    const t: ListingTransition = { id: 'L1', changedAt: '2026-11-21T12:00:00.000Z', before: null, after: priced };
    const bodies = new Map(deliveriesOf(index, [t], NOW, rates).map((d) => [d.record.watchId, JSON.parse(d.message.payload) as { data: { leg: Record<string, unknown> } }]));
    // 10,500 USD / 1.05 x 0.84 = 8,400 GBP, after the record's own fields.
    expect(bodies.get('W3')!.data.leg).toEqual({ ...priced, convertedPrice: { amount: 8400, currency: 'GBP', rateDate: '2026-11-20' } });
    expect(Object.keys(bodies.get('W3')!.data.leg).at(-1)).toBe('convertedPrice');
    expect(bodies.get('W4')!.data.leg).toEqual(priced);
    expect(payloadOf('W3', { ...t, before: priced, after: null }, 'empty_leg.withdrawn', { currency: 'GBP', rates }).data.leg).toBeNull();
    // No rates loaded: a EUR watch's leg says it could not convert.
    expect(payloadOf('W3', t, 'empty_leg.listed', { currency: 'EUR', rates: undefined }).data.leg).toMatchObject({ convertedPrice: null });
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
