import { describe, expect, it } from '@jest/globals';
import { AirportIndex } from '../../../../src/airports/reference.js';
import type { ListingTransition } from '../../../../src/changes/index.js';
import type { IndexEntry } from '../../../../src/kernel/index-entry.js';
import type { EmptyLeg } from '../../../../src/kernel/model.js';
import { factsOfItem, parseInclude } from '../../../../src/kernel/leg/blocks.js';
import { toApiRecord } from '../../../../src/kernel/model.js';
import { listEmptyLegs, parseListQuery } from '../../../../src/listing/index.js';
import { EMPTY_REGISTRY, sourceBlockFactsOf, type Registry } from '../../../../src/sources/index.js';
import { parseStoredFilters } from '../../../../src/watches/filters.js';
import { entryOfLeg, WatchIndex, type MatchableWatch } from '../../../../src/watches/matching.js';
import { readFlightBatch } from '../../../../src/watches/match/flight-events.js';
import { deliveriesOf } from '../../../../src/watches/match/transitions.js';
import { storedLeg } from '../../../support/legs.js';

/**
 * A watch of `group: "flight"` (docs/watches.md, "Flights"): the grouped matcher's decisions on the
 * listing index as it stands (a fake repository), next to a watch of legs that keeps its events.
 */
const NOW = Date.parse('2026-11-25T10:00:00Z');
const airports = () => new AirportIndex([]);
const registry: Registry = {
  ...EMPTY_REGISTRY,
  revision: 1,
  sources: new Map([
    ['acme-air', { settings: { name: null, kind: 'operator', verified: true, verifiedAt: NOW, staleAfterMinutes: null, staleAfterSetAt: null }, history: [] }],
    ['jet-broker', { settings: { name: null, kind: 'broker', verified: false, verifiedAt: null, staleAfterMinutes: null, staleAfterSetAt: null }, history: [] }],
  ]),
} as unknown as Registry;

function leg(id: string, registration: string, price: number, over: Partial<EmptyLeg> = {}): EmptyLeg {
  const { listed: _l, blocked: _b, depTimezone: _z, source: _s, ...rest } = storedLeg({
    id,
    startDate: '2026-11-26',
    endDate: '2026-11-27',
    depAirportIcao: 'LFPB',
    arrAirportIcao: 'LSGG',
    registration,
    price,
    currency: 'EUR',
  });
  return { ...rest, ...over };
}
const SOURCE: Record<string, string> = { OP: 'acme-air', BR: 'jet-broker', BR2: 'jet-broker', TOP: 'acme-air', TBR: 'jet-broker', TBR2: 'jet-broker' };
/** Departure times, as a leg's index entry and its change log state keep them (src/changes/transition.ts, `EntryFacts`). */
const TIMES: Record<string, { depTimeFrom?: string; depTimeTo?: string }> = {
  TOP: { depTimeFrom: '08:00', depTimeTo: '10:00' },
  TBR: { depTimeFrom: '12:00', depTimeTo: '14:00' },
  TBR2: { depTimeFrom: '09:30' },
};
const facts = (id: string) => ({ source: SOURCE[id]!, confirmedAt: NOW - 60_000, ...TIMES[id] });
let seq = 0;
function change(id: string, before: EmptyLeg | null, after: EmptyLeg | null, reason?: 'unlisted' | 'expired'): ListingTransition {
  seq++;
  return {
    id,
    changedAt: new Date(NOW + seq).toISOString(),
    changeId: String(100 + seq),
    before,
    after,
    ...(before === null ? {} : { beforeFacts: facts(id) }),
    ...(after === null ? {} : { afterFacts: facts(id) }),
    ...(after === null ? { reason: reason ?? 'unlisted' } : {}),
  };
}

/** The listing index and legs table as they stand: the legs given (their index entries in the month bucket). */
function repositoryOf(listed: EmptyLeg[]) {
  const entries: IndexEntry[] = listed.map((l) => ({ ...entryOfLeg(l, facts(l.id))!, expiresAt: NOW + 86_400_000 * 5 }));
  return {
    reads: [] as string[],
    queryBucket(bucket: string) {
      this.reads.push(bucket);
      return Promise.resolve(bucket === '2026-11' ? entries : []);
    },
    getLegs(ids: readonly string[]) {
      return Promise.resolve(listed.filter((l) => ids.includes(l.id)).map((l) => ({ ...l, listed: true, blocked: false, source: SOURCE[l.id] })));
    },
  };
}

