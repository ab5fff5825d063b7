import { describe, expect, it } from '@jest/globals';
import { addDays, daysBetween } from '../../../src/kernel/dates.js';
import { AIRCRAFT, DEMO_SOURCES, FEATURED_AIRPORTS, demoAirports, demoLegs, generateDemoRecords } from '../../../local/demo/index.js';
import { REGISTRATION_PATTERNS } from '../../../local/demo/aircraft.js';
import { COUNTRY_CODES, isIanaTimeZone, validateImportRecords } from '../../../src/loading/import/index.js';
import { AMENITY_TYPES } from '../../../src/kernel/model.js';
import { MAX_BUCKET_SPAN_DAYS, toStorageItem } from '../../../src/kernel/leg-item.js';
import { parseIndexItem } from '../../../src/kernel/index-entry.js';
import { flightsOf } from '../../../src/flights/index.js';
import { registerLoadedSources } from '../../../local/demo/sources.js';
import { applyChange, staleSourceIds, UNREGISTERED, type Registry, type SourceHistoryEntry } from '../../../src/sources/registry.js';
import type { SourcesStore } from '../../../src/sources/index.js';

const TODAY = '2026-11-21';

/** ICAO nationality prefixes by country (ICAO Doc 7910), independent of the airport reference. */
const ICAO_PREFIX: Record<string, readonly string[]> = {
  US: ['K', 'PA', 'PH'], CA: ['C'], MX: ['MM'], SX: ['TN'], BL: ['TF'], BS: ['MY'], TC: ['MB'], AG: ['TA'],
  BB: ['TB'], JM: ['MK'], DO: ['MD'], PR: ['TJ'], KY: ['MW'], BM: ['TX'], CR: ['MR'], PA: ['MP'], VG: ['TU'],
  VI: ['TI'], BR: ['SB', 'SD', 'SN', 'SW'], AR: ['SA'], CL: ['SC'], CO: ['SK'], PE: ['SP'], EC: ['SE'], UY: ['SU'],
  GB: ['EG'], JE: ['EGJ'], GG: ['EGJ'], IM: ['EGN'], IE: ['EI'], FR: ['LF'], CH: ['LS'], IT: ['LI'], ES: ['LE', 'GC'],
  PT: ['LP'], DE: ['ED', 'ET'], AT: ['LO'], NL: ['EH'], BE: ['EB'], LU: ['EL'], DK: ['EK'], SE: ['ES'], NO: ['EN'],
  FI: ['EF'], IS: ['BI'], PL: ['EP'], CZ: ['LK'], HU: ['LH'], SK: ['LZ'], RO: ['LR'], BG: ['LB'], HR: ['LD'],
  SI: ['LJ'], ME: ['LY'], RS: ['LY'], LV: ['EV'], LT: ['EY'], EE: ['EE'], XK: ['BK'], GR: ['LG'], CY: ['LC'],
  MT: ['LM'], TR: ['LT'], AE: ['OM'], QA: ['OT'], BH: ['OB'], SA: ['OE'], OM: ['OO'], JO: ['OJ'], IL: ['LL'],
  LB: ['OL'], HK: ['VH'], MO: ['VM'], SG: ['WS'], JP: ['RJ', 'RO'], KR: ['RK'], TW: ['RC'], CN: ['Z'], TH: ['VT'],
  MY: ['WM', 'WB'], ID: ['WI', 'WA'], PH: ['RP'], VN: ['VV'], IN: ['VA', 'VE', 'VI', 'VO'], MV: ['VR'], LK: ['VC'],
  NP: ['VN'], KZ: ['UA'], AZ: ['UB'], GE: ['UG'], ZA: ['FA'], BW: ['FB'], NA: ['FY'], ZW: ['FV'], ZM: ['FL'],
  KE: ['HK'], TZ: ['HT'], ET: ['HA'], RW: ['HR'], UG: ['HU'], MU: ['FI'], SC: ['FS'], MG: ['FM'], NG: ['DN'],
  GH: ['DG'], CI: ['DI'], SN: ['GO'], MA: ['GM'], EG: ['HE'], TN: ['DT'], DZ: ['DA'], AU: ['Y'], NZ: ['NZ'],
  FJ: ['NF'], PF: ['NT'], NC: ['NW'],
};

const AIRPORTS = demoAirports(200);

