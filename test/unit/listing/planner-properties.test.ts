import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { fromEpochDay } from '../../../src/kernel/dates.js';
import { MAX_BUCKET_READS, MAX_MONTH_BUCKETS, MAX_SEGMENTS_PER_BUCKET } from '../../../src/listing/limits.js';
import { HORIZON_DAYS } from '../../../src/kernel/listed.js';
import { bucketReads, queryWindow, segmentsAfter, type BucketRead } from '../../../src/listing/listing.js';
import { LISTING_HORIZON_DAYS, LONG_BUCKET, MAX_BUCKET_SPAN_DAYS } from '../../../src/kernel/leg-item.js';
import { fcParams } from '../../support/fast-check.js';
import { monthLength, REF_MAX_DAY, REF_MIN_DAY, refCivil, refDate, refDay, refMonth, refParse } from '../../support/gregorian.js';

/**
 * The read planner (queryWindow + bucketReads) over the whole valid range of its inputs: any
 * depDate from 0001-01-01 to 9999-12-31, every offsetDays, any "today" (realistic, and near both
 * ends of the calendar). Expectations come from the reference day count and the loader's rule, not
 * from the planner: a leg can be in the table only if its startDate is at most LISTING_HORIZON_DAYS
 * after the (UTC) day it was loaded, which is no later than today.
 */
const params = fcParams(2000);

const realisticToday = fc.integer({ min: refDay(2000, 1, 1), max: refDay(2200, 12, 31) });
const todayNearEnds = fc.oneof(
  fc.integer({ min: REF_MIN_DAY, max: REF_MIN_DAY + 500 }),
  fc.integer({ min: REF_MAX_DAY - 500, max: REF_MAX_DAY }),
);
const today = fc.oneof({ weight: 3, arbitrary: realisticToday }, { weight: 1, arbitrary: todayNearEnds });
const offsetDays = fc.integer({ min: 0, max: 15 });

/** A depDate over the whole range, or around today, or around the horizon and the calendar's ends. */
const depDateAround = (t: number) =>
  fc.oneof(
    fc.constant(undefined),
    fc.integer({ min: REF_MIN_DAY, max: REF_MAX_DAY }),
    fc.integer({ min: Math.max(REF_MIN_DAY, t - 40), max: Math.min(REF_MAX_DAY, t + LISTING_HORIZON_DAYS + 40) }),
    fc.integer({ min: REF_MAX_DAY - 40, max: REF_MAX_DAY }),
    fc.integer({ min: REF_MIN_DAY, max: REF_MIN_DAY + 40 }),
  );

const query = today.chain((t) => fc.record({ today: fc.constant(t), depDate: depDateAround(t), offsetDays }));

/** A leg that can be in the table on day `t`: loaded on or before t, so it starts by t + 366. */
const legAround = (t: number, anchor: number) =>
  fc
    .record({
      delta: fc.integer({ min: -60, max: 60 }),
      span: fc.oneof(fc.integer({ min: 0, max: MAX_BUCKET_SPAN_DAYS + 2 }), fc.integer({ min: 0, max: 2000 })),
    })
    .map(({ delta, span }) => {
      const start = Math.max(REF_MIN_DAY, Math.min(anchor + delta, t + LISTING_HORIZON_DAYS, REF_MAX_DAY));
      return { start, span: Math.min(span, REF_MAX_DAY - start) };
    });

/** Reference of the listing's date rule (docs/api.md, "Date window"): could the leg be on the page? */
function overlaps(t: number, depDate: number | undefined, k: number, start: number, end: number): boolean {
  // Not expired in at least one time zone: the latest local date anywhere is at most t + 1, the earliest t - 1.
  if (end < t - 1) return false;
  if (depDate === undefined) return true;
  if (depDate + k < t) return false;
  return start <= depDate + k && end >= Math.max(depDate - k, t);
}

function covers(read: BucketRead, startDate: string): boolean {
  return (read.from === undefined || read.from <= startDate) && (read.to === undefined || startDate <= read.to);
}

function plan(t: number, depDate: number | undefined, k: number): BucketRead[] {
  const window = queryWindow({ depDate: depDate === undefined ? undefined : refDate(depDate), offsetDays: k }, refDate(t));
  return window === null ? [] : bucketReads(window, refDate(t));
}

