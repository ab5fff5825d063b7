import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseEcbRates, RatesFileError } from '../../../src/rates/ecb-xml.js';

const daily = readFileSync(new URL('../../../src/rates/data/eurofxref-daily-2022-07-08.xml', import.meta.url), 'utf8');

/** A 90-day or history file in the ECB's layout: one `<Cube time>` a day, newest first. */
function history(days: Record<string, Record<string, string>>): string {
  const cubes = Object.entries(days)
    .map(([time, rates]) => `\t\t<Cube time="${time}">\n${Object.entries(rates).map(([c, r]) => `\t\t\t<Cube currency="${c}" rate="${r}"/>`).join('\n')}\n\t\t</Cube>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?><gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><gesmes:subject>Reference rates</gesmes:subject><gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender><Cube>\n${cubes}\n\t</Cube></gesmes:Envelope>`;
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
});