/** ICAO regions by a code's first letter (ICAO Doc 7910), independent of the airport reference. */
const ICAO_REGION: Record<string, string> = {
  K: 'North America', C: 'North America', P: 'North America', M: 'North America', T: 'North America',
  S: 'South America', E: 'Europe', L: 'Europe', B: 'Europe', O: 'Asia', V: 'Asia', W: 'Asia', R: 'Asia', Z: 'Asia',
  U: 'Asia', F: 'Africa', H: 'Africa', G: 'Africa', D: 'Africa', Y: 'Oceania', N: 'Oceania', A: 'Oceania',
};

describe('demo airports (drawn from the airport reference)', () => {
  it('has at least 200 airports with unique, well-formed codes', () => {
    expect(AIRPORTS.length).toBe(200);
    expect(new Set(AIRPORTS.map((a) => a.icao)).size).toBe(AIRPORTS.length);
    expect(new Set(AIRPORTS.map((a) => a.iata)).size).toBe(AIRPORTS.length);
    for (const a of AIRPORTS) {
      expect(a.icao).toMatch(/^[A-Z]{4}$/);
      expect(a.iata).toMatch(/^[A-Z]{3}$/);
      expect(a.name.trim()).toBe(a.name);
      expect(a.city.length).toBeGreaterThan(1);
    }
  });

  it('gives each featured airport an ICAO code of its country, a real country code and a real IANA zone', () => {
    for (const a of AIRPORTS.slice(0, FEATURED_AIRPORTS)) {
      const prefixes = ICAO_PREFIX[a.countryCode];
      expect([a.icao, prefixes?.some((p) => a.icao.startsWith(p))]).toEqual([a.icao, true]);
    }
    for (const a of AIRPORTS) {
      expect(COUNTRY_CODES.has(a.countryCode)).toBe(true);
      expect([a.icao, isIanaTimeZone(a.timeZone)]).toEqual([a.icao, true]);
      expect(a.countryName.length).toBeGreaterThan(1);
    }
  });

  it('includes the well-known business-aviation airports with their real codes', () => {
    const byIcao = new Map(AIRPORTS.map((a) => [a.icao, a]));
    for (const [icao, iata, country] of [
      ['KTEB', 'TEB', 'US'], ['KVNY', 'VNY', 'US'], ['EGLF', 'FAB', 'GB'], ['LFPB', 'LBG', 'FR'], ['LFMN', 'NCE', 'FR'],
      ['LSGG', 'GVA', 'CH'], ['OMDB', 'DXB', 'AE'], ['OMDW', 'DWC', 'AE'], ['VHHH', 'HKG', 'HK'], ['WSSL', 'XSP', 'SG'],
      ['SBGR', 'GRU', 'BR'], ['YSSY', 'SYD', 'AU'], ['FALA', 'HLA', 'ZA'],
    ] as const) {
      expect(byIcao.get(icao)).toMatchObject({ iata, countryCode: country });
    }
    expect(AIRPORTS.slice(0, FEATURED_AIRPORTS).map((a) => a.icao)).toEqual(expect.arrayContaining(['KTEB', 'EGLF', 'FALA']));
  });
});

describe('aircraft catalogue', () => {
  it('has real categories, sane seats and years, and a registration pattern per operator country', () => {
    const categories = new Set(AIRCRAFT.map((a) => a.category));
    for (const c of ['Turboprop', 'Light Jet', 'Midsize Jet', 'Super Midsize Jet', 'Heavy Jet', 'Ultra Long Range']) {
      expect(categories.has(c as never)).toBe(true);
    }
    for (const a of AIRCRAFT) {
      expect(a.seats).toBeGreaterThanOrEqual(4);
      expect(a.seats).toBeLessThanOrEqual(19);
      expect(a.firstYear).toBeGreaterThanOrEqual(1990);
      expect(a.lastYear ?? 2100).toBeGreaterThanOrEqual(a.firstYear);
    }
    expect(Object.keys(REGISTRATION_PATTERNS).length).toBeGreaterThanOrEqual(10);
  });
});

