import { describe, expect, it } from '@jest/globals';
import {
  bucketReads,
  bucketsFor,
  collectMatches,
  compareLegs,
  compileQuery,
  pageOfMerged,
  paginate,
  queryWindow,
} from '../../../src/listing/listing.js';
import { parseListQuery, type ListQuery } from '../../../src/listing/query.js';
import type { DateWindow } from '../../../src/kernel/listed.js';
import { keyCondition, withBucketCache, type LegsRepository } from '../../../src/listing/repository.js';
import { entryFields, parseIndexItem, type IndexEntry } from '../../../src/kernel/index-entry.js';
import { expiryInstant, toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { storedLeg } from '../../support/legs.js';
import { indexEntry, type EntryFields } from '../../support/index-entries.js';

const TODAY = '2026-11-21';
const NOW = new Date('2026-11-21T12:00:00Z');

/**
 * An index entry; `depTimezone` (default UTC) gives its expiry, as the storage mapping does. Without
 * an endDate it ends on the 27th, or on its start day when that is later.
 */
function entry(over: Partial<EntryFields> & { depTimezone?: string }): IndexEntry {
  const { depTimezone = 'UTC', ...rest } = over;
  const startDate = over.startDate ?? '2026-11-25';
  const base = {
    id: 'a',
    startDate,
    endDate: startDate > '2026-11-27' ? startDate : '2026-11-27',
    depCity: 'london',
    depIcao: 'eglf',
    depIata: 'fab',
    arrCity: 'nice',
    arrIcao: 'lfmn',
    arrIata: 'nce',
    ...rest,
  };
  return indexEntry({ expiresAt: expiryInstant(base.endDate, depTimezone), ...base });
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
  it('runs from the earliest local today to the listing horizon without depDate', () => {
    // The loader takes legs starting up to 366 days after its UTC today; one day of slack for its clock.
    expect(queryWindow({ depDate: undefined, offsetDays: 0 }, TODAY)).toEqual({ from: '2026-11-20', to: '2027-11-23' });
  });
  it('ends at the horizon (the last start date a leg can have), whatever the year', () => {
    expect(queryWindow({ depDate: '2027-11-20', offsetDays: 5 }, TODAY)).toEqual({ from: '2027-11-15', to: '2027-11-23' });
    expect(queryWindow({ depDate: '2027-11-24', offsetDays: 0 }, TODAY)).toEqual({ from: '2027-11-24', to: '2027-11-23' });
    expect(queryWindow({ depDate: '9999-12-20', offsetDays: 15 }, TODAY)).toEqual({ from: '9999-12-05', to: '2027-11-23' });
    expect(queryWindow({ depDate: '9999-12-31', offsetDays: 15 }, '9999-12-30')).toEqual({ from: '9999-12-30', to: '9999-12-31' });
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
    const buckets = bucketsFor({ from: '2026-11-20', to: '2027-11-23' }, TODAY);
    expect(buckets[0]).toBe('2026-10');
    expect(buckets.at(-2)).toBe('2027-11');
    expect(buckets.at(-1)).toBe('long');
    expect(buckets).toHaveLength(15);
  });
});

