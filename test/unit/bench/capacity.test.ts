import { describe, expect, it } from '@jest/globals';
import {
  batchGetReadUnits,
  floorReadUnits,
  itemSize,
  numberSize,
  pageReadUnits,
  queryReadUnits,
  wireItemSize,
} from '../../../bench/capacity.js';

describe('DynamoDB item size', () => {
  it('counts a string attribute as the UTF-8 length of its name and value', () => {
    expect(itemSize({ id: 'EL-000001' })).toBe(2 + 9);
    expect(itemSize({ city: 'São Paulo' })).toBe(4 + 10); // ã is two bytes
  });

  it('counts a number as 1 byte per two significant digits plus 1', () => {
    expect(numberSize('4200')).toBe(2); // "42": 1 + 1
    expect(numberSize('9500.5')).toBe(4); // "95005": 3 + 1
    expect(numberSize('0.001')).toBe(2); // "1"
    expect(numberSize('-123')).toBe(3); // "123": 2 + 1
    expect(itemSize({ price: 9500.5 })).toBe(5 + 4);
  });

  it('counts null and booleans as 1 byte, lists and maps as 3 bytes plus 1 per element', () => {
    expect(itemSize({ listed: true, x: null })).toBe(6 + 1 + 1 + 1);
    expect(itemSize({ l: [] })).toBe(1 + 3);
    expect(itemSize({ l: ['ab', 'c'] })).toBe(1 + 3 + (1 + 2) + (1 + 1));
    // amenities: [{ amenityType: 'wifi' }] = name 9 + list 3 + element 1 + map 3 + (1 + 11 + 4)
    expect(itemSize({ amenities: [{ amenityType: 'wifi' }] })).toBe(9 + 3 + 1 + 3 + 1 + 11 + 4);
  });

  it('gives the same size for the wire form of an item', () => {
    const plain = { id: 'EL-1', price: 9500.5, listed: true, amenities: [{ amenityType: 'wifi', amenityName: 'Wi-Fi' }] };
    const wire = {
      id: { S: 'EL-1' },
      price: { N: '9500.5' },
      listed: { BOOL: true },
      amenities: { L: [{ M: { amenityType: { S: 'wifi' }, amenityName: { S: 'Wi-Fi' } } }] },
    };
    expect(wireItemSize(wire)).toBe(itemSize(plain));
  });
});

describe('read units (eventually consistent)', () => {
  it('rounds a Query page up to 4 KB, half a unit each', () => {
    expect(pageReadUnits(1)).toBe(0.5);
    expect(pageReadUnits(4096)).toBe(0.5);
    expect(pageReadUnits(4097)).toBe(1);
    expect(pageReadUnits(0)).toBe(0);
  });

  it('sums the items of a Query page before rounding', () => {
    // 100 items of 100 bytes: 10,000 bytes in one page = 3 blocks of 4 KB.
    expect(queryReadUnits(Array.from({ length: 100 }, () => 100))).toBe(1.5);
  });

  it('cuts a Query into pages of at most 1 MB, each rounded on its own', () => {
    const limit = 10_000;
    // 3 items of 4,500 bytes with a 10,000-byte page: [9,000] [4,500] = 3 blocks + 2 blocks.
    expect(queryReadUnits([4500, 4500, 4500], limit)).toBe(1.5 + 1);
  });

  it('rounds each item of a BatchGetItem on its own', () => {
    expect(batchGetReadUnits([100, 100, 5000])).toBe(0.5 + 0.5 + 1);
  });

  it('puts the floor at reading the page records by key, nothing for an empty page', () => {
    const page = Array.from({ length: 20 }, () => 950);
    expect(floorReadUnits(page)).toBe(10);
    expect(floorReadUnits([])).toBe(0);
  });
});
