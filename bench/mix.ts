import { airportReference, type Airport } from '../src/airports/reference.js';
import { continentOfCountry } from '../src/airports/continents.js';
import { addDays, dateInZone } from '../src/kernel/dates.js';
import type { StoredLeg } from '../src/kernel/leg-item.js';
import type { RateSet } from '../src/rates/index.js';
import { sourceOf, type RegisteredKind, type SourceFacts } from '../src/kernel/source.js';
import { windowOf, type Window } from './buckets.js';
import { expectedGrouped } from './flights-oracle.js';

/**
 * The benchmark's fixed query mix, and what each query must return, computed straight from the
 * data set (docs/api.md, "Date window" to "Order and paging") without the listing's code. Pure.
 */
export interface MixQuery {
  name: string;
  params: Record<string, string>;
}

/** The mix: `depDate` is two weeks ahead, the usual horizon of an empty-leg search. */
export function queryMix(todayUtc: string): MixQuery[] {
  const depDate = addDays(todayUtc, 14);
  return [
    { name: 'no filter, page 1', params: {} },
    { name: 'no filter, page 50', params: { page: '50' } },
    { name: 'depDate, offset 0', params: { depDate } },
    { name: 'depDate, offset 3', params: { depDate, offsetDays: '3' } },
    { name: 'depDate, offset 15', params: { depDate, offsetDays: '15' } },
    { name: 'city (depCityName=London)', params: { depCityName: 'London' } },
    { name: 'airport (depAirportCode=KTEB)', params: { depAirportCode: 'KTEB' } },
    { name: 'seats (minSeats=12)', params: { minSeats: '12' } },
    { name: 'category (aircraftType=Heavy Jet,Ultra Long Range)', params: { aircraftType: 'Heavy Jet,Ultra Long Range' } },
    { name: 'seats and category, depDate (minSeats=8, aircraftType=light jet)', params: { depDate, offsetDays: '3', minSeats: '8', aircraftType: 'light jet' } },
    { name: 'matches nothing (depCityName=Atlantis)', params: { depCityName: 'Atlantis' } },
    { name: 'size=100', params: { size: '100' } },
    { name: 'nearby (depNear=EGLL, 60 km)', params: { depNear: 'EGLL', depRadiusKm: '60' } },
    { name: 'nearby both ends (depNear=KTEB 100 km, arrNear=MIA 150 km), depDate offset 15', params: { depNear: 'KTEB', arrNear: 'MIA', arrRadiusKm: '150', depDate, offsetDays: '15' } },
    // Names starting `trip` or `area` are the searches of the trip and area targets (bench/targets.ts).
    { name: 'trip (tripFrom=LFPB, tripTo=LIRA), whole horizon', params: { tripFrom: 'LFPB', tripTo: 'LIRA' } },
    { name: 'trip (tripFrom=KTEB, tripTo=EGLF, maxDetourPct=40), sort=detour', params: { tripFrom: 'KTEB', tripTo: 'EGLF', maxDetourPct: '40', sort: 'detour' } },
    { name: 'trip (tripFrom=LFPB, tripTo=LIRA), depDate offset 3', params: { tripFrom: 'LFPB', tripTo: 'LIRA', depDate, offsetDays: '3' } },
    { name: 'area (depCountryCode=US,CA)', params: { depCountryCode: 'US,ca' } },
    { name: 'area (depContinent=EU, arrContinent=NA)', params: { depContinent: 'EU', arrContinent: 'na' } },
    // Names starting `price` are the searches of the price targets, each held against the mix's query
    // with the same parameters but the price ones (bench/targets.ts).
    { name: 'price (currency=USD), converted', params: { currency: 'USD' } },
    { name: 'price (currency=EUR, maxPrice=15000)', params: { currency: 'EUR', maxPrice: '15000' } },
    { name: 'price (currency=GBP, minPrice=5000, maxPrice=20000), depDate offset 3', params: { currency: 'GBP', minPrice: '5000', maxPrice: '20000', depDate, offsetDays: '3' } },
    { name: 'price (pricedOnly=true)', params: { pricedOnly: 'true' } },
    { name: 'price (currency=EUR, sort=price), whole horizon', params: { currency: 'EUR', sort: 'price' } },
    { name: 'price (currency=CHF, pricedOnly=true, sort=-price)', params: { currency: 'CHF', pricedOnly: 'true', sort: '-price' } },
    // Names starting `seller` are the searches of the seller targets, each held against the mix's query
    // with the same parameters but `source`, `kind` and `verifiedOnly` (bench/targets.ts).
    { name: 'seller (source=skyline)', params: { source: 'skyline' } },
    { name: 'seller (kind=operator, verifiedOnly=true)', params: { kind: 'operator', verifiedOnly: 'true' } },
    { name: 'seller (kind=broker), depDate offset 3', params: { kind: 'broker', depDate, offsetDays: '3' } },
    { name: 'seller (source=northjet,azur-charter), city', params: { source: 'northjet,azur-charter', depCityName: 'London' } },
    { name: 'seller (maxAgeHours=24)', params: { maxAgeHours: '24' } },
    // Names starting `include` are the searches of the include targets, each held against the mix's
    // query with the same parameters but `include` (bench/targets.ts).
    { name: 'include (include=provenance,departure)', params: { include: 'provenance,departure' } },
    { name: 'include (include=provenance,departure), size=100', params: { size: '100', include: 'provenance,departure' } },
    // Names starting `group` are the searches of the group targets, each held against the mix's query
    // with the same parameters but `group` (bench/targets.ts).
    { name: 'group (group=flight)', params: { group: 'flight' } },
    { name: 'group (group=flight), depDate offset 3', params: { group: 'flight', depDate, offsetDays: '3' } },
    { name: 'group (group=flight, currency=EUR, sort=price), whole horizon', params: { group: 'flight', currency: 'EUR', sort: 'price' } },
  ];
}