const watches: MatchableWatch[] = [
  { id: 'wat_flight', clientId: 'cli', filters: parseStoredFilters({ depAirportCode: 'LFPB' }, airports), group: 'flight' },
  { id: 'wat_legs', clientId: 'cli', filters: parseStoredFilters({ depAirportCode: 'LFPB' }, airports) },
];

async function events(listedNow: EmptyLeg[], transitions: ListingTransition[]) {
  const repository = repositoryOf(listedNow);
  const batch = await readFlightBatch({ repository, registry: () => Promise.resolve(registry) }, transitions, NOW);
  const made = deliveriesOf(new WatchIndex(watches), transitions, NOW, undefined, undefined, batch);
  return {
    reads: repository.reads,
    of: (watchId: string) =>
      made
        .filter((d) => d.record.watchId === watchId)
        .map((d) => {
          const body = JSON.parse(d.record.payload!) as { type: string; data: { id: string; reason?: string; leg: { id: string; offerCount?: number; offers?: { id: string; kind: string }[] } | null } };
          return { type: body.type, id: body.data.id, best: body.data.leg?.id ?? null, offers: body.data.leg?.offers?.map((o) => `${o.id}:${o.kind}`), count: body.data.leg?.offerCount, reason: body.data.reason };
        }),
  };
}

const OP = leg('OP', 'F-HABC', 9000);
const BR = leg('BR', 'fhabc', 8000);
const BR2 = leg('BR2', 'F HABC', 7000, { endDate: '2026-11-28' });

