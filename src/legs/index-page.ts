import { FILTER_ATTR, SORT_ATTR, idOfSortKey, type IndexEntry, type IndexEntryReader } from './storage.js';

/**
 * Reads the index entries of a Query response body (DynamoDB's JSON wire form) straight from its
 * text, without building the response's items (docs/performance.md, "Cold cache"). Pure.
 *
 * A response of the listing index looks like
 *   {"Items":[{"lf":{"S":"1\u001F12\u001Friyadh\u001F..."},"ls":{"S":"2027-02-01#EL-1"},"id":{"S":"EL-1"}},...],
 *    "Count":1070,"ScannedCount":1070,"LastEvaluatedKey":{...}}
 * The fast path walks the `Items` array with indexOf and takes each value's JSON text as it is:
 * the filter attribute is split on the escaped separator (`\u001F` or `\u001f`), the start date is
 * the sort key's first ten characters, and a value is unescaped (JSON.parse of that one string)
 * only when it holds another escape. Anything it does not expect (whitespace, another attribute
 * type, a value it cannot take apart) sends the whole page to the slow path: JSON.parse of the
 * body and the same reader over its items. Either way the result is the same entries.
 *
 * Returns the body without its items (`"Items":[]`), for the SDK to read `Count`,
 * `LastEvaluatedKey` and the rest from.
 */
export function readIndexPage(body: string, reader: IndexEntryReader, out: IndexEntry[]): string {
  const before = out.length;
  const rest = scanItems(body, reader, out);
  if (rest !== undefined) return rest;
  // The fast path gave up part way: drop what it read, and read the page the slow way.
  out.length = before;
  return readParsed(body, reader, out);
}

interface WireItem {
  [name: string]: { S?: unknown } | undefined;
}

/** The slow path: the whole body through JSON.parse. */
export function readParsed(body: string, reader: IndexEntryReader, out: IndexEntry[]): string {
  const parsed = JSON.parse(body) as { Items?: WireItem[] };
  for (const item of parsed.Items ?? []) {
    const entry = reader.read({ id: item.id?.S, [SORT_ATTR]: item[SORT_ATTR]?.S, [FILTER_ATTR]: item[FILTER_ATTR]?.S });
    if (entry) out.push(entry);
  }
  if (parsed.Items !== undefined) parsed.Items = [];
  return JSON.stringify(parsed);
}

const ITEMS = '"Items":[';
const STRING_VALUE = ':{"S":"';
const SEPARATOR_ESCAPES = ['\\u001F', '\\u001f'] as const;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/** The JSON string text `raw` (no quotes) as a string of its own. */
function unescape(raw: string): string {
  return JSON.parse(`"${raw}"`) as string;
}

/**
 * The value of JSON string text `raw`: itself when it holds no escape, else unescaped (a copy).
 * Entries keep views into the body (V8 cuts substrings of 13 characters or more as views of the
 * string they come from): the cache then holds each page's text once, where a copy of each value
 * made one string more per value to allocate and to collect (docs/performance.md, "Cold cache").
 */
function valueOf(raw: string): string {
  return raw.includes('\\') ? unescape(raw) : raw;
}

