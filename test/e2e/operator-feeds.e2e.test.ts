import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callApi } from '../support/contract.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';
import { testNow } from '../support/clock.js';

/**
 * Feeds as charter operators write them (airport codes and local departure times, no IANA zone),
 * loaded the two ways an operator loads them (`npm start -- --data FILE` and `npm run legs:load --
 * FILE` into the running service), then read over HTTP. Departures are at local 00:30 and 23:30 in
 * zones west and east of UTC, Auckland, Honolulu, Kolkata's half hour, Kiritimati (UTC+14), and on
 * the next night a clock changes in New York and in London.
 *
 * The expectations are the feed's own words: a departure written `2026-12-01T23:30:00-05:00` departs
 * on 2026-12-01 there. The offsets written and the local "today" of each zone come from the
 * platform's time zone data (Intl), not from the service's code.
 */
const DAY = 86_400_000;
const now = testNow();
const utcDay = (offset: number) => new Date(now + offset * DAY).toISOString().slice(0, 10);

/** Each airport as a feed names it, and the zone the test reads its local clock in. */
const AIRPORTS = [
  { code: 'KTEB', city: 'New York', zone: 'America/New_York' },
  { code: 'VNY', city: 'Los Angeles', zone: 'America/Los_Angeles' },
  { code: 'NZAA', city: 'Auckland', zone: 'Pacific/Auckland' },
  { code: 'HNL', city: 'Honolulu', zone: 'Pacific/Honolulu' },
  { code: 'VIDP', city: 'Delhi', zone: 'Asia/Kolkata' },
  { code: 'RJTT', city: 'Tokyo', zone: 'Asia/Tokyo' },
  { code: 'EGLF', city: 'London', zone: 'Europe/London' },
  { code: 'PLCH', city: 'Kiritimati', zone: 'Pacific/Kiritimati' },
] as const;

const pad = (n: number) => String(n).padStart(2, '0');

/** The offset of `zone` at `instant`, as `+05:30` (Intl's longOffset). */
function offsetText(zone: string, instant: number): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(instant).find((p) => p.type === 'timeZoneName')!.value;
  return name === 'GMT' ? '+00:00' : name.slice(3);
}
const minutesOf = (offset: string) => (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));

/** `date` at local `hh:mm` in `zone`, written as an operator writes it: local time and its offset. */
function localDeparture(date: string, hh: number, mm: number, zone: string): string {
  const local = Date.parse(`${date}T${pad(hh)}:${pad(mm)}:00Z`);
  let offset = offsetText(zone, local);
  offset = offsetText(zone, local - minutesOf(offset) * 60_000);
  return `${date}T${pad(hh)}:${pad(mm)}:00${offset}`;
}