describe('a watch of group "flight"', () => {
  it('lists a flight once, with its one offer', async () => {
    const got = await events([OP], [change('OP', null, OP)]);
    expect(got.of('wat_flight')).toEqual([{ type: 'empty_leg.listed', id: 'OP', best: 'OP', offers: ['OP:operator'], count: 1, reason: undefined }]);
    // The watch of legs keeps its event, its body the leg's record alone.
    expect(got.of('wat_legs')).toEqual([{ type: 'empty_leg.listed', id: 'OP', best: 'OP', offers: undefined, count: undefined, reason: undefined }]);
    // A bounded read: the buckets the listing reads for the leg's dates (its months from 28 days before its start, the long bucket).
    expect(got.reads.sort()).toEqual(['2026-10', '2026-11', 'long']);
  });

  it('updates the flight when a second offer arrives (the operator stays best)', async () => {
    const got = await events([OP, BR], [change('BR', null, BR)]);
    expect(got.of('wat_flight')).toEqual([{ type: 'empty_leg.updated', id: 'BR', best: 'OP', offers: ['OP:operator', 'BR:broker'], count: 2, reason: undefined }]);
    expect(got.of('wat_legs').map((e) => [e.type, e.id])).toEqual([['empty_leg.listed', 'BR']]);
  });

  it('updates the flight when one of two offers leaves (the broker becomes best)', async () => {
    const got = await events([BR], [change('OP', OP, null)]);
    expect(got.of('wat_flight')).toEqual([{ type: 'empty_leg.updated', id: 'OP', best: 'BR', offers: ['BR:broker'], count: 1, reason: undefined }]);
    expect(got.of('wat_legs').map((e) => [e.type, e.id, e.reason])).toEqual([['empty_leg.withdrawn', 'OP', 'unlisted']]);
  });

  it('withdraws the flight when its last offer leaves, with that offer\'s reason', async () => {
    const got = await events([], [change('BR', BR, null, 'expired')]);
    expect(got.of('wat_flight')).toEqual([{ type: 'empty_leg.withdrawn', id: 'BR', best: null, offers: undefined, count: undefined, reason: 'expired' }]);
  });

  it('an offer the watch does not take is not one of its offers', async () => {
    const elsewhere = leg('BR2', 'F-HABC', 7000, { depAirportIcao: 'LFPO' });
    const got = await events([OP, elsewhere], [change('OP', null, OP)]);
    expect(got.of('wat_flight').map((e) => [e.type, e.count])).toEqual([['empty_leg.listed', 1]]);
  });

  it('takes the legs changed in the same batch as they stood at each change: listed, then updated twice', async () => {
    const got = await events([OP, BR, BR2], [change('OP', null, OP), change('BR', null, BR), change('BR2', null, BR2)]);
    expect(got.of('wat_flight').map((e) => [e.type, e.id, e.best, e.count])).toEqual([
      ['empty_leg.listed', 'OP', 'OP', 1],
      ['empty_leg.updated', 'BR', 'OP', 2],
      ['empty_leg.updated', 'BR2', 'OP', 3],
    ]);
  });

  it('compares departure times where the legs give them: a later departure that day is another flight', async () => {
    const oneDay = { startDate: '2026-11-26', endDate: '2026-11-26' };
    const [top, tbr, tbr2] = [leg('TOP', 'F-HABC', 9000, oneDay), leg('TBR', 'F-HABC', 8000, oneDay), leg('TBR2', 'F-HABC', 7000, oneDay)];
    const got = await events([top, tbr], [change('TBR', null, tbr)]);
    expect(got.of('wat_flight')).toEqual([{ type: 'empty_leg.listed', id: 'TBR', best: 'TBR', offers: ['TBR:broker'], count: 1, reason: undefined }]);
    // From 09:30 to the end of the day, it overlaps both: one flight of three.
    const joined = await events([top, tbr, tbr2], [change('TBR2', null, tbr2)]);
    expect(joined.of('wat_flight').map((e) => [e.type, e.best, e.offers])).toEqual([['empty_leg.updated', 'TOP', ['TOP:operator', 'TBR2:broker', 'TBR:broker']]]);
  });

  it('a leg without a registration is a flight of its own', async () => {
    const plain = leg('OP', '', 9000, { registration: null });
    const got = await events([plain, BR], [change('OP', null, plain)]);
    expect(got.of('wat_flight')).toEqual([{ type: 'empty_leg.listed', id: 'OP', best: 'OP', offers: ['OP:operator'], count: 1, reason: undefined }]);
  });

  it('without a flight watch, nothing is read', async () => {
    const batch = await readFlightBatch(undefined, [change('OP', null, OP)], NOW);
    const made = deliveriesOf(new WatchIndex([watches[1]!]), [change('OP', null, OP)], NOW, undefined, undefined, batch);
    expect(made.map((d) => d.record.type)).toEqual(['empty_leg.listed']);
  });
});