describe('the default demo data set', () => {
  const records = generateDemoRecords({ today: TODAY });
  const result = validateImportRecords(records, { today: TODAY });
  const legs = result.legs;
  const catalogue = new Map(AIRPORTS.map((a) => [a.icao, a]));

  it('has at least 300 legs, every record valid in the import format', () => {
    expect(records.length).toBeGreaterThanOrEqual(300);
    expect(result.errors).toEqual([]);
    expect(legs).toHaveLength(records.length);
    expect(demoLegs(TODAY)).toEqual(legs);
  });

  it('uses at least 40 airports on at least 4 continents', () => {
    const used = new Set(legs.flatMap((l) => [l.depAirportIcao, l.arrAirportIcao]).filter((c): c is string => c !== null));
    expect(used.size).toBeGreaterThanOrEqual(40);
    const continents = new Set([...used].map((icao) => ICAO_REGION[icao[0]!]));
    expect(continents.size).toBeGreaterThanOrEqual(4);
  });

  it('writes records as feeds do: codes without a zone, and some airport fields left for the loader to fill', () => {
    expect(records.filter((r) => r.depTimezone === undefined).length / records.length).toBeGreaterThan(0.9);
    expect(records.some((r) => r.depAirportIcao === null && r.depAirportIata !== null)).toBe(true);
    expect(records.some((r) => r.depAirportName === null && r.depAirportIcao !== null)).toBe(true);
    expect(result.filled).toBeGreaterThan(records.length / 4);
    for (const leg of legs) {
      const airport = leg.depAirportIcao === null ? undefined : catalogue.get(leg.depAirportIcao);
      if (airport) expect([leg.id, leg.depTimezone, leg.depAirportName, leg.depAirportIata]).toEqual([leg.id, airport.timeZone, airport.name, airport.iata]);
    }
  });

  it('contains blocked, unlisted, expired, still-open, airport-less, departureAt and long-window legs', () => {
    expect(legs.some((l) => l.blocked)).toBe(true);
    expect(legs.some((l) => !l.listed)).toBe(true);
    expect(legs.some((l) => l.endDate < addDays(TODAY, -1))).toBe(true);
    expect(legs.some((l) => l.startDate < TODAY && l.endDate > addDays(TODAY, 1))).toBe(true);
    expect(legs.some((l) => l.depAirportIcao === null && l.depAirportIata === null && l.depCityName !== '')).toBe(true);
    expect(records.some((r) => r.departureAt !== undefined && r.startDate === undefined)).toBe(true);
    expect(legs.some((l) => daysBetween(l.startDate, l.endDate) > MAX_BUCKET_SPAN_DAYS)).toBe(true);
    expect(legs.filter((l) => daysBetween(l.startDate, l.endDate) <= 7).length / legs.length).toBeGreaterThan(0.8);
    expect(legs.some((l) => l.startDate > addDays(TODAY, 60))).toBe(true);
  });

  it('has nulls in nullable fields, several currencies and all six amenity types', () => {
    expect(legs.some((l) => l.price === null && l.currency === null)).toBe(true);
    expect(legs.some((l) => l.registration === null || l.airlineName === null || l.makeYear === null)).toBe(true);
    expect(records.some((r) => !('amenities' in r))).toBe(true);
    const currencies = new Set(legs.map((l) => l.currency).filter(Boolean));
    for (const c of ['USD', 'EUR', 'GBP', 'CHF', 'AED']) expect(currencies.has(c)).toBe(true);
    const types = new Set(legs.flatMap((l) => l.amenities.map((a) => a.amenityType)));
    expect([...types].sort()).toEqual([...AMENITY_TYPES].sort());
  });

  it('gives an airport-less leg the time zone of its city', () => {
    const byCity = new Map(demoAirports().map((a) => [`${a.city}|${a.countryCode}`, a.timeZone]));
    const cityOnly = legs.filter((l) => l.depAirportIcao === null);
    expect(cityOnly.length).toBeGreaterThan(0);
    for (const l of cityOnly) expect(l.depTimezone).toBe(byCity.get(`${l.depCityName}|${l.depCountryCode}`));
  });
});

