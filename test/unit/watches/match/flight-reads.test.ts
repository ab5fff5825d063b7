import { describe, expect, it } from '@jest/globals';
import { AirportIndex } from '../../../../src/airports/reference.js';
import type { ListingTransition } from '../../../../src/changes/index.js';
import { addDays } from '../../../../src/kernel/dates.js';
import { toApiRecord, type EmptyLeg } from '../../../../src/kernel/model.js';
import { bucketReads } from '../../../../src/listing/index.js';
import { MAX_BUCKET_READS } from '../../../../src/listing/limits.js';
import { EMPTY_REGISTRY, type Registry } from '../../../../src/sources/index.js';
import { parseStoredFilters } from '../../../../src/watches/filters.js';
import { entryOfLeg, WatchIndex } from '../../../../src/watches/matching.js';
import { readFlightBatch } from '../../../../src/watches/match/flight-events.js';
import { MAX_FLIGHT_OFFERS_READ } from '../../../../src/watches/match/flight-reads.js';
import { deliveriesOf } from '../../../../src/watches/match/transitions.js';
import { storedLeg } from '../../../support/legs.js';

/**
 * The flight reads of one batch are bounded and counted (docs/watches.md, "Flights", "Reads,
 * bounded"): each bucket read once, only the offers that can be one flight with a change fetched,
 * at most MAX_FLIGHT_OFFERS_READ of them per flight key.
 */
const NOW = Date.parse('2026-11-25T10:00:00Z');
const OPERATOR = 'acme-air';
const registry = {
  ...EMPTY_REGISTRY,
  revision: 1,
  sources: new Map([[OPERATOR, { settings: { name: null, kind: 'operator', verified: true, verifiedAt: NOW, staleAfterMinutes: null, staleAfterSetAt: null }, history: [] }]]),
} as unknown as Registry;

interface Offer {
  record: EmptyLeg;
  source: string;
}

function offer(id: string, registration: string, startDate: string, source: string, price: number): Offer {
  return { record: toApiRecord({ ...storedLeg({ id, startDate, endDate: addDays(startDate, 1), depAirportIcao: 'LFPB', arrAirportIcao: 'LSGG', registration, price, currency: 'EUR' }) }), source };
}

/** The listing index (month buckets by startDate, each read honouring its range) and the legs table, counting what is asked. */
function repositoryOf(offers: Offer[]) {
  const entries = offers.map((o) => ({ ...entryOfLeg(o.record, { source: o.source, confirmedAt: NOW - 60_000 })!, expiresAt: NOW + 86_400_000 * 200 }));
  const asked = { buckets: [] as string[], ids: [] as string[], calls: 0 };
  return {
    asked,
    queryBucket(bucket: string, range: { from?: string | undefined; to?: string | undefined } = {}) {
      asked.buckets.push(bucket);
      return Promise.resolve(entries.filter((e) => e.startDate.slice(0, 7) === bucket && (range.from === undefined || e.startDate >= range.from) && (range.to === undefined || e.startDate <= range.to)));
    },
    getLegs(ids: readonly string[]) {
      asked.calls++;
      asked.ids.push(...ids);
      return Promise.resolve(offers.filter((o) => ids.includes(o.record.id)).map((o) => ({ ...o.record, listed: true, blocked: false, source: o.source })));
    },
  };
}

const arrives = (o: Offer, i: number): ListingTransition => ({
  id: o.record.id,
  changedAt: new Date(NOW + i).toISOString(),
  changeId: String(i),
  before: null,
  after: o.record,
  afterFacts: { source: o.source, confirmedAt: NOW - 60_000 },
});

const flightWatch = { id: 'wat_f', clientId: 'cli', filters: parseStoredFilters({}, () => new AirportIndex([])), group: 'flight' as const };

async function run(offers: Offer[], changes: Offer[]) {
  const repository = repositoryOf(offers);
  const transitions = changes.map(arrives);
  const batch = await readFlightBatch({ repository, registry: () => Promise.resolve(registry) }, transitions, NOW);
  const made = deliveriesOf(new WatchIndex([flightWatch]), transitions, NOW, undefined, undefined, batch);
  const events = made.map((d) => JSON.parse(d.record.payload!) as { type: string; data: { leg: { id: string; offerCount: number } } });
  return { asked: repository.asked, counts: batch.counts, events, transitions };
}