describe('read planner', () => {
  it('plans at most MAX_BUCKET_READS reads, only of buckets that can hold a leg, for any query and any day', () => {
    fc.assert(
      fc.property(query, ({ today: t, depDate, offsetDays: k }) => {
        const reads = plan(t, depDate, k);
        expect(reads.length).toBeLessThanOrEqual(MAX_BUCKET_READS);
        expect(reads.length === 0).toBe(depDate !== undefined && depDate + k < t);
        if (reads.length === 0) return;
        expect(reads.at(-1)!.bucket).toBe(LONG_BUCKET);
        const months = reads.slice(0, -1);
        expect(months.length).toBeLessThanOrEqual(MAX_MONTH_BUCKETS);
        // Nothing can start after the horizon (the loader's rule plus one day of clock slack).
        const horizon = Math.min(t + LISTING_HORIZON_DAYS + 1, REF_MAX_DAY);
        // The earliest start that can still reach the window.
        // (A depDate window starts today at the earliest, docs/api.md "Date window"; without one, yesterday.)
        const lowest = Math.max(REF_MIN_DAY, (depDate === undefined ? t - 1 : Math.max(depDate - k, t)) - MAX_BUCKET_SPAN_DAYS);
        const highest = depDate === undefined ? horizon : Math.min(horizon, depDate + k);
        expect(reads.at(-1)!.to).toBe(refDate(highest));
        // No month bucket when no leg of at most 28 days that starts by the horizon can reach the window.
        expect(months.length === 0).toBe(lowest > highest);
        if (months.length === 0) return;
        months.forEach((read, i) => {
          expect(read.bucket).toMatch(/^[0-9]{4}-(0[1-9]|1[0-2])$/);
          const [y, m] = [Number(read.bucket.slice(0, 4)), Number(read.bucket.slice(5))];
          expect(y).toBeGreaterThanOrEqual(1);
          if (i > 0) expect(y * 12 + m - 1).toBe(refMonth(refDay(Number(months[i - 1]!.bucket.slice(0, 4)), Number(months[i - 1]!.bucket.slice(5)), 1)) + 1);
          // The month is needed: it overlaps [lowest, highest].
          expect(refDay(y, m, 1)).toBeLessThanOrEqual(highest);
          expect(y * 12 + m - 1).toBeGreaterThanOrEqual(refMonth(lowest));
          for (const bound of [read.from, read.to]) if (bound !== undefined) expect(bound).toMatch(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/);
        });
        expect(months[0]!.bucket).toBe(refDate(lowest).slice(0, 7));
        expect(months.at(-1)!.bucket).toBe(refDate(highest).slice(0, 7));
      }),
      params,
    );
  });

  it('reads the bucket and the startDate range of every leg that can be on the page', () => {
    const caseArb = query.chain((q) =>
      fc.record({
        q: fc.constant(q),
        leg: legAround(q.today, q.depDate ?? q.today),
      }),
    );
    fc.assert(
      fc.property(caseArb, ({ q, leg }) => {
        const { today: t, depDate, offsetDays: k } = q;
        const end = leg.start + leg.span;
        const reads = plan(t, depDate, k);
        if (!overlaps(t, depDate, k, leg.start, end)) return;
        const bucket = leg.span > MAX_BUCKET_SPAN_DAYS ? LONG_BUCKET : refDate(leg.start).slice(0, 7);
        const read = reads.find((r) => r.bucket === bucket);
        expect(read).toBeDefined();
        expect(covers(read!, refDate(leg.start))).toBe(true);
      }),
      params,
    );
  });

  it('plans no read for a window that ends before today, and only the long bucket past the horizon', () => {
    const arb = fc.record({
      t: realisticToday,
      k: offsetDays,
      beyond: fc.integer({ min: 1, max: 3_000_000 }),
    });
    fc.assert(
      fc.property(arb, ({ t, k, beyond }) => {
        const early = Math.max(REF_MIN_DAY, t - k - beyond);
        expect(plan(t, early, k)).toEqual([]);
        // Past horizon + 28 days no leg of a month bucket can be flyable; a long one can.
        const late = Math.min(REF_MAX_DAY, t + HORIZON_DAYS + MAX_BUCKET_SPAN_DAYS + k + beyond);
        expect(plan(t, late, k)).toEqual([{ bucket: LONG_BUCKET, to: refDate(t + HORIZON_DAYS) }]);
      }),
      params,
    );
    expect(plan(refDay(2026, 11, 21), refDay(9999, 12, 20), 15)).toEqual([{ bucket: LONG_BUCKET, to: '2027-11-23' }]);
  });

  it('never needs more than MAX_MONTH_BUCKETS months on any day: every day of 2000-2030 and 2099-2101, the widest window', () => {
    // How many months 397 days touch depends only on the month lengths around the day: leap and
    // common years (2000-2030, 2000 a leap century) and a common century year (2100) cover them.
    let most = 0;
    for (const [a, b] of [[refDay(2000, 1, 1), refDay(2030, 12, 31)], [refDay(2099, 1, 1), refDay(2101, 12, 31)]] as const) {
      for (let t = a; t <= b; t++) {
        const today = fromEpochDay(t);
        most = Math.max(most, bucketReads(queryWindow({ depDate: undefined, offsetDays: 0 }, today)!, today).length);
      }
    }
    // The bound is reached (it is exact), and never passed.
    expect(most).toBe(MAX_BUCKET_READS);
  });
});

