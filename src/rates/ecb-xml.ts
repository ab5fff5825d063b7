/**
 * The ECB's reference-rates XML (eurofxref-daily, -hist-90d, -hist: one `<Cube time>` per day of
 * `<Cube currency rate>`s), read strictly by a small scanner of its own (docs/rates.md, "The file"):
 * no DTD, no entity but the five predefined, nothing fetched; a file not of that shape is refused.
 */

/** Rates in force: units of each currency per euro, as the decimal text the ECB gave. */
export interface RateSet {
  /** The ECB's date of the rates, yyyy-MM-dd. */
  readonly date: string;
  /** Currency code (ISO 4217, not EUR) -> units per euro, a positive decimal text. */
  readonly rates: Readonly<Record<string, string>>;
}

/** A file refused: `message` names the problem (and its line). */
export class RatesFileError extends Error {
  override readonly name = 'RatesFileError';
}

/** Largest file read (the full history is about 7 MB). */
export const MAX_RATES_FILE_BYTES = 32 * 1024 * 1024;

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const CURRENCY = /^[A-Z]{3}$/;
const RATE = /^\d{1,12}(\.\d{1,12})?$/;
const NAME = /[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/y;
const ATTRIBUTE = /\s+([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)\s*=\s*(?:'([^'<&]*)'|"([^"<&]*)")/y;
/** An `&` that starts no predefined or character reference (searched: no backtracking over a long text). */
const BAD_REFERENCE = /&(?!(?:lt|gt|amp|apos|quot|#\d{1,7}|#x[0-9A-Fa-f]{1,6});)/;

function isCalendarDay(s: string): boolean {
  const m = CALENDAR_DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

interface Element {
  name: string;
  attributes: Map<string, string>;
  line: number;
}

/** The line of each offset, asked in increasing order: each newline of the text is found once. */
function lineCounter(xml: string): (offset: number) => number {
  let line = 1;
  let next = xml.indexOf('\n');
  return (offset) => {
    while (next >= 0 && next < offset) {
      line++;
      next = xml.indexOf('\n', next + 1);
    }
    return line;
  };
}

/** The elements of a well-formed document, in document order, with each one's depth; linear in its length. */
function* elements(xml: string): Generator<[Element, number]> {
  const lineAt = lineCounter(xml);
  const fail = (offset: number, what: string): never => {
    throw new RatesFileError(`line ${lineAt(offset)}: ${what}`);
  };
  let i = 0;
  if (xml.startsWith('\uFEFF')) i = 1;
  if (xml.startsWith('<?xml', i)) {
    const end = xml.indexOf('?>', i);
    if (end < 0) fail(i, 'the XML declaration is not closed');
    const encoding = /encoding\s*=\s*["']([^"']*)["']/.exec(xml.slice(i, end));
    if (encoding && encoding[1]!.toLowerCase() !== 'utf-8') fail(i, `the file must be UTF-8, not ${encoding[1]}`);
    i = end + 2;
  }
  const stack: string[] = [];
  let rootSeen = false;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = xml.slice(i, lt < 0 ? xml.length : lt);
    if (BAD_REFERENCE.test(text)) fail(i, 'an entity reference other than the predefined ones');
    if ((stack.length === 0 && text.trim() !== '') || (lt < 0 && stack.length > 0)) fail(i, 'text outside the document element, or an element not closed');
    if (lt < 0) break;
    i = lt;
    if (xml.startsWith('<!--', i)) {
      const end = xml.indexOf('-->', i + 4);
      if (end < 0) fail(i, 'a comment is not closed');
      i = end + 3;
      continue;
    }
    if (xml.startsWith('<!', i) || xml.startsWith('<?', i)) fail(i, 'a DOCTYPE, entity declaration, CDATA section or processing instruction is not accepted');
    const closing = xml[i + 1] === '/';
    NAME.lastIndex = i + (closing ? 2 : 1);
    const name = NAME.exec(xml)?.[0];
    if (name === undefined) fail(i, 'a malformed tag');
    let k = NAME.lastIndex;
    if (closing) {
      const end = /\s*>/y;
      end.lastIndex = k;
      if (!end.test(xml)) fail(i, `a malformed closing tag </${name}>`);
      if (stack.pop() !== name) fail(i, `</${name}> closes no open <${name}>`);
      i = end.lastIndex;
      continue;
    }
    const attributes = new Map<string, string>();
    for (;;) {
      ATTRIBUTE.lastIndex = k;
      const m = ATTRIBUTE.exec(xml);
      if (!m) break;
      if (attributes.has(m[1]!)) fail(i, `attribute ${m[1]} given twice`);
      attributes.set(m[1]!, m[2] ?? m[3]!);
      k = ATTRIBUTE.lastIndex;
    }
    const end = /\s*(\/?)>/y;
    end.lastIndex = k;
    const close = end.exec(xml);
    if (!close) fail(i, `a malformed tag <${name}>`);
    if (stack.length === 0 && rootSeen) fail(i, 'a second document element');
    rootSeen = true;
    yield [{ name: name!, attributes, line: lineAt(i) }, stack.length];
    if (close![1] !== '/') stack.push(name!);
    i = end.lastIndex;
  }
  if (!rootSeen) throw new RatesFileError('no document element: not an XML file');
}

/**
 * The latest day of an ECB rates file (daily, 90-day or history). Throws `RatesFileError` naming
 * the problem when the text is not such a file: malformed XML, a bad date, code or rate, a day or
 * currency given twice, a day without rates, no day at all.
 */
export function parseEcbRates(xml: string): RateSet {
  if (xml.length > MAX_RATES_FILE_BYTES) throw new RatesFileError(`the file is larger than ${MAX_RATES_FILE_BYTES} bytes`);
  // Every day's date is kept (a day given twice is refused), the rates of the latest day only.
  const days = new Set<string>();
  let latest: RateSet | undefined;
  let day: Record<string, string> | undefined;
  let dayDepth = -1;
  let rootName = '';
  for (const [element, depth] of elements(xml)) {
    if (depth === 0) rootName = element.name;
    if (element.name !== 'Cube') continue;
    const at = `line ${element.line}`;
    if (day !== undefined && depth <= dayDepth) day = undefined;
    const time = element.attributes.get('time');
    const currency = element.attributes.get('currency');
    if (time !== undefined) {
      if (!isCalendarDay(time)) throw new RatesFileError(`${at}: time '${time}' is not a calendar date (yyyy-MM-dd)`);
      if (days.has(time)) throw new RatesFileError(`${at}: the day ${time} is given twice`);
      day = {};
      dayDepth = depth;
      days.add(time);
      if (latest === undefined || time > latest.date) latest = { date: time, rates: day };
    } else if (currency !== undefined) {
      const rate = element.attributes.get('rate');
      if (day === undefined || depth !== dayDepth + 1) throw new RatesFileError(`${at}: a rate outside a <Cube time='…'> day`);
      if (!CURRENCY.test(currency) || currency === 'EUR') throw new RatesFileError(`${at}: currency '${currency}' is not an ISO 4217 code other than EUR`);
      if (rate === undefined || !RATE.test(rate) || Number(rate) <= 0) throw new RatesFileError(`${at}: the rate of ${currency} must be a positive decimal (got '${rate ?? ''}')`);
      if (day[currency] !== undefined) throw new RatesFileError(`${at}: ${currency} is given twice`);
      day[currency] = rate;
    }
  }
  if (!/(^|:)Envelope$/.test(rootName)) throw new RatesFileError(`the document element is <${rootName}>, not the ECB's <gesmes:Envelope>`);
  if (latest === undefined) throw new RatesFileError("no <Cube time='…'> day of rates");
  if (Object.keys(latest.rates).length === 0) throw new RatesFileError(`the latest day, ${latest.date}, has no rates`);
  return latest;
}
