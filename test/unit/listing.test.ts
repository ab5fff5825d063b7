import { describe, expect, it } from '@jest/globals';
import {
  bucketsFor,
  compareLegs,
  isExpired,
  LocalToday,
  matches,
  mergeSorted,
  paginate,
  queryWindow,
} from '../../src/legs/listing.js';
import { parseListQuery } from '../../src/legs/query.js';
import type { IndexEntry } from '../../src/legs/storage.js';

const TODAY = '2026-11-21';
const NOW = new Date('2026-11-21T12:00:00Z');

function entry(over: Partial<IndexEntry>): IndexEntry {
  return {
    id: 'a',
    startDate: '2026-11-25',
    endDate: '2026-11-27',
    depTimezone: 'UTC',
    depCity: 'london',
    depIcao: 'eglf',
    depIata: 'fab',
    arrCity: 'nice',
    arrIcao: 'lfmn',
    arrIata: 'nce',
    ...over,
  };
}

describe('queryWindow', () => {
  it('is the exact day with offset 0', () => {
    expect(queryWindow({ depDate: '2026-12-05', offsetDays: 0 }, TODAY)).toEqual({ from: '2026-12-05', to: '2026-12-05' });
  });
  it('is depDate ± k', () => {
    expect(queryWindow({ depDate: '2026-12-05', offsetDays: 3 }, TODAY)).toEqual({ from: '2026-12-02', to: '2026-12-08' });
  });
  it('is empty when wholly in the past', () => {
    expect(queryWindow({ depDate: '2026-11-10', offsetDays: 0 }, TODAY)).toBeNull();
    expect(queryWindow({ depDate: '2026-11-17', offsetDays: 3 }, TODAY)).toBeNull();
  });
  it('is clipped to start today when it reaches today', () => {
    expect(queryWindow({ depDate: '2026-11-18', offsetDays: 3 }, TODAY)).toEqual({ from: TODAY, to: TODAY });
    expect(queryWindow({ depDate: '2026-11-20', offsetDays: 5 }, TODAY)).toEqual({ from: TODAY, to: '2026-11-25' });
  });
  it('is open-ended from the earliest local today without depDate', () => {
    expect(queryWindow({ depDate: undefined, offsetDays: 0 }, TODAY)).toEqual({ from: '2026-11-20', to: undefined });
  });
});

describe('bucketsFor', () => {
  it('reads only the month of the window when no leg of an earlier month can reach it', () => {
    expect(bucketsFor({ from: '2027-03-31', to: '2027-03-31' }, TODAY)).toEqual(['2027-03', 'long']);
  });
  it('reads the previous month when a leg that started there can still overlap', () => {
    expect(bucketsFor({ from: '2026-12-02', to: '2026-12-08' }, TODAY)).toEqual(['2026-11', '2026-12', 'long']);
  });
  it('spans a year end', () => {
    expect(bucketsFor({ from: '2026-12-30', to: '2027-01-03' }, TODAY)).toEqual(['2026-12', '2027-01', 'long']);
  });
  it('reads up to the listing horizon for an open window', () => {
    const buckets = bucketsFor({ from: '2026-11-20', to: undefined }, TODAY);
    expect(buckets[0]).toBe('2026-10');
    expect(buckets.at(-2)).toBe('2027-11');
    expect(buckets.at(-1)).toBe('long');
    expect(buckets).toHaveLength(15);
  });
});