/** The local date in `zone` now. */
const localToday = (zone: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(testNow());
const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

/** The first day from `from` on which `zone`'s offset at 23:30 differs from its offset at 00:30: a clock change that night. */
function clockChangeDay(zone: string, from: string): string {
  for (let d = 0; d < 366; d++) {
    const date = addDays(from, d);
    if (localDeparture(date, 0, 30, zone).slice(-6) !== localDeparture(date, 23, 30, zone).slice(-6)) return date;
  }
  throw new Error(`no clock change in ${zone} within a year`);
}

interface Record_ {
  id: string;
  departureAt?: string;
  startDate?: string;
  endDate: string;
  depCityName: string;
  depAirportIcao?: string;
  depAirportIata?: string;
  arrCityName: string;
  arrAirportIcao: string;
}
const field = (code: string) => (code.length === 4 ? 'depAirportIcao' : 'depAirportIata');

/** Departures at local 00:30 and 23:30 ten days ahead, from every airport, and the two records. */
function departures(): Record_[] {
  const records: Record_[] = [];
  const date = utcDay(10);
  for (const a of AIRPORTS) {
    for (const [hh, mm] of [[0, 30], [23, 30]] as const) {
      records.push({ id: `DEP-${a.code}-${hh}`, departureAt: localDeparture(date, hh, mm, a.zone), endDate: addDays(date, 2), depCityName: a.city, [field(a.code)]: a.code, arrCityName: 'Nice', arrAirportIcao: 'LFMN' });
    }
  }
  // The night a clock changes in New York and in London: 00:30 before it, 23:30 after it.
  for (const [code, zone] of [['KTEB', 'America/New_York'], ['EGLF', 'Europe/London']] as const) {
    const night = clockChangeDay(zone, utcDay(3));
    for (const [hh, mm] of [[0, 30], [23, 30]] as const) {
      records.push({ id: `DST-${code}-${hh}`, departureAt: localDeparture(night, hh, mm, zone), endDate: addDays(night, 1), depCityName: 'Clock change', depAirportIcao: code, arrCityName: 'Nice', arrAirportIcao: 'LFMN' });
    }
  }
  // The records: read in UTC they were listed a day late (Teterboro) and a day early (Tokyo).
  records.push({ id: 'ISSUE-KTEB', departureAt: localDeparture(utcDay(7), 23, 30, 'America/New_York'), endDate: utcDay(9), depCityName: 'New York', depAirportIcao: 'KTEB', arrCityName: 'Nice', arrAirportIcao: 'LFMN' });
  records.push({ id: 'ISSUE-RJTT', departureAt: `${utcDay(7)}T07:30:00+09:00`, endDate: utcDay(9), depCityName: 'Tokyo', depAirportIcao: 'RJTT', arrCityName: 'Nice', arrAirportIcao: 'LFMN' });
  return records;
}

/** Per airport: a leg that ended yesterday there, and one that ends today there (dates local to the airport). */
function endings(): { records: Record_[]; todayThere: Map<string, string> } {
  const todayThere = new Map<string, string>();
  const records: Record_[] = [];
  for (const a of AIRPORTS) {
    const today = localToday(a.zone);
    todayThere.set(a.code, today);
    records.push({ id: `ENDED-${a.code}`, startDate: addDays(today, -2), endDate: addDays(today, -1), depCityName: a.city, [field(a.code)]: a.code, arrCityName: 'Nice', arrAirportIcao: 'LFMN' });
    records.push({ id: `ENDS-${a.code}`, startDate: addDays(today, -2), endDate: today, depCityName: a.city, [field(a.code)]: a.code, arrCityName: 'Nice', arrAirportIcao: 'LFMN' });
  }
  return { records, todayThere };
}

interface Page {
  code: string;
  data: { records: { id: string; startDate: string; endDate: string; depAirportIcao: string | null; depAirportIata: string | null; depCountryCode: string | null }[]; total: number };
}

let service: RunningService;
let dir: string;
const startFeed = departures();
const ends = endings();
let loadOutput = '';

/** Every listed leg: the pages in turn until they hold `total`. */
async function listAll(): Promise<Page['data']['records']> {
  const records: Page['data']['records'] = [];
  for (let page = 1; ; page++) {
    const { res, body } = await callApi<Page>(`${service.baseUrl}/open/v1/empty-legs?size=100&page=${page}`, { headers: { 'x-api-key': service.apiKey } });
    if (res.status !== 200) throw new Error(`page ${page}: ${res.status} ${JSON.stringify(body)}`);
    records.push(...body.data.records);
    if (body.data.records.length === 0 || records.length >= body.data.total) return records;
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'empty-legs-feeds-'));
  const startFile = join(dir, 'departures.json');
  writeFileSync(startFile, JSON.stringify(startFeed, null, 1));
  service = await startLocalServer({ dataFile: startFile });
  // The second feed, NDJSON, through the command into the running service's DynamoDB Local.
  const endsFile = join(dir, 'endings.ndjson');
  writeFileSync(endsFile, ends.records.map((r) => JSON.stringify(r)).join('\n'));
  const r = spawnSync('npm', ['run', '--silent', 'legs:load', '--', endsFile], {
    env: { ...process.env, DYNAMODB_PORT: String(service.dynamodbPort), DYNAMODB_ENDPOINT: '', LEGS_TABLE_NAME: service.legsTableName },
    encoding: 'utf8',
  });
  loadOutput = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`legs:load failed:\n${loadOutput}`);
}, 120_000);

afterAll(async () => service?.stop());

describe('feeds with airport codes and local times, loaded by npm start --data and legs:load', () => {
  it('loads every record, filling the airport fields the feeds left empty', () => {
    expect(service.output()).toContain(`Loaded ${startFeed.length} legs from`);
    expect(service.output()).toContain(`of ${startFeed.length} records from the airport reference`);
    expect(loadOutput).toContain(`Loaded ${ends.records.length} legs into`);
  });

  it('lists every departure on the local date at its departure airport, the date its feed wrote', async () => {
    const listed = new Map((await listAll()).map((r) => [r.id, r]));
    for (const record of startFeed) {
      const leg = listed.get(record.id);
      expect([record.id, leg?.startDate]).toEqual([record.id, record.departureAt!.slice(0, 10)]);
    }
    // Filled from the airport: the other code and the country.
    expect(listed.get('DEP-VNY-0')).toMatchObject({ depAirportIcao: 'KVNY', depAirportIata: 'VNY', depCountryCode: 'US' });
    expect(listed.get('DEP-PLCH-23')).toMatchObject({ depAirportIata: 'CXI', depCountryCode: 'KI' });
  });

  it('keeps a leg until its endDate has passed at its departure airport, and not a day longer', async () => {
    // The legs are listed as the listing's clock stands; a zone whose date moved while the test ran is not judged.
    // legs:load wrote to the table: the listing sees it through the change log, within seconds on a busy machine.
    let listed = new Set<string>();
    for (const until = performance.now() + 20_000; performance.now() < until; await new Promise((r) => setTimeout(r, 250))) {
      listed = new Set((await listAll()).map((r) => r.id));
      if (AIRPORTS.every((a) => listed.has(`ENDS-${a.code}`))) break;
    }
    let judged = 0;
    for (const a of AIRPORTS) {
      if (localToday(a.zone) !== ends.todayThere.get(a.code)) continue;
      judged++;
      expect([a.code, listed.has(`ENDS-${a.code}`), listed.has(`ENDED-${a.code}`)]).toEqual([a.code, true, false]);
    }
    expect(judged).toBeGreaterThanOrEqual(AIRPORTS.length - 1);
  });
});