/** A leg of the data set with what was stored for it. */
export interface DataLeg {
  leg: StoredLeg;
  /** Its bucket in the index (`lb`), undefined when it is not in the index. */
  bucket: string | undefined;
  /** DynamoDB size of its stored item. */
  itemBytes: number;
}

export interface Expected {
  window: Window | null;
  total: number;
  /** Ids of the requested page, in order. */
  pageIds: string[];
  /** With `currency`: the page's converted amounts, in order (null: none). */
  pageAmounts?: (number | null)[];
  /** Buckets holding a leg the request must return (any page). */
  requiredBuckets: Set<string>;
}

/** Case and accents ignored (written apart from src/kernel/leg-item.ts fold, as a reference). */
const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g, '').toLowerCase();

function localToday(now: Date, zone: string, cache: Map<string, string>): string {
  let d = cache.get(zone);
  if (d === undefined) {
    try {
      d = dateInZone(now, zone);
    } catch {
      d = dateInZone(now, 'UTC');
    }
    cache.set(zone, d);
  }
  return d;
}

function airportMatches(code: string | undefined, icao: string | null, iata: string | null): boolean {
  if (code === undefined || code.trim() === '') return true;
  const c = code.trim().toUpperCase();
  const value = c.length === 4 ? icao : iata;
  return value !== null && value.toUpperCase() === c;
}

/** The mix writes categories by their names, in any case: a leg of one of them matches. */
function categoryMatches(list: string | undefined, category: string | null): boolean {
  if (list === undefined || list === '') return true;
  return category !== null && list.split(',').some((c) => c.trim().toLowerCase() === category.toLowerCase());
}

function seatsMatch(min: string | undefined, seats: number | null): boolean {
  return min === undefined || min === '' || (seats !== null && seats >= Number(min));
}

function cityMatches(needle: string | undefined, city: string): boolean {
  if (needle === undefined || needle.trim() === '') return true;
  return fold(city).includes(fold(needle.trim()));
}