describe('matches', () => {
  const today = new LocalToday(NOW);
  const q = (params: Record<string, string>) => parseListQuery(params);
  const window = (params: Record<string, string>) => queryWindow(q(params), TODAY)!;

  it('keeps a leg whose window overlaps the query window, and drops one that does not', () => {
    const w = window({ depDate: '2026-11-28', offsetDays: '1' });
    expect(matches(entry({ startDate: '2026-11-25', endDate: '2026-11-27' }), q({}), w, today)).toBe(true);
    expect(matches(entry({ startDate: '2026-11-29', endDate: '2026-11-30' }), q({}), w, today)).toBe(true);
    expect(matches(entry({ startDate: '2026-11-30', endDate: '2026-12-02' }), q({}), w, today)).toBe(false);
    expect(matches(entry({ startDate: '2026-11-22', endDate: '2026-11-26' }), q({}), w, today)).toBe(false);
  });

  it('keeps a leg that started in the previous month and still overlaps', () => {
    const w = window({ depDate: '2026-12-02', offsetDays: '0' });
    expect(matches(entry({ startDate: '2026-11-28', endDate: '2026-12-03' }), q({}), w, today)).toBe(true);
  });

  it('hides a leg expired in its own time zone, and keeps one still open there', () => {
    const w = window({});
    // 12:00 UTC on the 21st is still the 21st in Los Angeles and already the 22nd in Auckland.
    expect(matches(entry({ startDate: '2026-11-20', endDate: '2026-11-21', depTimezone: 'America/Los_Angeles' }), q({}), w, today)).toBe(true);
    expect(matches(entry({ startDate: '2026-11-20', endDate: '2026-11-21', depTimezone: 'Pacific/Auckland' }), q({}), w, today)).toBe(false);
    expect(matches(entry({ startDate: '2026-11-19', endDate: '2026-11-20', depTimezone: 'UTC' }), q({}), w, today)).toBe(false);
  });

  it('matches city names case-insensitively by substring', () => {
    const w = window({});
    const e = entry({ depCity: 'new york', arrCity: 'são paulo' });
    expect(matches(e, q({ depCityName: 'YORK' }), w, today)).toBe(true);
    expect(matches(e, q({ depCityName: 'boston' }), w, today)).toBe(false);
    expect(matches(e, q({ arrCityName: 'São' }), w, today)).toBe(true);
    expect(matches(e, q({ arrCityName: 'york' }), w, today)).toBe(false);
  });

  it('matches airport codes exactly: 4 letters against ICAO, 3 against IATA', () => {
    const w = window({});
    const e = entry({ depIcao: 'kteb', depIata: 'teb' });
    expect(matches(e, q({ depAirportCode: 'KTEB' }), w, today)).toBe(true);
    expect(matches(e, q({ depAirportCode: 'teb' }), w, today)).toBe(true);
    expect(matches(e, q({ depAirportCode: 'KTE' }), w, today)).toBe(false);
    expect(matches(e, q({ arrAirportCode: 'LFMN' }), w, today)).toBe(true);
    expect(matches(e, q({ arrAirportCode: 'NCE' }), w, today)).toBe(true);
    expect(matches(e, q({ arrAirportCode: 'LFMD' }), w, today)).toBe(false);
  });

  it('never matches an airport filter for a leg without a departure airport', () => {
    const w = window({});
    const e = entry({ depIcao: '', depIata: '' });
    expect(matches(e, q({}), w, today)).toBe(true);
    expect(matches(e, q({ depAirportCode: 'KTEB' }), w, today)).toBe(false);
    expect(matches(e, q({ depAirportCode: 'TEB' }), w, today)).toBe(false);
  });

  it('combines filters with AND', () => {
    const w = window({});
    const e = entry({});
    expect(matches(e, q({ depCityName: 'lon', arrAirportCode: 'NCE' }), w, today)).toBe(true);
    expect(matches(e, q({ depCityName: 'lon', arrAirportCode: 'GVA' }), w, today)).toBe(false);
  });
});

describe('isExpired', () => {
  it('compares endDate with today in the leg zone', () => {
    const today = new LocalToday(new Date('2026-11-21T23:30:00Z'));
    expect(isExpired({ endDate: '2026-11-21', depTimezone: 'UTC' }, today)).toBe(false);
    expect(isExpired({ endDate: '2026-11-21', depTimezone: 'Asia/Dubai' }, today)).toBe(true);
  });
});

describe('order and merge', () => {
  it('orders by startDate then id', () => {
    const list = [
      entry({ id: 'b', startDate: '2026-12-01' }),
      entry({ id: 'a', startDate: '2026-12-02' }),
      entry({ id: 'a', startDate: '2026-12-01' }),
    ];
    expect([...list].sort(compareLegs).map((e) => `${e.startDate}/${e.id}`)).toEqual([
      '2026-12-01/a',
      '2026-12-01/b',
      '2026-12-02/a',
    ]);
  });

  it('merges sorted lists into one sorted list without losing or repeating items', () => {
    const a = [entry({ id: 'a1', startDate: '2026-12-01' }), entry({ id: 'a2', startDate: '2026-12-05' })];
    const b = [entry({ id: 'b1', startDate: '2026-11-30' }), entry({ id: 'b2', startDate: '2026-12-05' })];
    const merged = mergeSorted([a, b, []]);
    expect(merged.map((e) => e.id)).toEqual(['b1', 'a1', 'a2', 'b2']);
    expect(mergeSorted([[], []])).toEqual([]);
  });
});

describe('paginate', () => {
  const all = Array.from({ length: 45 }, (_, i) => i);
  it('returns the requested page and the total', () => {
    expect(paginate(all, 1, 20)).toEqual({ items: all.slice(0, 20), total: 45, page: 1, size: 20 });
    expect(paginate(all, 3, 20).items).toEqual([40, 41, 42, 43, 44]);
  });
  it('returns an empty page past the last one, with the total', () => {
    expect(paginate(all, 4, 20)).toEqual({ items: [], total: 45, page: 4, size: 20 });
    expect(paginate(all, Number.MAX_SAFE_INTEGER, 100).items).toEqual([]);
  });
  it('never repeats or skips an item across pages', () => {
    const seen = [1, 2, 3, 4, 5].flatMap((p) => paginate(all, p, 10).items);
    expect(seen).toEqual(all);
  });
});