describe('the compiled query', () => {
  const today = NOW.getTime();
  const q = (params: Record<string, string>) => parseListQuery(params);
  const matches = (e: IndexEntry, query: ListQuery, w: DateWindow, nowMs: number) => compileQuery(query).matches(e, w, nowMs);
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

  it('matches city names by substring, ignoring case and accents', () => {
    const w = window({});
    // Index entries hold the city folded: lower case, accents removed.
    const e = entry({ depCity: 'new york', arrCity: 'sao paulo' });
    expect(matches(e, q({ depCityName: 'YORK' }), w, today)).toBe(true);
    expect(matches(e, q({ depCityName: 'boston' }), w, today)).toBe(false);
    expect(matches(e, q({ arrCityName: 'São' }), w, today)).toBe(true);
    expect(matches(e, q({ arrCityName: 'SAO P' }), w, today)).toBe(true);
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
    const e = entry({ seats: 8, aircraftType: 'Light Jet' });
    expect(matches(e, q({ depCityName: 'lon', arrAirportCode: 'NCE' }), w, today)).toBe(true);
    expect(matches(e, q({ depCityName: 'lon', arrAirportCode: 'GVA' }), w, today)).toBe(false);
    expect(matches(e, q({ depCityName: 'lon', minSeats: '8', aircraftType: 'light jet' }), w, today)).toBe(true);
    expect(matches(e, q({ depCityName: 'lon', minSeats: '9', aircraftType: 'light jet' }), w, today)).toBe(false);
    expect(matches(e, q({ depCityName: 'lon', minSeats: '8', aircraftType: 'heavy jet' }), w, today)).toBe(false);
  });

  it('keeps a leg with at least minSeats seats; unknown seats never match', () => {
    const w = window({});
    expect(matches(entry({ seats: 12 }), q({ minSeats: '12' }), w, today)).toBe(true);
    expect(matches(entry({ seats: 12 }), q({ minSeats: '13' }), w, today)).toBe(false);
    expect(matches(entry({ seats: 850 }), q({ minSeats: '850' }), w, today)).toBe(true);
    expect(matches(entry({}), q({ minSeats: '1' }), w, today)).toBe(false);
    expect(matches(entry({}), q({}), w, today)).toBe(true);
  });

  it('keeps a leg of any of the categories asked for; an unknown category never matches', () => {
    const w = window({});
    const heavy = entry({ aircraftType: 'Heavy Jet' });
    expect(matches(heavy, q({ aircraftType: 'Heavy Jet' }), w, today)).toBe(true);
    expect(matches(heavy, q({ aircraftType: 'light jet,HEAVY-JET' }), w, today)).toBe(true);
    expect(matches(heavy, q({ aircraftType: 'Super Midsize Jet,Ultra Long Range' }), w, today)).toBe(false);
    expect(matches(entry({}), q({ aircraftType: 'Heavy Jet' }), w, today)).toBe(false);
  });

  it('reads an entry written before the aircraft field (six fields) as seats and category unknown', () => {
    const w = window({});
    const leg = storedLeg({ id: 'old', startDate: '2026-11-25', endDate: '2026-11-27', seatNum: 14, aircraftType: 'Heavy Jet' });
    const item = toStorageItem(leg);
    const sixFields = (item.lf as string).split('\u001f').slice(0, 6).join('\u001f');
    const old = parseIndexItem({ ...item, lf: sixFields })!;
    const now = parseIndexItem(item)!;
    expect([now.seats, entryFields(now).aircraftType]).toEqual([14, 'Heavy Jet']);
    expect([old.seats, entryFields(old).aircraftType]).toEqual([0, null]);
    expect(entryFields(old)).toEqual({ ...entryFields(now), seats: 0, aircraftType: null });
    expect(matches(old, q({}), w, today)).toBe(true);
    expect(matches(old, q({ minSeats: '2' }), w, today)).toBe(false);
    expect(matches(old, q({ aircraftType: 'Heavy Jet' }), w, today)).toBe(false);
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
    expect(pageOfMerged(a, b, 1, 10).items.map((e) => e.id)).toEqual(['b1', 'a1', 'a2', 'b2']);
    expect(pageOfMerged([], [], 1, 10)).toEqual({ items: [], total: 0, page: 1, size: 10 });
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

describe('bucketReads', () => {
  it('bounds the first month from (from - 28 days) and the last month and the long bucket at `to`', () => {
    expect(bucketReads({ from: '2026-12-02', to: '2026-12-08' }, TODAY)).toEqual([
      { bucket: '2026-11', from: '2026-11-04' },
      { bucket: '2026-12', to: '2026-12-08' },
      { bucket: 'long', to: '2026-12-08' },
    ]);
  });
  it('leaves the middle months unbounded and ends the last month and the long bucket at the horizon without depDate', () => {
    const reads = bucketReads(queryWindow({ depDate: undefined, offsetDays: 0 }, TODAY)!, TODAY);
    expect(reads[0]).toEqual({ bucket: '2026-10', from: '2026-10-23' });
    expect(reads.slice(1, -2).every((r) => r.from === undefined && r.to === undefined)).toBe(true);
    expect(reads.slice(-2)).toEqual([
      { bucket: '2027-11', to: '2027-11-23' },
      { bucket: 'long', to: '2027-11-23' },
    ]);
  });
  it('clips a window it is given to what can hold a leg: nothing before yesterday, nothing past the horizon', () => {
    expect(bucketReads({ from: '0001-01-01', to: '9999-12-31' }, TODAY)).toEqual(bucketReads({ from: '2026-11-20', to: '2027-11-23' }, TODAY));
    // Past the horizon only a long leg that started before it can still be flyable.
    expect(bucketReads({ from: '9999-12-20', to: '9999-12-31' }, TODAY)).toEqual([{ bucket: 'long', to: '2027-11-23' }]);
    expect(bucketReads({ from: '2027-12-22', to: '2027-12-22' }, TODAY)).toEqual([{ bucket: 'long', to: '2027-11-23' }]);
    // A leg of 28 days starting on the horizon day, 2027-11-23, is flyable until 2027-12-21.
    expect(bucketReads({ from: '2027-12-21', to: '2027-12-21' }, TODAY)).toEqual([
      { bucket: '2027-11', from: '2027-11-23', to: '2027-11-23' },
      { bucket: 'long', to: '2027-11-23' },
    ]);
  });
});

describe('collectMatches', () => {
  const list = ['2026-11-22', '2026-11-25', '2026-11-25', '2026-11-28', '2026-12-01'].map((d, i) =>
    entry({ id: `e${i}`, startDate: d, endDate: d }),
  );
  it('keeps, in order, the matching entries of the read range only', () => {
    const q = parseListQuery({});
    const out: IndexEntry[] = [];
    collectMatches(list, { from: '2026-11-25', to: '2026-11-28' }, compileQuery(q), { from: '2026-11-20', to: '2027-11-23' }, NOW.getTime(), out);
    expect(out.map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
  });
});

describe('pageOfMerged', () => {
  const a = Array.from({ length: 23 }, (_, i) => entry({ id: `a${String(i).padStart(2, '0')}`, startDate: `2026-12-${String(1 + (i % 28)).padStart(2, '0')}` })).sort(compareLegs);
  const b = Array.from({ length: 7 }, (_, i) => entry({ id: `b${i}`, startDate: `2026-12-${String(3 + i * 3).padStart(2, '0')}` })).sort(compareLegs);
  it('gives every page of the full merge, with the total, without merging past the page', () => {
    const merged = [...a, ...b].sort(compareLegs);
    for (const size of [1, 4, 10, 30, 100]) {
      for (let page = 1; page <= Math.ceil(merged.length / size) + 1; page++) {
        expect(pageOfMerged(a, b, page, size)).toEqual(paginate(merged, page, size));
      }
    }
    expect(pageOfMerged([], b, 1, 5)).toEqual(paginate(b, 1, 5));
    expect(pageOfMerged(a, [], 2, 5)).toEqual(paginate(a, 2, 5));
  });
});

describe('index entries (storage)', () => {
  const leg: StoredLeg = storedLeg({
    id: 'EL-000042',
    startDate: '2026-12-01',
    endDate: '2026-12-04',
    depCityName: 'São Paulo',
    depAirportName: 'Congonhas',
    depAirportIcao: 'SBSP',
    depAirportIata: 'CGH',
    depCountryName: 'Brazil',
    depCountryCode: 'BR',
    arrCityName: 'New York',
    depTimezone: 'America/Sao_Paulo',
  });

  it('reads back what the listing filters on from the stored attributes', () => {
    const item = toStorageItem(leg);
    expect(item.lb).toBe('2026-12');
    expect(item.ls).toBe('2026-12-01#EL-000042');
    expect(entryFields(parseIndexItem({ id: item.id, ls: item.ls, lf: item.lf })!)).toEqual({
      id: 'EL-000042',
      startDate: '2026-12-01',
      endDate: '2026-12-04',
      // São Paulo is UTC-3: the 5th starts at 03:00 UTC.
      expiresAt: Date.parse('2026-12-05T03:00:00Z'),
      depCity: 'sao paulo',
      depIcao: 'sbsp',
      depIata: 'cgh',
      arrCity: 'new york',
      arrIcao: '',
      arrIata: '',
      seats: 0,
      aircraftType: null,
    });
  });

  it('writes the seats and the category letter last (a for the first category); a name in another case is its category, another text none', () => {
    const lf = (over: Partial<StoredLeg>) => (toStorageItem({ ...leg, ...over }).lf as string).split('\u001f');
    expect(lf({ seatNum: 16, aircraftType: 'Ultra Long Range' })).toHaveLength(7);
    // Piston a, Turboprop b, Very Light Jet c, Light Jet d, Midsize Jet e, Super Midsize Jet f,
    // Heavy Jet g, Ultra Long Range h, Airliner i, Helicopter j.
    expect(lf({ seatNum: 16, aircraftType: 'Ultra Long Range' })[6]).toBe('16h');
    expect(lf({ seatNum: null, aircraftType: 'Helicopter' })[6]).toBe('j');
    expect(lf({ seatNum: 4, aircraftType: 'Piston' })[6]).toBe('4a');
    expect(lf({ seatNum: 850, aircraftType: null })[6]).toBe('850');
    expect(lf({ seatNum: null, aircraftType: null })[6]).toBe('');
    expect(lf({ seatNum: 9, aircraftType: 'SUPER-MIDSIZE JET' as StoredLeg['aircraftType'] })[6]).toBe('9f');
    expect(lf({ seatNum: 9, aircraftType: 'Super Mid' as StoredLeg['aircraftType'] })[6]).toBe('9');
    expect(lf({ seatNum: 9, aircraftType: 'Glider' as StoredLeg['aircraftType'] })[6]).toBe('9');
  });

  it('reads an aircraft field it does not know the letter of as an unknown category, and never throws on one', () => {
    const read = (field: string) => {
      const lf = [...(toStorageItem(leg).lf as string).split('\u001f').slice(0, 6), field].join('\u001f');
      const e = parseIndexItem({ id: 'x', ls: '2026-12-01#x', lf })!;
      return [e.seats, entryFields(e).aircraftType];
    };
    expect(read('12z')).toEqual([12, null]);
    expect(read('12`')).toEqual([12, null]);
    expect(read('12k')).toEqual([12, null]);
    expect(read('x12')).toEqual([0, null]);
    expect(read('12gg')).toEqual([12, null]);
    expect(read('g')).toEqual([0, 'Heavy Jet']);
    expect(read('12j')).toEqual([12, 'Helicopter']);
    expect(read('7a')).toEqual([7, 'Piston']);
    expect(read('é')).toEqual([0, null]);
  });

  it('keeps codes of unusual length apart, and one code without the other', () => {
    const odd = toStorageItem({ ...leg, depAirportIcao: 'K1', depAirportIata: null, arrAirportIcao: null, arrAirportIata: 'NCE' });
    expect(entryFields(parseIndexItem(odd)!)).toMatchObject({ depIcao: 'k1', depIata: '', arrIcao: '', arrIata: 'nce' });
  });

  it('puts the expiry at the start of the next local day, also where it does not start at midnight', () => {
    expect(expiryInstant('2026-11-21', 'UTC')).toBe(Date.parse('2026-11-22T00:00:00Z'));
    expect(expiryInstant('2026-11-21', 'Asia/Kathmandu')).toBe(Date.parse('2026-11-21T18:15:00Z'));
    // Cuba moves its clocks from 00:00 to 01:00 on 2026-03-08: that day starts at 01:00 local (05:00 UTC).
    expect(expiryInstant('2026-03-07', 'America/Havana')).toBe(Date.parse('2026-03-08T05:00:00Z'));
  });
});

describe('repository key condition and listing cache', () => {
  it('turns a startDate range into a condition on the sort key startDate#id', () => {
    expect(keyCondition('2026-12')).toEqual({ expression: '#b = :b', values: { ':b': '2026-12' } });
    expect(keyCondition('2026-12', { from: '2026-12-03' })).toEqual({
      expression: '#b = :b AND #s >= :lo',
      values: { ':b': '2026-12', ':lo': '2026-12-03' },
    });
    const both = keyCondition('2026-12', { from: '2026-12-03', to: '2026-12-09' });
    expect(both.expression).toBe('#b = :b AND #s BETWEEN :lo AND :hi');
    const hi = both.values[':hi']!;
    expect('2026-12-09#zzzz' <= hi && '2026-12-09#EL-1' <= hi).toBe(true);
    expect('2026-12-10#EL-1' > hi).toBe(true);
  });

  function fakeRepo() {
    const calls = { buckets: [] as string[], ids: [] as string[][] };
    const repo: LegsRepository = {
      queryBucket: (bucket, range) => {
        calls.buckets.push(`${bucket}:${range?.from ?? ''}:${range?.to ?? ''}`);
        return Promise.resolve([]);
      },
      getLegs: (ids) => {
        calls.ids.push([...ids]);
        return Promise.resolve(ids.map((id) => ({ id })));
      },
    };
    return { repo, calls };
  }

  it('reuses a cached read for any narrower range of the same bucket, until the TTL ends', async () => {
    let now = 0;
    const { repo, calls } = fakeRepo();
    const cached = withBucketCache(repo, 10_000, () => now);
    await cached.queryBucket('2026-12', {});
    await cached.queryBucket('2026-12', { from: '2026-12-03', to: '2026-12-09' });
    await cached.queryBucket('2026-12', { to: '2026-12-09' });
    expect(calls.buckets).toEqual(['2026-12::']);
    now = 10_000;
    await cached.queryBucket('2026-12', { to: '2026-12-09' });
    expect(calls.buckets).toEqual(['2026-12::', '2026-12::2026-12-09']);
  });

  it('does not reuse a narrower read for a wider one', async () => {
    const { repo, calls } = fakeRepo();
    const cached = withBucketCache(repo, 10_000, () => 0);
    await cached.queryBucket('2026-12', { from: '2026-12-03' });
    await cached.queryBucket('2026-12', {});
    expect(calls.buckets).toEqual(['2026-12:2026-12-03:', '2026-12::']);
  });

  it('caches page records by id and fetches only the missing ones', async () => {
    const { repo, calls } = fakeRepo();
    const cached = withBucketCache(repo, 10_000, () => 0);
    await cached.getLegs(['a', 'b']);
    const second = await cached.getLegs(['b', 'c']);
    expect(calls.ids).toEqual([['a', 'b'], ['c']]);
    expect(second.map((i) => i.id).sort()).toEqual(['b', 'c']);
    cached.clear();
    await cached.getLegs(['a']);
    expect(calls.ids).toHaveLength(3);
  });

  it('fetches a page record again once its TTL has passed, counted from the request that fetched it', async () => {
    const { repo, calls } = fakeRepo();
    let t = 0;
    const cached = withBucketCache(repo, 10_000, () => t);
    await cached.getLegs(['a']);
    t = 9_999;
    await cached.getLegs(['a']);
    expect(calls.ids).toEqual([['a']]);
    t = 10_000;
    await cached.getLegs(['a']);
    expect(calls.ids).toEqual([['a'], ['a']]);
  });

  it('keeps at most maxRecords page records, least recently used out first', async () => {
    const { repo, calls } = fakeRepo();
    const cached = withBucketCache(repo, 10_000, () => 0, 2);
    await cached.getLegs(['a', 'b']);
    await cached.getLegs(['a']);
    await cached.getLegs(['c']);
    await cached.getLegs(['a']);
    expect(calls.ids).toEqual([['a', 'b'], ['c']]);
    await cached.getLegs(['b']);
    expect(calls.ids).toEqual([['a', 'b'], ['c'], ['b']]);
  });

  it('reads through when the TTL is 0', async () => {
    const { repo, calls } = fakeRepo();
    const cached = withBucketCache(repo, 0);
    await cached.getLegs(['a']);
    await cached.getLegs(['a']);
    await cached.queryBucket('2026-12');
    await cached.queryBucket('2026-12');
    expect(calls.ids).toHaveLength(2);
    expect(calls.buckets).toHaveLength(2);
  });
});
