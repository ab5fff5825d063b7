import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseEcbRates, RatesFileError, type RateSet } from '../../../src/rates/ecb-xml.js';

const daily = readFileSync(new URL('../../../src/rates/data/eurofxref-daily-2022-07-08.xml', import.meta.url), 'utf8');

/** A 90-day or history file in the ECB's layout: one `<Cube time>` a day, newest first. */
function history(days: Record<string, Record<string, string>>): string {
  const cubes = Object.entries(days)
    .map(([time, rates]) => `\t\t<Cube time="${time}">\n${Object.entries(rates).map(([c, r]) => `\t\t\t<Cube currency="${c}" rate="${r}"/>`).join('\n')}\n\t\t</Cube>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?><gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><gesmes:subject>Reference rates</gesmes:subject><gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender><Cube>\n${cubes}\n\t</Cube></gesmes:Envelope>`;
}

/**
 * A full-history file (eurofxref-hist.xml: one day per TARGET working day, newest first) of at least
 * `bytes`, in the layout of the real daily file: its head and tail, its day repeated back from
 * 2022-07-08 over weekdays, each older day's rates moved a little so that no two days are alike.
 */
function fullHistory(bytes: number): { xml: string; days: number } {
  const open = daily.indexOf('<Cube time=');
  const close = daily.lastIndexOf('</Cube>', daily.lastIndexOf('</Cube>') - 1) + '</Cube>'.length;
  const [head, day, tail] = [daily.slice(0, open), daily.slice(open, close), daily.slice(close)];
  const parts = [head];
  let size = head.length + tail.length;
  for (let at = Date.UTC(2022, 6, 8), n = 0; size < bytes; at -= 86_400_000) {
    const weekday = new Date(at).getUTCDay();
    if (weekday === 0 || weekday === 6) continue;
    const part = day
      .replace("time='2022-07-08'", `time='${new Date(at).toISOString().slice(0, 10)}'`)
      .replace(/rate='([\d.]+)'/g, (_, rate: string) => `rate='${n === 0 ? rate : (Number(rate) * (1 + n / 100_000)).toFixed(4)}'`);
    parts.push(part.replace(/^(?=<Cube time)/, n === 0 ? '' : '\n\t\t'));
    size += part.length;
    n++;
  }
  return { xml: parts.join('') + tail, days: parts.length - 1 };
}

/** Characters that one run of `fn` copies or re-reads through String.prototype's slice, substring and split. */
function charactersSliced(fn: () => void): number {
  const proto = String.prototype;
  const saved = { slice: proto.slice, substring: proto.substring, split: proto.split };
  let count = 0;
  proto.slice = function (this: string, ...args: Parameters<string['slice']>) {
    const out = saved.slice.apply(this, args);
    count += out.length;
    return out;
  };
  proto.substring = function (this: string, ...args: Parameters<string['substring']>) {
    const out = saved.substring.apply(this, args);
    count += out.length;
    return out;
  };
  proto.split = function (this: string, separator: string, limit?: number) {
    count += this.length;
    return Reflect.apply(saved.split, this, [separator, limit]) as string[];
  } as typeof proto.split;
  try {
    fn();
  } finally {
    Object.assign(proto, saved);
  }
  return count;
}

const refusal = (xml: string) => {
  try {
    parseEcbRates(xml);
  } catch (err) {
    expect(err).toBeInstanceOf(RatesFileError);
    return (err as Error).message;
  }
  throw new Error('not refused');
};

describe('parseEcbRates', () => {
  it("reads the ECB's daily file of 8 July 2022: its date and its 31 currencies, as the decimal texts given", () => {
    const set = parseEcbRates(daily);
    expect(set.date).toBe('2022-07-08');
    expect(Object.keys(set.rates)).toHaveLength(31);
    expect(set.rates).toMatchObject({ USD: '1.0163', JPY: '138.05', GBP: '0.84585', PLN: '4.7630', HKD: '7.9769', ZAR: '17.1922' });
  });

  it('takes the latest day of a 90-day or history file, whatever the order of its days', () => {
    const xml = history({ '2022-07-07': { USD: '1.0180' }, '2022-07-08': { USD: '1.0163', GBP: '0.84585' }, '2022-07-06': { USD: '1.02' } });
    expect(parseEcbRates(xml)).toEqual({ date: '2022-07-08', rates: { USD: '1.0163', GBP: '0.84585' } });
  });

  it.each([
    ['a DOCTYPE (and so any entity declaration)', daily.replace('<gesmes:Envelope', '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><gesmes:Envelope'), /DOCTYPE/],
    ['an entity reference', daily.replace('European Central Bank', '&e;'), /entity reference/],
    ['a truncated file', daily.slice(0, 900), /malformed tag|not closed/],
    ['a file cut between two elements', daily.slice(0, daily.indexOf('<Cube currency')), /not closed/],
    ['a mismatched closing tag', daily.replace('</gesmes:Sender>', '</gesmes:Sendr>'), /closes no open/],
    ['a rate that is no decimal', daily.replace("rate='1.0163'", "rate='1,0163'"), /line 9: the rate of USD must be a positive decimal/],
    ['a zero rate', daily.replace("rate='1.0163'", "rate='0'"), /positive decimal/],
    ['a currency code that is no code', daily.replace("currency='USD'", "currency='usd'"), /'usd' is not an ISO 4217 code/],
    ['EUR among the rates', daily.replace("currency='USD'", "currency='EUR'"), /'EUR'/],
    ['a currency given twice', daily.replace("currency='JPY'", "currency='USD'"), /USD is given twice/],
    ['an impossible date', daily.replace("time='2022-07-08'", "time='2022-02-30'"), /not a calendar date/],
    ['a day given twice', history({ '2022-07-08': { USD: '1' } }).replace('</Cube>\n\t</Cube>', '</Cube><Cube time="2022-07-08"><Cube currency="GBP" rate="1"/></Cube>\n\t</Cube>'), /given twice/],
    ['no day', daily.replace(/<Cube time='2022-07-08'>[\s\S]*?<\/Cube>\s*<\/Cube>/, '</Cube>'), /no <Cube time/],
    ['a day without rates', history({ '2022-07-08': {} }), /has no rates/],
    ['another document', '<?xml version="1.0"?><html><body>Service unavailable</body></html>', /not the ECB's/],
    ['not XML at all', '{"rates": {}}', /text outside|no document element/],
    ['two document elements', `${daily}<x/>`, /second document element/],
    ['another encoding', daily.replace('UTF-8', 'ISO-8859-1'), /must be UTF-8/],
  ])('refuses %s, naming the problem', (_what, xml, message) => {
    expect(refusal(xml)).toMatch(message);
  });

  describe("the ECB's full-history file (about 7 MB)", () => {
    const big = fullHistory(7 * 1024 * 1024);
    const small = fullHistory(big.xml.length / 10);

    it('is read in linear time: each character copied at most once, 10 times the text parsed in at most 40 times as long', () => {
      expect(big.days).toBeGreaterThan(4_000);
      const latest = parseEcbRates(daily);
      const fastest = { small: Infinity, big: Infinity };
      for (let round = 0; round < 3; round++) {
        for (const [name, { xml }] of [['small', small], ['big', big]] as const) {
          let set: RateSet | undefined;
          const started = performance.now();
          // The count is the sharp check: the old scanner split the whole text before each element again (quadratic).
          expect(charactersSliced(() => (set = parseEcbRates(xml)))).toBeLessThanOrEqual(xml.length);
          fastest[name] = Math.min(fastest[name], performance.now() - started);
          expect(set).toEqual(latest);
        }
      }
      // The times' ratio within one run, the fastest of each (linear: 10 to 15 here, quadratic: 100); docs/rates.md gives the times.
      expect(fastest.big / fastest.small).toBeLessThanOrEqual(40);
    }, 60_000);

    it('names the line of an error deep in the file', () => {
      const lines = small.xml.split('\n');
      lines[lines.length - 10] = lines[lines.length - 10]!.replace(/rate='[\d.]+'/, "rate='x'");
      expect(refusal(lines.join('\n'))).toMatch(new RegExp(`^line ${lines.length - 9}: the rate of`));
    });
  });
});