/** The fast path; undefined when the body is not in the expected form. */
function scanItems(body: string, reader: IndexEntryReader, out: IndexEntry[]): string | undefined {
  const start = body.indexOf(ITEMS);
  if (start < 0) return undefined;
  let i = start + ITEMS.length;
  if (body.charCodeAt(i) === CLOSE_BRACKET) return body;
  for (;;) {
    if (body.charCodeAt(i) !== OPEN_BRACE) return undefined;
    i += 1;
    let id: string | undefined;
    let sortId: string | undefined;
    let startDate: string | undefined;
    let filterAt = -1;
    let filterEnd = -1;
    for (;;) {
      if (body.charCodeAt(i) !== QUOTE) return undefined;
      const nameEnd = body.indexOf('"', i + 1);
      if (nameEnd < 0 || !body.startsWith(STRING_VALUE, nameEnd + 1)) return undefined;
      const valueStart = nameEnd + 1 + STRING_VALUE.length;
      const valueEnd = closingQuote(body, valueStart);
      if (valueEnd < 0) return undefined;
      switch (attributeOf(body, i + 1, nameEnd)) {
        case 'id':
          id = valueOf(body.slice(valueStart, valueEnd));
          break;
        case 'sort':
          // `yyyy-MM-dd#id`: the start date and the id (`idOfSortKey`), cut from the text when the
          // date holds no escape; entries of a page come in date order, so a date equal to the
          // previous entry's is that string itself.
          if (isPlainSortKey(body, valueStart, valueEnd)) {
            const previous = reader.lastStartDate;
            startDate = previous.length === 10 && body.startsWith(previous, valueStart) ? previous : body.slice(valueStart, valueStart + 10);
            sortId = valueEnd - valueStart > 11 ? valueOf(body.slice(valueStart + 11, valueEnd)) : undefined;
          } else {
            const sort = unescape(body.slice(valueStart, valueEnd));
            startDate = sort.slice(0, 10);
            sortId = idOfSortKey(sort);
          }
          break;
        case 'filter':
          filterAt = valueStart;
          filterEnd = valueEnd;
          break;
        case undefined:
          return undefined;
        default:
      }
      if (body.charCodeAt(valueEnd + 1) !== CLOSE_BRACE) return undefined;
      i = valueEnd + 2;
      const next = body.charCodeAt(i);
      i += 1;
      if (next === COMMA) continue;
      if (next === CLOSE_BRACE) break;
      return undefined;
    }
    // The item's id: its `id` attribute when the page has it, else the sort key's (the listing's
    // Query leaves `id` out; the reader does the same on the slow path).
    if (id === undefined) id = sortId;
    if (id !== undefined && startDate !== undefined && filterAt >= 0) {
      // The entry views the page itself when the attribute's only escapes are separators: no string
      // of its own (IndexEntry, src/legs/storage.ts).
      const separator = escapedSeparator(body, filterAt, filterEnd);
      const entry = separator
        ? reader.fromFilter(id, startDate, body, separator, filterAt, filterEnd)
        : reader.fromFilter(id, startDate, valueOf(body.slice(filterAt, filterEnd)));
      if (entry) out.push(entry);
    } else if (id !== undefined || startDate !== undefined || filterAt >= 0) {
      // An item with some of the attributes: the slow path decides as the reader always did.
      return undefined;
    }
    const next = body.charCodeAt(i);
    if (next === COMMA) {
      i += 1;
      continue;
    }
    if (next === CLOSE_BRACKET) return body.slice(0, start + ITEMS.length) + body.slice(i);
    return undefined;
  }
}

/** Index of the quote that ends the JSON string starting at `from`, or -1. */
function closingQuote(body: string, from: number): number {
  let end = body.indexOf('"', from);
  while (end >= 0) {
    let backslashes = 0;
    while (end - 1 - backslashes >= from && body.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = body.indexOf('"', end + 1);
  }
  return -1;
}

/**
 * Which of the entry's attributes the name between `from` and `to` is; '' for another, undefined
 * for a name holding an escape (left to the slow path).
 */
function attributeOf(body: string, from: number, to: number): 'id' | 'sort' | 'filter' | '' | undefined {
  const length = to - from;
  if (length === 2 && body.startsWith('id', from)) return 'id';
  if (length === SORT_ATTR.length && body.startsWith(SORT_ATTR, from)) return 'sort';
  if (length === FILTER_ATTR.length && body.startsWith(FILTER_ATTR, from)) return 'filter';
  const backslash = body.indexOf('\\', from);
  return backslash >= 0 && backslash < to ? undefined : '';
}

/** True when the sort key whose JSON text lies between `from` and `to` has a date part free of escapes and then `#`. */
function isPlainSortKey(body: string, from: number, to: number): boolean {
  if (to - from < 11 || body.charCodeAt(from + 10) !== 35 /* # */) return false;
  for (let k = from; k < from + 10; k++) if (body.charCodeAt(k) === BACKSLASH) return false;
  return true;
}

/**
 * The escaped separator of a filter attribute's JSON text, `body[from, to)`, when every escape in
 * it is one (`\u001F` or `\u001f`, whichever the writer used): the fields can then be cut from the
 * text as it is.
 */
function escapedSeparator(body: string, from: number, to: number): string | undefined {
  let at = body.indexOf('\\', from);
  if (at < 0 || at >= to) return undefined;
  const separator = body.startsWith(SEPARATOR_ESCAPES[0], at) ? SEPARATOR_ESCAPES[0] : body.startsWith(SEPARATOR_ESCAPES[1], at) ? SEPARATOR_ESCAPES[1] : undefined;
  if (separator === undefined) return undefined;
  while (at >= 0 && at < to) {
    if (!body.startsWith(separator, at) || at + separator.length > to) return undefined;
    at = body.indexOf('\\', at + separator.length);
  }
  return separator;
}
