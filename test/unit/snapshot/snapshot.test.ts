import { describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { AIRCRAFT_CATEGORIES } from '../../../src/kernel/aircraft-category.js';
import { addDays, fromEpochDay, toEpochDay } from '../../../src/kernel/dates.js';
import { changeOfItem } from '../../../src/kernel/leg-change.js';
import {
  covers,
  decodeBucket,
  decodeManifest,
  encodeBucket,
  encodeManifest,
  partId,
  partIds,
  sliceByStart,
  SNAPSHOT_MANIFEST_ID,
  buildDue,
  REBUILD_AGE_MS,
  REBUILD_DELTA,
  type RawEntry,
  type SnapshotManifest,
} from '../../../src/snapshot/snapshot.js';
import { entryFields, parseIndexItem, type IndexEntry } from '../../../src/kernel/index-entry.js';
import { fold, toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { fcParams } from '../../support/fast-check.js';
import { storedLeg } from '../../support/legs.js';

/**
 * The listing snapshot's pure part (src/snapshot/snapshot.ts): a bucket's entries through its parts and
 * back, the range slice of a bucket, the manifest item, which buckets a manifest holds.
 */

const ZONES = ['UTC', 'Europe/London', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham', 'Etc/GMT+12'];
const legId = fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/);
/** City names with accents, capitals, quotes and backslashes (which JSON escapes), and non-BMP letters. */
const city = fc.string({
  unit: fc.constantFrom('a', 'b', 'Z', 'é', 'Ü', 'ø', 'İ', ' ', '-', "'", '"', '\\', '/', '𝔸', '東'),
  minLength: 1,
  maxLength: 12,
});
const icao = fc.option(fc.stringMatching(/^[A-Z]{4}$/), { nil: null });
const iata = fc.option(fc.stringMatching(/^[A-Z]{3}$/), { nil: null });
const startDay = fc.integer({ min: toEpochDay('2026-01-01'), max: toEpochDay('2027-12-31') });

/** A listed leg with whatever the index entry holds generated; the rest as storedLeg leaves it. */
const leg: fc.Arbitrary<StoredLeg> = fc
  .record({
    id: legId,
    start: startDay,
    span: fc.integer({ min: 0, max: 40 }),
    depCityName: city,
    arrCityName: city,
    depAirportIcao: icao,
    depAirportIata: iata,
    arrAirportIcao: icao,
    arrAirportIata: iata,
    seatNum: fc.option(fc.integer({ min: 1, max: 400 }), { nil: null }),
    aircraftType: fc.option(fc.constantFrom(...AIRCRAFT_CATEGORIES), { nil: null }),
    depTimezone: fc.constantFrom(...ZONES),
  })
  .map(({ start, span, ...rest }) => {
    const startDate = fromEpochDay(start);
    return storedLeg({ ...rest, startDate, endDate: addDays(startDate, span) });
  });

/** Distinct legs, their raw index entries in index order (the sort key's order, as DynamoDB keeps it). */
const bucketOfLegs = (minLength: number, maxLength: number) =>
  fc.uniqueArray(leg, { selector: (l) => l.id, minLength, maxLength }).map((legs) => {
    const raw = legs
      .map((l) => {
        const item = toStorageItem(l);
        return { leg: l, entry: { ls: item.ls as string, lf: item.lf as string } };
      })
      .sort((a, b) => (a.entry.ls < b.entry.ls ? -1 : a.entry.ls > b.entry.ls ? 1 : 0));
    return { legs: raw.map((r) => r.leg), entries: raw.map((r) => r.entry) };
  });

/** The entries as a bucket read of the index gives them, one item at a time. */
const readDirectly = (entries: readonly RawEntry[]) => entries.map((e) => entryFields(parseIndexItem({ ...e })!));

describe('a bucket through its snapshot parts (encodeBucket, decodeBucket)', () => {
  it('decodes to the entries the index items read to, in order, with the fields of each leg', () => {
    fc.assert(
      fc.property(bucketOfLegs(1, 60), ({ legs, entries }) => {
        const decoded = decodeBucket(encodeBucket(entries));
        expect(decoded).toBeDefined();
        const fields = decoded!.map(entryFields);
        expect(fields).toEqual(readDirectly(entries));
        // And against the legs themselves, not only the reader of the index.
        expect(fields.map((f) => [f.id, f.startDate, f.endDate, f.depCity, f.arrCity, f.seats, f.aircraftType])).toEqual(
          legs.map((l) => [l.id, l.startDate, l.endDate, fold(l.depCityName), fold(l.arrCityName), l.seatNum ?? 0, l.aircraftType]),
        );
      }),
      fcParams(200),
    );
  });

  it('splits into parts of at most maxBytes that decode, in their order, to the same entries', () => {
    fc.assert(
      fc.property(bucketOfLegs(1, 80), fc.integer({ min: 300, max: 3_000 }), ({ entries }, maxBytes) => {
        // The smallest part possible holds one entry: the bucket fits in parts of maxBytes exactly when each entry alone does.
        const alone = entries.map((e) => encodeBucket([e])[0]!.length);
        if (alone.some((n) => n > maxBytes)) {
          expect(() => encodeBucket(entries, maxBytes)).toThrow(RangeError);
          return;
        }
        const parts = encodeBucket(entries, maxBytes);
        for (const p of parts) expect(p.length).toBeLessThanOrEqual(maxBytes);
        expect(parts.length).toBeLessThanOrEqual(entries.length);
        expect(decodeBucket(parts)!.map(entryFields)).toEqual(readDirectly(entries));
        // Each part is a run of the bucket: no part is empty, and the runs follow each other.
        const runs = parts.map((p) => decodeBucket([p])!.map((e) => e.id));
        for (const run of runs) expect(run.length).toBeGreaterThan(0);
        expect(runs.flat()).toEqual(entries.map((e) => parseIndexItem({ ...e })!.id));
        // As few parts as fit: one when the whole bucket fits in one.
        if (encodeBucket(entries)[0]!.length <= maxBytes) expect(parts).toHaveLength(1);
      }),
      fcParams(150),
    );
  });

  it('splits a bucket larger than one part (300 legs in parts of 2,000 bytes)', () => {
    const { entries } = fc.sample(bucketOfLegs(300, 300), { numRuns: 1, seed: 7 })[0]!;
    const parts = encodeBucket(entries, 2_000);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(2_000);
    expect(decodeBucket(parts)!.map(entryFields)).toEqual(readDirectly(entries));
  });

  it('refuses parts that a build does not write (decodeBucket gives undefined, and the reader reads the index)', () => {
    const good = encodeBucket([{ ls: '2026-12-01#a', lf: toStorageItem(storedLeg({ id: 'a', startDate: '2026-12-01', endDate: '2026-12-02' })).lf as string }]);
    expect(decodeBucket(good)).toHaveLength(1);
    const gz = (value: unknown) => gzipSync(JSON.stringify(value));
    expect(decodeBucket([Buffer.from('not gzip')])).toBeUndefined();
    expect(decodeBucket([gzipSync('not json')])).toBeUndefined();
    expect(decodeBucket([gz({ ls: 'x' })])).toBeUndefined();
    expect(decodeBucket([gz(['2026-12-01#a'])])).toBeUndefined();
    expect(decodeBucket([gz(['2026-12-01#a', 7])])).toBeUndefined();
    // One bad part spoils the bucket, wherever it is.
    expect(decodeBucket([...good, Buffer.from('x')])).toBeUndefined();
    expect(decodeBucket([])).toEqual([]);
  });
});

describe('encodeBucket of an empty bucket', () => {
  it('returns one part that decodes to no entry', () => {
    const parts = encodeBucket([]);
    expect(parts).toHaveLength(1);
    expect(decodeBucket(parts)).toEqual([]);
  });
});

describe('sliceByStart', () => {
  /** Entries of distinct legs over a few days, in index order (startDate, id). */
  const sortedEntries = fc
    .uniqueArray(fc.record({ id: legId, day: fc.integer({ min: 0, max: 12 }) }), { selector: (e) => e.id, maxLength: 40 })
    .map((list) =>
      list
        .map(({ id, day }) => {
          const startDate = addDays('2026-12-02', day * 2);
          const item = toStorageItem(storedLeg({ id, startDate, endDate: startDate }));
          return parseIndexItem(item)!;
        })
        .sort((a, b) => (a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    );
  /** Bounds before, between, on and after the entries' dates (they start on even days from 2026-12-02), or none. */
  const bound = fc.option(
    fc.integer({ min: -3, max: 28 }).map((d) => addDays('2026-12-02', d)),
    { nil: undefined },
  );

  it('is the brute-force filter of the entries by startDate, both ends inclusive', () => {
    fc.assert(
      fc.property(sortedEntries, bound, bound, (entries, from, to) => {
        const expected = entries.filter((e) => (from === undefined || e.startDate >= from) && (to === undefined || e.startDate <= to));
        expect(sliceByStart(entries, from, to).map((e) => e.id)).toEqual(expected.map((e) => e.id));
      }),
      fcParams(1_000),
    );
  });

  it('takes every entry of an existing date at either end', () => {
    const entries: IndexEntry[] = ['a', 'b', 'c', 'd', 'e'].map(
      (id, i) => parseIndexItem(toStorageItem(storedLeg({ id, startDate: i < 2 ? '2026-12-05' : i < 4 ? '2026-12-07' : '2026-12-09', endDate: '2026-12-10' })))!,
    );
    expect(sliceByStart(entries, '2026-12-05', '2026-12-07').map((e) => e.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(sliceByStart(entries, '2026-12-07', '2026-12-07').map((e) => e.id)).toEqual(['c', 'd']);
    expect(sliceByStart(entries, '2026-12-08', undefined).map((e) => e.id)).toEqual(['e']);
    expect(sliceByStart(entries, '2026-12-10', undefined)).toEqual([]);
    expect(sliceByStart(entries, '2026-12-09', '2026-12-05')).toEqual([]);
    expect(sliceByStart([], '2026-12-01', '2026-12-31')).toEqual([]);
  });
});

describe('the manifest item (encodeManifest, decodeManifest)', () => {
  const month = fc.integer({ min: 2020 * 12, max: 2040 * 12 + 11 }).map((m) => `${Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`);
  const hash = fc.stringMatching(/^[0-9a-f]{16}$/);
  const manifest: fc.Arbitrary<SnapshotManifest> = fc
    .record({
      token: fc.uuid(),
      builtAt: fc.nat(),
      logSeq: fc.option(fc.nat(), { nil: undefined }),
      months: fc.option(fc.tuple(month, month), { nil: undefined }),
      buckets: fc.dictionary(fc.oneof(month, fc.constant('long')), fc.record({ hash, parts: fc.nat(40), entries: fc.nat(100_000), bytes: fc.nat(10_000_000) }), { maxKeys: 16 }),
      retired: fc.array(fc.tuple(month, hash, fc.nat(5)).map(([b, h, k]) => partId(b, h, k)), { maxLength: 10 }),
    })
    .map(({ months, logSeq, ...m }) => {
      const [a, b] = months ?? ['', ''];
      return { ...m, ...(logSeq === undefined ? {} : { logSeq }), firstMonth: a < b ? a : b, lastMonth: a < b ? b : a };
    });

  it('round-trips, through a stored item (what DynamoDB gives back is the same JSON)', () => {
    fc.assert(
      fc.property(manifest, (m) => {
        const item = encodeManifest(m);
        expect(item.id).toBe(SNAPSHOT_MANIFEST_ID);
        const stored = JSON.parse(JSON.stringify(item)) as Record<string, unknown>;
        expect(decodeManifest(stored)).toEqual(m);
      }),
      fcParams(300),
    );
  });

  it('names each bucket part once (partIds), from k = 0 to parts - 1', () => {
    fc.assert(
      fc.property(manifest, (m) => {
        const ids = partIds(m);
        expect(new Set(ids).size).toBe(ids.length);
        const expected = Object.entries(m.buckets).flatMap(([bucket, b]) => Array.from({ length: b.parts }, (_, k) => `~snapshot#${bucket}#${b.hash}#${k}`));
        expect([...ids].sort()).toEqual(expected.sort());
      }),
      fcParams(200),
    );
  });

  const good = encodeManifest({
    token: 't',
    builtAt: 10,
    logSeq: 3,
    firstMonth: '2026-10',
    lastMonth: '2027-12',
    buckets: { '2026-12': { hash: 'abc', parts: 2, entries: 40, bytes: 900 } },
    retired: ['~snapshot#2026-12#old#0'],
  });

  it('reads a good item, and fills what an item may leave out', () => {
    expect(decodeManifest(good)?.buckets).toEqual({ '2026-12': { hash: 'abc', parts: 2, entries: 40, bytes: 900 } });
    const { old: _old, m: _m, ...bare } = good;
    expect(decodeManifest(bare)).toMatchObject({ logSeq: 3, retired: [], firstMonth: '', lastMonth: '' });
    // Without a usable change log position (a manifest of before the log): no delta, the reader reads the index.
    expect(decodeManifest({ ...good, lq: undefined })?.logSeq).toBeUndefined();
    expect(decodeManifest({ ...good, lq: '5' })?.logSeq).toBeUndefined();
  });

  it.each<[string, Record<string, unknown> | undefined]>([
    ['no item', undefined],
    ['an empty item', {}],
    ['no token', { ...good, g: undefined }],
    ['a token that is not a string', { ...good, g: 7 }],
    ['no buckets', { ...good, b: undefined }],
    ['buckets that are not JSON', { ...good, b: '{' }],
    ['buckets as a JSON array', { ...good, b: '[]' }],
    ['buckets as JSON null', { ...good, b: 'null' }],
    ['a bucket that is not a triple', { ...good, b: JSON.stringify({ '2026-12': 'abc' }) }],
    ['a bucket whose hash is not a string', { ...good, b: JSON.stringify({ '2026-12': [1, 2, 40] }) }],
    ['a negative part count', { ...good, b: JSON.stringify({ '2026-12': ['abc', -1, 40] }) }],
    ['a fractional part count', { ...good, b: JSON.stringify({ '2026-12': ['abc', 1.5, 40] }) }],
    ['an entry count that is a string', { ...good, b: JSON.stringify({ '2026-12': ['abc', 1, '40'] }) }],
    ['no build time', { ...good, bt: undefined }],
    ['a negative build time', { ...good, bt: -1 }],
    ['retired parts that are not JSON', { ...good, old: '[' }],
    ['retired parts that are not a list', { ...good, old: '{}' }],
  ])('refuses %s (the reader then reads the index)', (_name, item) => {
    expect(decodeManifest(item)).toBeUndefined();
  });
});

describe('buildDue', () => {
  const MIN = 60_000;
  const BUILT = Date.UTC(2026, 10, 25, 12, 0);

  it.each<[string, { builtAt: number; logSeq?: number } | undefined, number, number, boolean]>([
    ['no snapshot', undefined, 0, BUILT, true],
    ['a manifest of before the change log (no position)', { builtAt: BUILT }, 0, BUILT, true],
    ['just built, nothing since', { builtAt: BUILT, logSeq: 40 }, 40, BUILT, false],
    ['14:59 old, 500 entries since', { builtAt: BUILT, logSeq: 40 }, 540, BUILT + 15 * MIN - 1, false],
    ['15 minutes old', { builtAt: BUILT, logSeq: 40 }, 40, BUILT + 15 * MIN, true],
    ['501 entries since', { builtAt: BUILT, logSeq: 40 }, 541, BUILT + MIN, true],
  ])('%s: due %s', (_case, manifest, head, now, due) => {
    expect(buildDue(manifest, head, now)).toBe(due);
  });

  it('once due, stays due as time passes and entries come (monotone)', () => {
    fc.assert(
      fc.property(fc.nat(2 * REBUILD_AGE_MS), fc.nat(2 * REBUILD_DELTA), fc.nat(REBUILD_AGE_MS), fc.nat(REBUILD_DELTA), (age, delta, moreAge, moreDelta) => {
        const m = { builtAt: BUILT, logSeq: 1_000 };
        if (buildDue(m, 1_000 + delta, BUILT + age)) expect(buildDue(m, 1_000 + delta + moreDelta, BUILT + age + moreAge)).toBe(true);
      }),
      fcParams(300),
    );
  });
});

describe('covers', () => {
  /** `count` months from `first` on, counted one by one (from the 28th, five days on is the next month). */
  function monthsFrom(first: string, count: number): string[] {
    const out = [first];
    while (out.length < count) out.push(addDays(`${out.at(-1)!}-28`, 5).slice(0, 7));
    return out;
  }
  const month = fc.integer({ min: 2025 * 12, max: 2028 * 12 + 11 }).map((m) => `${Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`);

  it('holds the long bucket and exactly the months from the first to the last', () => {
    fc.assert(
      fc.property(month, fc.integer({ min: 0, max: 14 }), month, (first, length, bucket) => {
        const held = monthsFrom(first, length + 1);
        const m = { firstMonth: first, lastMonth: held.at(-1)! };
        expect(covers(m, bucket)).toBe(held.includes(bucket));
        expect(covers(m, 'long')).toBe(true);
      }),
      fcParams(500),
    );
  });

  it('holds no month when the manifest names none', () => {
    expect(covers({ firstMonth: '', lastMonth: '' }, '2026-12')).toBe(false);
  });
});

describe('an item as a change (changeOfItem)', () => {
  it('a listed leg: its index entry; a leg that left the listing: a removal', () => {
    const item = toStorageItem(storedLeg({ id: 'x', startDate: '2026-12-01', endDate: '2026-12-03' }));
    expect(changeOfItem({ id: 'x', lb: item.lb, ls: item.ls, lf: item.lf })).toEqual({
      id: 'x',
      index: { lb: '2026-12', ls: '2026-12-01#x', lf: item.lf },
    });
    expect(changeOfItem({ id: 'x' })).toEqual({ id: 'x' });
    expect(changeOfItem({ id: 'x', lb: '2026-12', ls: '2026-12-01#x' })).toEqual({ id: 'x' });
  });
});
