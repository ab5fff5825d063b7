/**
 * DynamoDB's size and read-capacity arithmetic, for the benchmark's reference figures. Pure.
 *
 * Item size (developer guide, "DynamoDB item sizes and formats"): the sum over attributes of the
 * UTF-8 length of the name plus the size of the value: a string its UTF-8 length, a number
 * 1 byte per two significant digits plus 1, a binary its raw length, a boolean or null 1 byte, a
 * list or map 3 bytes plus 1 byte per element plus its elements (a map element also counts its
 * name), a set the sum of its elements.
 *
 * Read units (eventually consistent, as the listing reads): a Query sums the sizes of the items
 * of each response page (at most 1 MB) and rounds each page up to 4 KB, 0.5 unit per 4 KB; a
 * BatchGetItem or GetItem rounds each item up to 4 KB on its own.
 */
export const READ_UNIT_BYTES = 4096;
export const EVENTUALLY_CONSISTENT_UNITS = 0.5;
export const QUERY_PAGE_LIMIT_BYTES = 1024 * 1024;

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Size of a number written in decimal, as DynamoDB counts it. */
export function numberSize(text: string): number {
  const digits = text
    .replace(/^[+-]/, '')
    .replace(/[eE][+-]?\d+$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

/** Size of a value as the document client writes it (plain JavaScript: string, number, array...). */
export function valueSize(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberSize(String(value));
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) {
    let total = 0;
    for (const v of value as Set<unknown>) total += valueSize(v);
    return total;
  }
  if (Array.isArray(value)) {
    let total = 3;
    for (const v of value) if (v !== undefined) total += 1 + valueSize(v);
    return total;
  }
  if (typeof value === 'object') {
    let total = 3;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v !== undefined) total += 1 + utf8(k) + valueSize(v);
    }
    return total;
  }
  return 0;
}

/** Size of an item in plain JavaScript form (what `toStorageItem` returns). */
export function itemSize(item: Readonly<Record<string, unknown>>): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) if (value !== undefined) total += utf8(name) + valueSize(value);
  return total;
}

/** An attribute value in the wire form (`{ S: '...' }`, `{ N: '12' }`, `{ M: {...} }`...). */
export type WireValue = Readonly<Record<string, unknown>>;

export function wireValueSize(value: WireValue): number {
  if (typeof value.S === 'string') return utf8(value.S);
  if (typeof value.N === 'string') return numberSize(value.N);
  if (value.B instanceof Uint8Array) return value.B.byteLength;
  if (typeof value.B === 'string') return Buffer.from(value.B, 'base64').byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (Array.isArray(value.L)) {
    let total = 3;
    for (const v of value.L as WireValue[]) total += 1 + wireValueSize(v);
    return total;
  }
  if (value.M !== undefined && typeof value.M === 'object' && value.M !== null) {
    let total = 3;
    for (const [k, v] of Object.entries(value.M as Record<string, WireValue>)) total += 1 + utf8(k) + wireValueSize(v);
    return total;
  }
  if (Array.isArray(value.SS)) return (value.SS as string[]).reduce((a, s) => a + utf8(s), 0);
  if (Array.isArray(value.NS)) return (value.NS as string[]).reduce((a, s) => a + numberSize(s), 0);
  if (Array.isArray(value.BS)) return (value.BS as Uint8Array[]).reduce((a, b) => a + b.byteLength, 0);
  return 0;
}

/** Size of an item in wire form (what a Query or BatchGetItem response carries). */
export function wireItemSize(item: Readonly<Record<string, WireValue>>): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) total += utf8(name) + wireValueSize(value);
  return total;
}

/** Read units of one Query response page holding `bytes` of items. */
export function pageReadUnits(bytes: number): number {
  return Math.ceil(bytes / READ_UNIT_BYTES) * EVENTUALLY_CONSISTENT_UNITS;
}

/**
 * Read units of a Query returning items of these sizes, in order: cut into pages of at most
 * `pageLimit` bytes (1 MB), each page rounded up to 4 KB.
 */
export function queryReadUnits(itemSizes: readonly number[], pageLimit = QUERY_PAGE_LIMIT_BYTES): number {
  let units = 0;
  let page = 0;
  for (const size of itemSizes) {
    if (page > 0 && page + size > pageLimit) {
      units += pageReadUnits(page);
      page = 0;
    }
    page += size;
  }
  return units + pageReadUnits(page);
}

/** Read units of BatchGetItem (or GetItem) calls returning items of these sizes: each item rounds up on its own. */
export function batchGetReadUnits(itemSizes: readonly number[]): number {
  return itemSizes.reduce((units, size) => units + pageReadUnits(size), 0);
}

/**
 * The floor of a listing request: reading nothing but the records of its page, each by key
 * (what any design must pay to return those records).
 */
export function floorReadUnits(pageRecordSizes: readonly number[]): number {
  return batchGetReadUnits(pageRecordSizes);
}