describe('a watch of group "flight" with include', () => {
  const include = parseInclude('provenance,departure,flight')!;
  const sources = (id: string) => sourceBlockFactsOf(registry, id);
  const inc: MatchableWatch = { id: 'wat_inc', clientId: 'cli', filters: parseStoredFilters({ depAirportCode: 'LFPB' }, airports), group: 'flight', include };
  /** A leg's item as the table holds it: in Paris, its instants, its source and departure times. */
  const itemOf = (l: EmptyLeg) => ({ ...l, listed: true, blocked: false, source: SOURCE[l.id], depTimezone: 'Europe/Paris', firstSeenAt: NOW - 7_200_000, updatedAt: NOW - 3_600_000, confirmedAt: NOW - 60_000, ...TIMES[l.id] });
  const [top, tbr] = [leg('TOP', 'F-HABC', 9000), leg('TBR', 'F-HABC', 8000)];
  const shown = (l: EmptyLeg) => toApiRecord(itemOf(l));
  /** The listing and the legs table holding `legs`; changes as the change log gives them, with their state's facts. */
  const repositoryWith = (legs: EmptyLeg[]) => ({
    queryBucket: (bucket: string) => Promise.resolve(bucket === '2026-11' ? legs.map((l) => ({ ...entryOfLeg(shown(l), facts(l.id))!, expiresAt: NOW + 86_400_000 * 5 })) : []),
    getLegs: (ids: readonly string[]) => Promise.resolve(legs.filter((l) => ids.includes(l.id)).map(itemOf)),
  });
  const arrives = (l: EmptyLeg): ListingTransition => ({ ...change(l.id, null, shown(l)), legFacts: factsOfItem(itemOf(l)) });

  async function bodies(listedNow: EmptyLeg[], transitions: ListingTransition[]) {
    const batch = await readFlightBatch({ repository: repositoryWith(listedNow), registry: () => Promise.resolve(registry) }, transitions, NOW, { blocks: true });
    const made = deliveriesOf(new WatchIndex([watches[0]!, inc]), transitions, NOW, undefined, sources, batch);
    return (watchId: string) => made.filter((d) => d.record.watchId === watchId).map((d) => (JSON.parse(d.record.payload!) as { data: { leg: Record<string, unknown> } }).data.leg);
  }
  /** The grouped listing's one record (GET /open/v1/empty-legs?group=flight[&include=...]) over the same legs. */
  async function listed(legs: EmptyLeg[], withInclude: boolean): Promise<unknown> {
    const page = await listEmptyLegs(parseListQuery({ group: 'flight' }), {
      repository: repositoryWith(legs),
      now: new Date(NOW),
      registry: () => Promise.resolve(registry),
      ...(withInclude ? { include, blockSources: () => Promise.resolve({ sourceFacts: sources, registryRead: registry }) } : {}),
    });
    expect(page.records).toHaveLength(1);
    return JSON.parse(JSON.stringify(page.records[0]));
  }

  it("a broker's copy arriving: the blocks are the operator's (the best offer, read from its item), as the grouped listing's record", async () => {
    const of = await bodies([top, tbr], [arrives(tbr)]);
    const [got] = of('wat_inc');
    expect(JSON.stringify(got)).toBe(JSON.stringify(await listed([top, tbr], true)));
    expect(Object.keys(got!).slice(-5)).toEqual(['provenance', 'departure', 'flightKey', 'offerCount', 'offers']);
    expect([got!.id, (got!.provenance as { kind: string }).kind, (got!.departure as { earliestLocal: string }).earliestLocal]).toEqual(['TOP', 'operator', '2026-11-26T08:00']);
    // Without include: the flight's record alone, byte for byte the grouped listing's without include.
    const [plain] = of('wat_flight');
    expect(JSON.stringify(plain)).toBe(JSON.stringify(await listed([top, tbr], false)));
    expect(Object.keys(plain!).slice(-3)).toEqual(['amenities', 'offerCount', 'offers']);
  });

  it("the operator's offer arriving: the blocks are its own, from its change's state, as the grouped listing's record", async () => {
    const of = await bodies([top, tbr], [arrives(top)]);
    expect(JSON.stringify(of('wat_inc')[0])).toBe(JSON.stringify(await listed([top, tbr], true)));
  });

  it('an offer changed later in the batch: its facts after that change, its entry\'s before it, no updated instant when its record changed', async () => {
    const older = shown(leg('TOP', 'F-HABC', 9500));
    const repriced = { ...change('TOP', older, shown(top)), legFacts: factsOfItem(itemOf(top)) };
    const of = await bodies([top, tbr], [arrives(tbr), repriced]);
    const [first, second] = of('wat_inc') as { id: string; price: number; provenance: Record<string, unknown> }[];
    expect([first!.id, first!.price, first!.provenance.updatedAt, first!.provenance.firstSeenAt]).toEqual(['TOP', 9500, null, new Date(NOW - 7_200_000).toISOString()]);
    expect([second!.price, second!.provenance.updatedAt]).toEqual([9000, new Date(NOW - 3_600_000).toISOString()]);
  });

  it('an offer withdrawn later in the batch: its blocks before it from its item (a withdrawal keeps no facts), as the listing had it', async () => {
    const of = await bodies([top, tbr], [arrives(tbr), change('TOP', shown(top), null, 'unlisted')]);
    const [first] = of('wat_inc');
    expect(first!.id).toBe('TOP');
    expect(JSON.stringify(first)).toBe(JSON.stringify(await listed([top, tbr], true)));
    expect((first!.departure as { earliestUtc: string }).earliestUtc).toBe('2026-11-26T07:00:00.000Z');
  });
});