/**
 * Great-circle km (haversine on the mean Earth radius), written apart from src/airports/geo.ts as a
 * reference; the airports' coordinates are the airport reference's data.
 */
function greatCircleKm(a: Airport, b: Airport): number {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b.latitude - a.latitude) * rad) / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(((b.longitude - a.longitude) * rad) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.sqrt(h));
}

/** docs/api.md, "Nearby": the leg's airport (its ICAO code's, else its IATA code's) within the radius of the centre. */
function nearMatches(centre: string | undefined, radius: string | undefined, icao: string | null, iata: string | null): boolean {
  if (centre === undefined) return true;
  const reference = airportReference();
  const c = reference.byCode(centre);
  const at = icao !== null ? reference.byCode(icao) : iata !== null ? reference.byCode(iata) : undefined;
  return c !== undefined && at !== undefined && greatCircleKm(c, at) <= Number(radius ?? 100);
}

/** docs/api.md, "Trips": the extra km of a leg that serves the trip, undefined when it does not serve it. */
function tripExtraKm(params: Readonly<Record<string, string>>, leg: StoredLeg): number | undefined {
  const reference = airportReference();
  const x = reference.byCode(params.tripFrom!);
  const y = reference.byCode(params.tripTo!);
  const a = leg.depAirportIcao !== null ? reference.byCode(leg.depAirportIcao) : leg.depAirportIata !== null ? reference.byCode(leg.depAirportIata) : undefined;
  const b = leg.arrAirportIcao !== null ? reference.byCode(leg.arrAirportIcao) : leg.arrAirportIata !== null ? reference.byCode(leg.arrAirportIata) : undefined;
  if (x === undefined || y === undefined || a === undefined || b === undefined) return undefined;
  const direct = greatCircleKm(a, b);
  const via = greatCircleKm(a, x) + greatCircleKm(x, y) + greatCircleKm(y, b);
  return via * 100 <= direct * (100 + Number(params.maxDetourPct ?? 25)) ? Math.round(Math.max(0, via - direct)) : undefined;
}

/** docs/api.md, "Areas": the country is one of the list (any case). */
function countryMatches(list: string | undefined, country: string | null): boolean {
  return list === undefined || (country !== null && list.split(',').some((c) => c.trim().toUpperCase() === country));
}

/** docs/api.md, "Areas": the continent of the airport's country, else of the leg's own country. */
function continentMatches(list: string | undefined, icao: string | null, iata: string | null, country: string | null): boolean {
  if (list === undefined) return true;
  const airport = icao !== null ? airportReference().byCode(icao) : iata !== null ? airportReference().byCode(iata) : undefined;
  const code = airport?.countryCode ?? country;
  const continent = code === null ? undefined : continentOfCountry(code);
  return continent !== undefined && list.split(',').some((c) => c.trim().toUpperCase() === continent);
}

/** A decimal text or number as an integer over a power of ten. */
function decimalOf(value: string | number): { n: bigint; scale: number } {
  const [whole, fraction = ''] = (typeof value === 'number' ? value.toFixed(6) : value).split('.');
  return { n: BigInt(whole! + fraction), scale: fraction.length };
}

/**
 * docs/api.md, "Prices": `price` in `from` converted to `to` through the euro, rounded half up to
 * cents, in integers (written apart from src/rates/conversion.ts, as a reference); null when the leg
 * has no price or the rates do not know a currency.
 */
function convertedAmount(price: number | null, from: string | null, to: string, rates: RateSet): number | null {
  const rate = (c: string) => (c === 'EUR' ? '1' : Object.hasOwn(rates.rates, c) ? rates.rates[c] : undefined);
  const fromRate = from === null ? undefined : rate(from);
  const toRate = rate(to);
  if (price === null || fromRate === undefined || toRate === undefined) return null;
  const [a, f, t] = [decimalOf(price), decimalOf(fromRate), decimalOf(toRate)];
  // (a / f) x t x 100 = a.n t.n 10^f.scale 100 / (f.n 10^(a.scale + t.scale)), rounded half up.
  const numerator = a.n * t.n * 10n ** BigInt(f.scale) * 100n;
  const denominator = f.n * 10n ** BigInt(a.scale + t.scale);
  return Number((2n * numerator + denominator) / (2n * denominator)) / 100;
}

