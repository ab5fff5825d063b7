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
import { factsOfItem, parseInclude, withBlocks } from '../../../src/kernel/leg/blocks.js';

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

  it('a watch with include gets the blocks after the usual fields (and convertedPrice), as withBlocks makes them for the listing; others the leg byte for byte', () => {
    const item = toStorageItem(storedLeg({ id: 'L1', startDate: '2026-11-23', endDate: '2026-11-24', depAirportIcao: 'LFPB', depTimezone: 'Europe/Paris', depTimeFrom: '08:15', depTimeTo: '20:00', source: 'acme' }));
    const facts = { ...factsOfItem(item), firstSeenAt: NOW - 7_200_000, updatedAt: NOW - 3_600_000, confirmedAt: NOW - 60_000 };
    const registry = (id: string) => ({ name: `${id} Jets`, kind: 'operator', verified: true, lastLoadedAt: NOW - 60_000, lastSyncedAt: undefined });
    const both = parseInclude('provenance,departure')!;
    const index = new WatchIndex([
      { id: 'W5', clientId: 'C5', filters: parseWatchFilters({ depAirportCode: 'LFPB' }, () => airports).parsed, include: both },
      { id: 'W6', clientId: 'C6', filters: parseWatchFilters({ depAirportCode: 'LFPB' }, () => airports).parsed, include: parseInclude('departure')! },
      { id: 'W7', clientId: 'C7', filters: parseWatchFilters({ depAirportCode: 'LFPB' }, () => airports).parsed },
    ]);
    const t: ListingTransition = { id: 'L1', changedAt: '2026-11-21T12:00:00.000Z', before: null, after: leg, afterFacts: { source: 'acme', confirmedAt: facts.confirmedAt }, legFacts: facts };
    const payloads = new Map(deliveriesOf(index, [t], NOW, undefined, registry).map((d) => [d.record.watchId, d.message.payload]));
    const body = (watchId: string, shown: object) => JSON.stringify({ type: 'empty_leg.listed', timestamp: t.changedAt, data: { watchId, id: 'L1', leg: shown } });
    expect(payloads.get('W5')).toBe(body('W5', withBlocks(leg, both, facts, registry)));
    expect(payloads.get('W7')).toBe(body('W7', leg));
    const blocks = JSON.parse(payloads.get('W5')!) as { data: { leg: Record<string, unknown> } };
    expect(Object.keys(blocks.data.leg).slice(-2)).toEqual(['provenance', 'departure']);
    expect(blocks.data.leg.provenance).toEqual({
      source: 'acme', sourceName: 'acme Jets', kind: 'operator', verified: true,
      firstSeenAt: new Date(NOW - 7_200_000).toISOString(), updatedAt: new Date(NOW - 3_600_000).toISOString(), confirmedAt: new Date(NOW - 60_000).toISOString(), sourceLoadedAt: new Date(NOW - 60_000).toISOString(),
    });
    // 08:15 in Paris on 23 November is 07:15 UTC.
    expect(blocks.data.leg.departure).toEqual({ earliestLocal: '2026-11-23T08:15', latestLocal: '2026-11-24T20:00', earliestUtc: '2026-11-23T07:15:00.000Z', latestUtc: '2026-11-24T19:00:00.000Z' });
    expect(Object.keys((JSON.parse(payloads.get('W6')!) as { data: { leg: object } }).data.leg).at(-1)).toBe('departure');
    // A state written before the facts were kept: the source and confirmed instant its entry holds, no time.
    const older = payloadOf('W5', { ...t, legFacts: undefined }, 'empty_leg.listed', undefined, { include: both, sources: registry }).data.leg as unknown as Record<string, Record<string, unknown>>;
    expect(older.provenance).toMatchObject({ source: 'acme', firstSeenAt: null, confirmedAt: new Date(NOW - 60_000).toISOString() });
    expect(older.departure).toEqual({ earliestLocal: null, latestLocal: null, earliestUtc: null, latestUtc: null });
    // A currency and include: convertedPrice, then the blocks.
    const priced = payloadOf('W5', t, 'empty_leg.listed', { currency: 'EUR', rates: undefined }, { include: both, sources: registry }).data.leg!;
    expect(Object.keys(priced).slice(-3)).toEqual(['convertedPrice', 'provenance', 'departure']);
    expect(payloadOf('W5', { ...t, before: leg, after: null }, 'empty_leg.withdrawn', undefined, { include: both, sources: registry }).data.leg).toBeNull();
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