describe('the flight reads of a batch', () => {
  it('a batch of 100 changes of 100 flights over five months: each bucket read once, only the offers one flight with a change fetched', async () => {
    const flights = Array.from({ length: 100 }, (_, f) => {
      const reg = `F-H${String(f).padStart(3, '0')}`;
      const day = addDays('2026-11-26', (f * 7) % 140);
      // The operator's, a broker's, a second broker's (the change), and the operator's again three days later: another flight.
      return [offer(`OP${f}`, reg, day, OPERATOR, 9000), offer(`BR${f}`, reg, day, 'jet-broker', 8000), offer(`BB${f}`, reg, day, 'jet-broker', 7000), offer(`LATER${f}`, reg, addDays(day, 3), OPERATOR, 9000)];
    });
    const changes = flights.map((f) => f[2]!);
    const got = await run(flights.flat(), changes);
    // The listing's own plan for each changed leg's dates: what the reads of one range each would have been.
    const plans = changes.flatMap((c) => bucketReads({ from: c.record.startDate, to: c.record.endDate }, '2026-11-25'));
    const buckets = new Set(plans.map((r) => r.bucket));
    const ranges = new Set(plans.map((r) => `${r.bucket}|${r.from ?? ''}|${r.to ?? ''}`));
    expect(got.asked.buckets.sort()).toEqual([...buckets].sort());
    expect(got.counts.bucketQueries).toBe(buckets.size);
    expect(got.counts.bucketQueries).toBeLessThanOrEqual(MAX_BUCKET_READS);
    expect(ranges.size).toBeGreaterThan(3 * buckets.size);
    // Two other offers per flight; the later flight of the same aircraft and the changed legs are not fetched.
    expect(got.asked.ids.sort()).toEqual(flights.flatMap((f) => [f[0]!.record.id, f[1]!.record.id]).sort());
    expect(got.counts).toEqual({ bucketQueries: buckets.size, legsFetched: 200, getLegsCalls: 2, offersCapped: 0 });
    expect(got.asked.calls).toBe(2);
    expect(got.events.map((e) => [e.type, e.data.leg.id, e.data.leg.offerCount])).toEqual(flights.map((f) => ['empty_leg.updated', f[0]!.record.id, 3]));
  });

  it(`a flight of more than ${MAX_FLIGHT_OFFERS_READ} other offers: the ${MAX_FLIGHT_OFFERS_READ} best-ranked are fetched, the rest left out and counted`, async () => {
    const day = '2026-12-03';
    const brokers = Array.from({ length: 29 }, (_, i) => offer(`BR${String(i).padStart(2, '0')}`, 'F-HABC', day, 'jet-broker', 5000 + i * 100));
    const operator = offer('OP', 'F-HABC', day, OPERATOR, 9000);
    const copy = offer('NEW', 'F-HABC', day, 'jet-broker', 4000);
    const got = await run([operator, ...brokers, copy], [copy]);
    expect(got.counts).toMatchObject({ legsFetched: MAX_FLIGHT_OFFERS_READ, getLegsCalls: 1, offersCapped: 30 - MAX_FLIGHT_OFFERS_READ });
    // The operator first, then the cheapest brokers (all confirmed at the same instant).
    expect(got.asked.ids).toEqual(['OP', ...brokers.slice(0, MAX_FLIGHT_OFFERS_READ - 1).map((b) => b.record.id)]);
    expect(got.events.map((e) => [e.type, e.data.leg.id, e.data.leg.offerCount])).toEqual([['empty_leg.updated', 'OP', MAX_FLIGHT_OFFERS_READ + 1]]);
  });

  it('a batch of legs without a registration reads nothing', async () => {
    const plain = offer('P1', '', '2026-12-01', OPERATOR, 100);
    const got = await run([plain], [{ ...plain, record: { ...plain.record, registration: null } }]);
    expect([got.asked.buckets, got.asked.calls, got.counts]).toEqual([[], 0, { bucketQueries: 0, legsFetched: 0, getLegsCalls: 0, offersCapped: 0 }]);
  });
});