/**
 * The converted amounts of each leg object, by rates and currency: the traffic simulation's oracle
 * asks again for the same legs after every write.
 */
const converted = new WeakMap<StoredLeg, Map<string, number | null>>();

function amountIn(leg: StoredLeg, currency: string, rates: RateSet): number | null {
  let byCurrency = converted.get(leg);
  if (byCurrency === undefined) converted.set(leg, (byCurrency = new Map<string, number | null>()));
  const key = `${rates.date} ${currency}`;
  let amount = byCurrency.get(key);
  if (amount === undefined) byCurrency.set(key, (amount = convertedAmount(leg.price, leg.currency, currency, rates)));
  return amount;
}

/** docs/api.md, "Prices": `pricedOnly`, `minPrice` and `maxPrice` on a leg's (converted) price. */
function priceMatches(params: Readonly<Record<string, string>>, leg: StoredLeg, amount: number | null): boolean {
  if (params.pricedOnly === 'true' && (params.currency === undefined ? leg.price === null : amount === null)) return false;
  if (params.minPrice !== undefined && (amount === null || amount < Number(params.minPrice))) return false;
  if (params.maxPrice !== undefined && (amount === null || amount > Number(params.maxPrice))) return false;
  return true;
}

/** The sources the benchmark registers (bench/run.ts): the demo's, of both kinds, one verified, none stale. */
export const BENCH_REGISTRY: Readonly<Record<string, { kind: RegisteredKind; verified?: true }>> = {
  skyline: { kind: 'operator', verified: true },
  northjet: { kind: 'broker' },
  'azur-charter': { kind: 'operator' },
};

/** The registry's facts as the listing reads them (the traffic simulation's containers take them as they are). */
export const BENCH_FACTS: SourceFacts = {
  revision: 1,
  kinds: new Map(Object.entries(BENCH_REGISTRY).map(([id, s]) => [id, s.kind])),
  verified: new Set(Object.entries(BENCH_REGISTRY).flatMap(([id, s]) => (s.verified ? [id] : []))),
};

/** docs/api.md, "Sellers": `source`, `kind` and `verifiedOnly` on the leg's source and the registry, `maxAgeHours` on its confirmed instant (whole seconds) at `now`. */
function sellerMatches(params: Readonly<Record<string, string>>, leg: StoredLeg, now: Date): boolean {
  if (params.maxAgeHours !== undefined) {
    const confirmed = leg.confirmedAt === undefined ? undefined : Math.floor(leg.confirmedAt / 1000) * 1000;
    if (confirmed === undefined || now.getTime() - confirmed > Number(params.maxAgeHours) * 3_600_000) return false;
  }
  const source = sourceOf(leg);
  const registered = BENCH_REGISTRY[source];
  if (params.source !== undefined && !params.source.split(',').includes(source)) return false;
  if (params.kind !== undefined && (registered === undefined || !params.kind.split(',').includes(registered.kind))) return false;
  return params.verifiedOnly !== 'true' || registered?.verified === true;
}

/**
 * What the listing must answer to `params` at `now` over `data` (params as the mix writes them);
 * `rates`: the rates in force, for the price searches.
 */
