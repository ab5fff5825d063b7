import type { ListingTransition } from '../src/changes/transition.js';
import { IndexEntryReader, type IndexEntry } from '../src/kernel/index-entry.js';
import { BUCKET_ATTR, toStorageItem, type StoredLeg } from '../src/kernel/leg-item.js';
import { bucketReads } from '../src/listing/index.js';
import { MAX_BUCKET_READS } from '../src/listing/limits.js';
import type { LegsRepository } from '../src/listing/repository.js';
import { readFlightBatch } from '../src/watches/match/flight-events.js';
import { MAX_FLIGHT_OFFERS_READ } from '../src/watches/match/flight-reads.js';
import { entryFlightKey } from '../src/flights/index.js';
import { entryOfLeg } from '../src/watches/matching.js';
import type { Target } from './targets.js';

/**
 * The flight watches' reads (docs/watches.md, "Flights", "Reads, bounded"): the watch benchmark's
 * changes in stream batches, each batch's reads made against its legs held in memory, counted.
 * Counts only: the bucket reads and the legs fetched of each batch against their stated bounds.
 */
export interface FlightReadFigures {
  batches: number;
  changes: number;
  /** Bucket reads of the batch that made most. */
  bucketReadsMax: number;
  /** What reading each changed leg's ranges apart would make (distinct bucket and range per batch), on average. */
  rangesPerBatch: number;
  bucketReadsPerBatch: number;
  legsFetchedPerChange: number;
  /** The most legs one batch fetched, as a fraction of its bound (MAX_FLIGHT_OFFERS_READ times its flight keys). */
  legsFetchedOfBound: number;
  offersCapped: number;
}

/** Changes per batch: the stream mapping's batch size (lib/constructs/change-stream.ts). */
export const FLIGHT_BATCH = 100;

export async function measureFlightReads(legs: readonly StoredLeg[], transitions: readonly ListingTransition[], now: number): Promise<FlightReadFigures> {
  const byBucket = new Map<string, IndexEntry[]>();
  const items = new Map<string, Record<string, unknown>>();
  for (const leg of legs) {
    const item = toStorageItem(leg);
    const entry = new IndexEntryReader().read(item);
    const bucket = item[BUCKET_ATTR];
    if (entry === undefined || typeof bucket !== 'string') continue;
    items.set(leg.id, item);
    (byBucket.get(bucket) ?? byBucket.set(bucket, []).get(bucket)!).push(entry);
  }
  let ranges = 0;
  const repository: Pick<LegsRepository, 'queryBucket' | 'getLegs'> = {
    queryBucket: (bucket, range = {}) =>
      Promise.resolve((byBucket.get(bucket) ?? []).filter((e) => (range.from === undefined || e.startDate >= range.from) && (range.to === undefined || e.startDate <= range.to))),
    getLegs: (ids) => Promise.resolve(ids.flatMap((id) => (items.has(id) ? [items.get(id)!] : []))),
  };
  const figures = { batches: 0, changes: transitions.length, bucketReadsMax: 0, bucketReads: 0, legsFetched: 0, legsFetchedOfBound: 0, offersCapped: 0 };
  for (let i = 0; i < transitions.length; i += FLIGHT_BATCH) {
    const batch = transitions.slice(i, i + FLIGHT_BATCH);
    const { counts } = await readFlightBatch({ repository }, batch, now);
    const keys = new Set(batch.map((t) => entryOfLeg(t.after ?? t.before!)).flatMap((e) => (e === undefined || entryFlightKey(e) === '' ? [] : [entryFlightKey(e)])));
    figures.batches++;
    figures.bucketReads += counts.bucketQueries;
    figures.bucketReadsMax = Math.max(figures.bucketReadsMax, counts.bucketQueries);
    figures.legsFetched += counts.legsFetched;
    figures.offersCapped += counts.offersCapped;
    if (keys.size > 0) figures.legsFetchedOfBound = Math.max(figures.legsFetchedOfBound, counts.legsFetched / (MAX_FLIGHT_OFFERS_READ * keys.size));
    ranges += distinctRanges(batch, now);
  }
  return {
    batches: figures.batches,
    changes: figures.changes,
    bucketReadsMax: figures.bucketReadsMax,
    rangesPerBatch: Number((ranges / Math.max(1, figures.batches)).toFixed(1)),
    bucketReadsPerBatch: Number((figures.bucketReads / Math.max(1, figures.batches)).toFixed(1)),
    legsFetchedPerChange: Number((figures.legsFetched / Math.max(1, figures.changes)).toFixed(2)),
    legsFetchedOfBound: Number(figures.legsFetchedOfBound.toFixed(3)),
    offersCapped: figures.offersCapped,
  };
}

/** The reads of one range per changed leg with a registration (each distinct bucket and range once). */
function distinctRanges(batch: readonly ListingTransition[], now: number): number {
  const seen = new Set<string>();
  const today = new Date(now).toISOString().slice(0, 10);
  for (const t of batch) {
    const leg = t.after ?? t.before!;
    const entry = entryOfLeg(leg);
    if (entry === undefined || entryFlightKey(entry) === '') continue;
    try {
      for (const r of bucketReads({ from: leg.startDate, to: leg.endDate }, today)) seen.add(`${r.bucket}|${r.from ?? ''}|${r.to ?? ''}`);
    } catch {
      // a leg past the horizon: no read
    }
  }
  return seen.size;
}

/** Count gates: bucket reads per batch at most MAX_BUCKET_READS; legs fetched per batch within MAX_FLIGHT_OFFERS_READ per flight key. */
export function flightReadTargets(f: FlightReadFigures): Target[] {
  return [
    {
      name: `flight watches: bucket reads of a batch of ${FLIGHT_BATCH} changes, the most (${f.bucketReadsPerBatch} on average; one read per leg's range would make ${f.rangesPerBatch})`,
      value: f.bucketReadsMax,
      limit: MAX_BUCKET_READS,
      unit: 'reads',
      holds: f.bucketReadsMax <= MAX_BUCKET_READS,
    },
    {
      name: `flight watches: legs fetched of a batch / ${MAX_FLIGHT_OFFERS_READ} per flight key of its changes, the most (${f.legsFetchedPerChange} legs per change)`,
      value: f.legsFetchedOfBound,
      limit: 1,
      unit: 'ratio',
      holds: f.legsFetchedOfBound <= 1,
    },
  ];
}