describe('generation', () => {
  it('is deterministic for a seed, and another seed gives other legs', () => {
    expect(generateDemoRecords({ today: TODAY, seed: 7 })).toEqual(generateDemoRecords({ today: TODAY, seed: 7 }));
    expect(generateDemoRecords({ today: TODAY, seed: 8 })).not.toEqual(generateDemoRecords({ today: TODAY, seed: 7 }));
  });

  it('moves every date with today', () => {
    const later = '2027-02-14';
    const shift = daysBetween(TODAY, later);
    const a = demoLegs(TODAY);
    const b = demoLegs(later);
    expect(b).toHaveLength(a.length);
    a.forEach((leg, i) => {
      expect([leg.id, addDays(leg.startDate, shift), addDays(leg.endDate, shift)]).toEqual([b[i]!.id, b[i]!.startDate, b[i]!.endDate]);
    });
  });

  // How fast it generates is the benchmark's business (npm run bench reports the load), not a test's.
  it('makes 50,000 valid legs over 200 airports and 12 months', () => {
    const records = generateDemoRecords({ today: TODAY, count: 50_000, months: 12, airports: 200 });
    expect(records).toHaveLength(50_000);
    const result = validateImportRecords(records, { today: TODAY });
    expect(result.errors.slice(0, 3)).toEqual([]);
    const airports = new Set(result.legs.map((l) => l.depAirportIcao).filter(Boolean));
    expect(airports.size).toBeGreaterThan(190);
    expect([...airports].every((icao) => AIRPORTS.slice(0, 200).some((a) => a.icao === icao))).toBe(true);
    const last = result.legs.reduce((m, l) => (l.startDate > m ? l.startDate : m), TODAY);
    expect(daysBetween(TODAY, last)).toBeGreaterThan(300);
  });
});

describe('demo feeds', () => {
  it('spreads the demo legs over the demo sources, each with listed legs to sync', () => {
    const legs = demoLegs(TODAY);
    const bySource = new Map<string, number>();
    for (const leg of legs) if (leg.listed && !leg.blocked) bySource.set(leg.source!, (bySource.get(leg.source!) ?? 0) + 1);
    expect([...bySource.keys()].sort()).toEqual([...DEMO_SOURCES].sort());
    for (const n of bySource.values()) expect(n).toBeGreaterThan(legs.length / DEMO_SOURCES.length / 2);
  });

  it('offers flights twice and three times (an operator and brokers, one broker cheaper): npm start shows grouping', () => {
    const entries = demoLegs(TODAY).flatMap((leg) => {
      const entry = parseIndexItem(toStorageItem(leg));
      return entry === undefined ? [] : [entry];
    });
    const offers = flightsOf(entries, entries, (e) => ({ id: e.id, source: e.source, kind: 'unknown', verified: false, confirmedAt: Number.NaN, euros: null })).map((f) => f.offers);
    for (const n of [2, 3]) expect(offers.filter((o) => o.length === n).length).toBeGreaterThan(3);
    expect(offers.some((o) => o.length > 1 && new Set(o.map((e) => e.source)).size === o.length && o.some((e) => e.price < o[0]!.price))).toBe(true);
  });
});

describe('the demo registry (npm start, docs/sources.md)', () => {
  it('registers every demo source: both kinds, one verified, one stale an hour after npm start unless loaded again', async () => {
    const AT = Date.parse(`${TODAY}T09:00:00Z`);
    const sets: [string, SourceHistoryEntry['change'], number][] = [];
    const loads: [readonly string[], number][] = [];
    const store = {
      set: (id: string, change: SourceHistoryEntry['change'], run: { at: number }) => Promise.resolve(void sets.push([id, change, run.at])),
      recordLoads: (ids: readonly string[], at: number) => Promise.resolve(void loads.push([ids, at])),
    } as unknown as SourcesStore;
    await registerLoadedSources(store, demoLegs(TODAY), AT, true);
    expect(sets.map(([id]) => id).sort()).toEqual([...DEMO_SOURCES].sort());
    // The registry npm start leaves: its settings from the runs, every source loaded at npm start.
    const registry: Registry = {
      sources: new Map(sets.map(([id, change, at]) => [id, { settings: applyChange(UNREGISTERED, change, at), history: [] }])),
      lastLoadedAt: new Map(loads[0]![0].map((id) => [id, loads[0]![1]])),
      revision: 1,
    };
    const kinds = [...registry.sources.values()].map((s) => s.settings.kind);
    expect(new Set(kinds)).toEqual(new Set(['operator', 'broker']));
    expect([...registry.sources.values()].filter((s) => s.settings.verified)).toHaveLength(1);
    expect(staleSourceIds(registry, AT + 59 * 60_000)).toEqual([]);
    const staleAfterAnHour = staleSourceIds(registry, AT + 61 * 60_000);
    expect(staleAfterAnHour).toHaveLength(1);
    expect(registry.sources.get(staleAfterAnHour[0]!)!.settings.verified).toBe(false);
    // A file given to npm start (not the demo) registers nothing; its sources are stamped as loaded.
    sets.length = 0;
    await registerLoadedSources(store, demoLegs(TODAY).slice(0, 3), AT, false);
    expect(sets).toEqual([]);
  });
});