export function expectedListing(data: readonly DataLeg[], params: Readonly<Record<string, string>>, now: Date, rates?: RateSet): Expected {
  const today = now.toISOString().slice(0, 10);
  const window = windowOf(params.depDate, Number(params.offsetDays ?? 0), today);
  const page = Math.max(1, Number(params.page ?? 1));
  const size = Math.min(100, Math.max(1, Number(params.size ?? 20)));
  const requiredBuckets = new Set<string>();
  if (window === null) return { window, total: 0, pageIds: [], requiredBuckets };
  const zones = new Map<string, string>();
  const amountOf = (leg: StoredLeg): number | null =>
    params.currency === undefined || rates === undefined ? null : amountIn(leg, params.currency, rates);
  const hits = data.filter(({ leg, bucket }) => {
    if (!leg.listed || leg.blocked || bucket === undefined) return false;
    if (leg.endDate < localToday(now, leg.depTimezone, zones)) return false;
    if (leg.endDate < window.from || (window.to !== undefined && leg.startDate > window.to)) return false;
    if (!cityMatches(params.depCityName, leg.depCityName) || !cityMatches(params.arrCityName, leg.arrCityName)) return false;
    if (!airportMatches(params.depAirportCode, leg.depAirportIcao, leg.depAirportIata)) return false;
    if (!airportMatches(params.arrAirportCode, leg.arrAirportIcao, leg.arrAirportIata)) return false;
    if (!nearMatches(params.depNear, params.depRadiusKm, leg.depAirportIcao, leg.depAirportIata)) return false;
    if (!nearMatches(params.arrNear, params.arrRadiusKm, leg.arrAirportIcao, leg.arrAirportIata)) return false;
    if (!seatsMatch(params.minSeats, leg.seatNum) || !categoryMatches(params.aircraftType, leg.aircraftType)) return false;
    if (!countryMatches(params.depCountryCode, leg.depCountryCode) || !countryMatches(params.arrCountryCode, leg.arrCountryCode)) return false;
    if (!continentMatches(params.depContinent, leg.depAirportIcao, leg.depAirportIata, leg.depCountryCode)) return false;
    if (!continentMatches(params.arrContinent, leg.arrAirportIcao, leg.arrAirportIata, leg.arrCountryCode)) return false;
    if (params.tripFrom !== undefined && tripExtraKm(params, leg) === undefined) return false;
    if (!sellerMatches(params, leg, now)) return false;
    return priceMatches(params, leg, amountOf(leg));
  });
  for (const h of hits) requiredBuckets.add(h.bucket!);
  if (params.group === 'flight') {
    const listed = data.filter(({ leg, bucket }) => leg.listed && !leg.blocked && bucket !== undefined && leg.endDate >= localToday(now, leg.depTimezone, zones)).map((d) => d.leg);
    const eurosOf = (leg: StoredLeg) => (rates === undefined ? (leg.currency === 'EUR' ? leg.price : null) : amountIn(leg, 'EUR', rates));
    const g = expectedGrouped({ hits: hits.map((h) => h.leg), listed, sort: params.sort, page, size, amountOf, eurosOf, registry: BENCH_REGISTRY });
    return { window, total: g.total, pageIds: g.pageIds, requiredBuckets, ...(params.currency === undefined ? {} : { pageAmounts: g.pageAmounts }) };
  }
  const ordered = hits
    .map((h) => h.leg)
    .sort((a, b) => (a.startDate === b.startDate ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.startDate < b.startDate ? -1 : 1));
  if (params.sort === 'detour') {
    const extra = new Map(ordered.map((l) => [l, tripExtraKm(params, l)!]));
    // A stable sort: ties stay in startDate, id order.
    ordered.sort((a, b) => extra.get(a)! - extra.get(b)!);
  }
  if (params.sort === 'price' || params.sort === '-price') {
    // Stable too: legs without an amount last, ties in startDate, id order.
    const sign = params.sort === 'price' ? 1 : -1;
    const keys = new Map(ordered.map((l) => [l, amountOf(l) === null ? Number.POSITIVE_INFINITY : sign * amountOf(l)!]));
    ordered.sort((a, b) => (keys.get(a) === keys.get(b) ? 0 : keys.get(a)! < keys.get(b)! ? -1 : 1));
  }
  const start = (page - 1) * size;
  const pageLegs = ordered.slice(start, start + size);
  return {
    window,
    total: ordered.length,
    pageIds: pageLegs.map((l) => l.id),
    requiredBuckets,
    ...(params.currency === undefined ? {} : { pageAmounts: pageLegs.map(amountOf) }),
  };
}