describe('segmentsAfter: the rest of a bucket read after its first page', () => {
  /** A month bucket (years 1000-9999), a range inside it (either end open), and the first page's span. */
  const bucketRead = fc
    .record({ y: fc.integer({ min: 1000, max: 9999 }), m: fc.integer({ min: 1, max: 12 }) })
    .chain(({ y, m }) => {
      const first = refDay(y, m, 1);
      const last = first + monthLength(y, m) - 1;
      return fc
        .record({
          lo: fc.integer({ min: first, max: last }),
          hi: fc.integer({ min: first, max: last }),
          openFrom: fc.boolean(),
          openTo: fc.boolean(),
          a: fc.integer({ min: 0, max: 1_000 }),
          b: fc.integer({ min: 0, max: 1_000 }),
        })
        .map(({ lo, hi, openFrom, openTo, a, b }) => {
          const [from, to] = lo <= hi ? [lo, hi] : [hi, lo];
          // The first page's first start and the start of its last key, both inside the range.
          const firstStart = from + Math.floor(((to - from) * Math.min(a, b)) / 1_000);
          const resume = from + Math.floor(((to - from) * Math.max(a, b)) / 1_000);
          return {
            bucket: `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`,
            range: { from: openFrom ? undefined : refDate(from), to: openTo ? undefined : refDate(to) },
            end: openTo ? last : to,
            firstStart,
            resume,
          };
        });
    });

  it('covers the days from the resume point to the range end exactly once, in order, in at most MAX_SEGMENTS_PER_BUCKET segments', () => {
    fc.assert(
      fc.property(bucketRead, ({ bucket, range, end, firstStart, resume }) => {
        const segments = segmentsAfter(bucket, range, refDate(firstStart), refDate(resume));
        expect(segments.length).toBeGreaterThanOrEqual(1);
        expect(segments.length).toBeLessThanOrEqual(MAX_SEGMENTS_PER_BUCKET);
        expect(segments[0]!.from).toBe(refDate(resume));
        expect(segments.at(-1)!.to).toBe(range.to);
        for (let i = 0; i < segments.length; i++) {
          const { from, to } = segments[i]!;
          expect(from).toBeDefined();
          if (i < segments.length - 1) {
            expect(refParse(segments[i + 1]!.from!)).toBe(refParse(to!) + 1);
            expect(refParse(to!)).toBeGreaterThanOrEqual(refParse(from!));
          }
        }
        // As many segments as the first page's density says pages are left, one a day at least.
        const left = end - resume + 1;
        const pagesLeft = Math.ceil(left / (resume - firstStart + 1));
        expect(segments.length).toBe(Math.max(1, Math.min(MAX_SEGMENTS_PER_BUCKET, left, pagesLeft)));
        expect(refCivil(resume)[1]).toBe(Number(bucket.slice(5)));
      }),
      params,
    );
  });

  it('leaves the long bucket without an end as one read (it has no last day)', () => {
    expect(segmentsAfter('long', {}, '2026-01-01', '2026-01-02')).toEqual([{ from: '2026-01-02', to: undefined }]);
    expect(segmentsAfter('long', { to: '2026-03-31' }, '2026-01-01', '2026-01-02')).toHaveLength(MAX_SEGMENTS_PER_BUCKET);
  });
});
