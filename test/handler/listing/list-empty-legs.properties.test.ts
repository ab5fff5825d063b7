import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { AIRCRAFT_CATEGORIES, type AircraftCategory } from '../../../src/kernel/aircraft-category.js';
import { MAX_BATCH_GET_CALLS, MAX_QUERY_CALLS } from '../../../src/listing/limits.js';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { queryParameters } from '../../../local/gateway.js';
import { lambdaContext, listEvent } from '../../support/events.js';
import { fcParams } from '../../support/fast-check.js';
import { REF_MAX_DAY, REF_MIN_DAY, refDate, refIsDate, refParse } from '../../support/gregorian.js';
import { storedLeg } from '../../support/legs.js';
import { buildListHandler } from '../../support/handlers.js';

/**
 * The list function over generated raw query strings (issue: hardening, part 2). Each case is a
 * generated fixture of legs served by a mocked DynamoDB that honours the Query key condition and
 * paging, and a raw query string with valid and invalid values of every parameter, repeated and
 * unknown parameters, unicode, percent-encoding (also malformed), huge numbers, long and empty
 * values. The string is split into parameters as API Gateway v2 does (the local gateway's
 * `queryParameters`), then the real handler runs: middy chain, authorizer verdict, parsing,
 * listing, envelope.
 *
 * The expectations come from an oracle written here from the rules of docs/api.md ("Query parameters",
 * "Filters"), fed with the *decoded* values the generator knows it encoded, and from a
 * plain reference listing over the same fixture (filter, sort, count, slice). FC_NUM_RUNS sets the
 * number of cases (default 2,000); a failure prints fast-check's seed and path (FC_SEED, FC_PATH
 * replay it).
 */

const ddb = mockClient(DynamoDBDocumentClient);
// The list function as functions/list-empty-legs/handler.ts builds it, on the default settings.
const { handler, repository } = buildListHandler();
const NOW = new Date('2026-11-21T12:00:00Z');
const TODAY = refParse('2026-11-21');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

beforeAll(() => {
  jest.useFakeTimers({ now: NOW, doNotFake: ['setTimeout', 'setImmediate', 'nextTick', 'queueMicrotask'] });
});
afterAll(() => {
  jest.useRealTimers();
});

// ---------------------------------------------------------------------------------------------
// Fixture

const CITIES = ['London', 'New York', 'São Paulo', 'Zürich', 'Paris', 'Nice', 'Geneva', 'Los Angeles', 'Köln'];
const AIRPORTS: [string | null, string | null][] = [
  ['EGLF', 'FAB'],
  ['KTEB', 'TEB'],
  ['LFPB', 'LBG'],
  ['LSGG', 'GVA'],
  ['EGLF', null],
  [null, 'NCE'],
  [null, null],
];
const SOURCES = ['default', 'acme-air', 'jets-4-u', 'b'];
const ZONES = ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/Los_Angeles', 'Asia/Kathmandu', 'Europe/London'];

/** Days (from today) where the rules have edges: expiry, month ends, the 28-day span, the horizon. */
const ANCHORS = [-30, -2, -1, 0, 1, 2, 9, 10, 28, 29, 30, 40, 41, 100, 365, 366];
/** A day offset near an anchor: dates of the fixture and of the queries meet often on the edges. */
const nearAnchor = fc.tuple(fc.constantFrom(...ANCHORS), fc.integer({ min: -3, max: 3 })).map(([a, d]) => a + d);

/**
 * A leg's category, and the text stored for it: the name as the vocabulary writes it or another
 * case or spacing of it (a leg loaded before the vocabulary), or, for none, null or a text that
 * names no category.
 */
const categoryArb: fc.Arbitrary<{ category: AircraftCategory | null; stored: string | null }> = fc.oneof(
  fc.constantFrom(...AIRCRAFT_CATEGORIES).chain((category) =>
    fc
      .constantFrom(category, category.toUpperCase(), category.toLowerCase().replace(/ /g, '-'), ` ${category.toLowerCase()} `)
      .map((stored) => ({ category, stored })),
  ),
  fc.constantFrom(null, 'Glider', 'Jet', 'Light Heavy Jet').map((stored) => ({ category: null, stored })),
);

const legArb = fc.record({
  start: fc.oneof(fc.integer({ min: -60, max: 366 }), nearAnchor.map((d) => Math.min(d, 366))),
  span: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 28 }), fc.integer({ min: 29, max: 400 })),
  dep: fc.constantFrom(...CITIES),
  arr: fc.constantFrom(...CITIES),
  depAirport: fc.constantFrom(...AIRPORTS),
  arrAirport: fc.constantFrom(...AIRPORTS),
  zone: fc.constantFrom(...ZONES),
  listed: fc.integer({ min: 0, max: 9 }).map((n) => n !== 0),
  blocked: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  seats: fc.option(fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 850 })), { nil: null, freq: 4 }),
  aircraft: categoryArb,
  // Written before the index entry carried seats and category (six fields): both unknown there.
  sixFields: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  // `default` is a leg loaded without a source (its entry has no tenth field).
  source: fc.constantFrom(...SOURCES),
});

/** A fixture leg: what is stored, its category as generated, and whether its index entry has the aircraft field. */
type FixtureLeg = StoredLeg & { category: AircraftCategory | null; sixFields: boolean };

const fixtureArb = fc.array(legArb, { maxLength: 30 }).map((raw) =>
  raw.map((r, i): FixtureLeg => ({
    ...storedLeg({
      id: `L${i}`,
      startDate: refDate(TODAY + r.start),
      endDate: refDate(TODAY + r.start + r.span),
      depCityName: r.dep,
      arrCityName: r.arr,
      depAirportIcao: r.depAirport[0],
      depAirportIata: r.depAirport[1],
      arrAirportIcao: r.arrAirport[0],
      arrAirportIata: r.arrAirport[1],
      depTimezone: r.zone,
      listed: r.listed,
      blocked: r.blocked,
      seatNum: r.seats,
      // A text the loader would map; the listing reads it as its category all the same.
      aircraftType: r.aircraft.stored as StoredLeg['aircraftType'],
      ...(r.source === 'default' ? {} : { source: r.source }),
    }),
    category: r.aircraft.category,
    sixFields: r.sixFields,
  })),
);

interface Calls {
  query: number;
  batchGet: number;
}

/** Serves Query (key condition on `lb` and the `ls` range, pages of `pageSize`) and BatchGet from `legs`. */
function serve(legs: FixtureLeg[], pageSize: number): Calls {
  const calls: Calls = { query: 0, batchGet: 0 };
  const items = legs.map(({ category: _category, sixFields, ...leg }) => {
    const item = toStorageItem(leg);
    if (sixFields && typeof item.lf === 'string') item.lf = item.lf.split('\u001f').slice(0, 6).join('\u001f');
    return item;
  });
  ddb.reset();
  // The change log's head: no entry yet.
  ddb.on(GetCommand).resolves({});
  ddb.on(QueryCommand).callsFake((input: { KeyConditionExpression: string; ExpressionAttributeValues: Record<string, string>; ExclusiveStartKey?: { ls: string } }) => {
    calls.query += 1;
    const v = input.ExpressionAttributeValues;
    const lo = input.KeyConditionExpression.includes(':lo') ? v[':lo']! : undefined;
    const hi = input.KeyConditionExpression.includes(':hi') ? v[':hi']! : undefined;
    const inBucket = items
      .filter((i) => i.lb === v[':b'])
      .filter((i) => (lo === undefined || (i.ls as string) >= lo) && (hi === undefined || (i.ls as string) <= hi))
      .sort((a, b) => ((a.ls as string) < (b.ls as string) ? -1 : 1))
      .filter((i) => !input.ExclusiveStartKey || (i.ls as string) > input.ExclusiveStartKey.ls);
    const page = inBucket.slice(0, pageSize);
    return {
      Items: page.map((i) => ({ id: i.id, ls: i.ls, lf: i.lf })),
      LastEvaluatedKey: inBucket.length > pageSize ? { id: page.at(-1)!.id, lb: v[':b'], ls: page.at(-1)!.ls } : undefined,
    };
  });
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => {
    calls.batchGet += 1;
    const [table, req] = Object.entries(input.RequestItems)[0]!;
    return { Responses: { [table]: req.Keys.map((k) => items.find((i) => i.id === k.id)).filter(Boolean) } };
  });
  return calls;
}

// ---------------------------------------------------------------------------------------------
// Raw query strings: every value is generated as tokens that know their raw and decoded forms.

interface Token {
  raw: string;
  decoded: string;
}

const utf8 = (c: string) => [...new TextEncoder().encode(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** One character, written raw when a URL may carry it so, or percent-encoded (space also as `+`). */
function charToken(c: string, style: number): Token {
  if (/^[A-Za-z0-9._~-]$/.test(c)) return { raw: style % 4 === 0 ? utf8(c) : c, decoded: c };
  if (c === ' ') return { raw: style % 2 === 0 ? '+' : '%20', decoded: c };
  if (c.codePointAt(0)! > 0x7f && style % 3 === 0) return { raw: c, decoded: c };
  return { raw: utf8(c), decoded: c };
}

/** Malformed percent-encoding: left as it is, or bytes that are not UTF-8 (U+FFFD each). */
const MALFORMED: Token[] = [
  { raw: '%zz', decoded: '%zz' },
  { raw: '%4g', decoded: '%4g' },
  { raw: '%%z', decoded: '%%z' },
  { raw: '%FF', decoded: '\uFFFD' },
  { raw: '%80', decoded: '\uFFFD' },
];

/** A decoded value, encoded in random ways, sometimes with malformed escapes spliced in. */
function encoded(value: fc.Arbitrary<string>): fc.Arbitrary<Token[]> {
  return value.chain((v) => {
    const chars = [...v];
    return fc
      .tuple(
        fc.array(fc.nat(11), { minLength: chars.length, maxLength: chars.length }),
        fc.oneof({ weight: 6, arbitrary: fc.constant([] as [number, Token][]) }, { weight: 1, arbitrary: fc.array(fc.tuple(fc.nat(chars.length), fc.constantFrom(...MALFORMED)), { maxLength: 2 }) }),
      )
      .map(([styles, bad]) => {
        // Node's URLSearchParams (which the local gateway uses) garbles a raw non-ASCII character
        // that follows a malformed escape in the same component; API Gateway receives URLs
        // percent-encoded anyway, so such a value is written with its non-ASCII encoded.
        const tokens: Token[] = chars.map((c, i) => charToken(c, bad.length > 0 && c.codePointAt(0)! > 0x7f ? 1 : styles[i]!));
        for (const [at, token] of bad) tokens.splice(at, 0, token);
        return tokens;
      });
  });
}

const digits = fc.stringMatching(/^[0-9]{1,40}$/);
const integerText = fc.oneof(
  fc.integer({ min: -5, max: 130 }).map(String),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.tuple(fc.constantFrom('', '+', '-'), digits).map(([s, d]) => s + d),
  fc.integer({ min: 0, max: 20 }).map((n) => `00${n}`),
);
const notInteger = fc.constantFrom('1.5', '1e3', ' 1', '1 ', 'abc', '0x10', '١٢', '+', '-', '--1', 'NaN', 'Infinity', '1,2', '２');
const dayText = (min: number, max: number) => fc.integer({ min, max }).map(refDate);
const dateText = fc.oneof(
  dayText(REF_MIN_DAY, REF_MAX_DAY),
  dayText(TODAY - 40, TODAY + 420),
  nearAnchor.map((d) => refDate(TODAY + d)),
  dayText(REF_MAX_DAY - 40, REF_MAX_DAY),
  dayText(REF_MIN_DAY, REF_MIN_DAY + 40),
  fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 })).map(
    ([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
  ),
  fc.constantFrom('2026-1-01', '20261201', '2026-12-01T00:00', '+010000-01-01', ' 2026-12-01', '2026-12-01 ', '2026/12/01', '０２０２６-12-01'),
);
const anyText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ minLength: 95, maxLength: 130, unit: fc.constantFrom('a', 'é', ' ', '𝄞', 'Z') }),
);
const whitespace = fc.constantFrom(' ', '\t', '\u00a0', '\u3000', '\ufeff', '\n', '\u2003');
const padded = (text: fc.Arbitrary<string>) =>
  fc.tuple(fc.array(whitespace, { maxLength: 2 }), text, fc.array(whitespace, { maxLength: 2 })).map(([a, t, b]) => a.join('') + t + b.join(''));
const caseMixed = (s: string) => fc.array(fc.boolean(), { minLength: s.length, maxLength: s.length }).map((up) => [...s].map((c, i) => (up[i] ? c.toUpperCase() : c.toLowerCase())).join(''));
// A city's accents taken away (`Sao`), or marks put on its letters (`Lo\u0301ndon`): the filters ignore both.
const MARKS = ['\u0301', '\u0308', '\u0323', '\u0327', '\u030c'];
const accentVariant = (s: string) =>
  fc.oneof(
    fc.constant(s),
    fc.constant([...s.normalize('NFD')].filter((c) => !MARKS.includes(c) && c !== '\u0303').join('')),
    fc.array(fc.constantFrom('', '', ...MARKS), { minLength: s.length, maxLength: s.length }).map((m) => [...s].map((c, i) => c + (m[i] ?? '')).join('')),
  );
const citySub = fc.constantFrom(...CITIES).chain((c) =>
  fc
    .tuple(fc.nat(c.length), fc.nat(c.length))
    .chain(([a, b]) => caseMixed(c.slice(Math.min(a, b), Math.max(a, b) + 1)))
    .chain(accentVariant),
);
const cityText = fc.oneof(padded(citySub), citySub, anyText, fc.constantFrom('', ' ', '   ', 'a', ' a ', 'é', '𝄞'));
/** A category as a caller may write it: any case, any separator between its words; or a feed's abbreviation (refused). */
const categoryText = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...AIRCRAFT_CATEGORIES).chain((c) => fc.tuple(caseMixed(c), fc.constantFrom(' ', '-', '', '_')).map(([cased, sep]) => cased.replace(/ /g, sep))) },
  { weight: 1, arbitrary: fc.constantFrom('VLJ', 'ulr', 'Super Mid') },
);
const categoryListText = fc
  .array(padded(categoryText), { minLength: 1, maxLength: 3 })
  .map((list) => list.join(','));
const codes = AIRPORTS.flatMap(([a, b]) => [a, b]).filter((c): c is string => c !== null);
const airportText = fc.oneof(
  fc.constantFrom(...codes).chain(caseMixed),
  fc.stringMatching(/^[A-Za-z]{2,5}$/),
  padded(fc.constantFrom(...codes)),
  fc.constantFrom('', ' ', 'K1EB', 'ÅLES', 'EGL-', 'ＥＧＬＦ', 'eglf'),
  anyText,
);

const VALUES: Record<string, fc.Arbitrary<string>> = {
  page: fc.oneof(integerText, notInteger, anyText),
  size: fc.oneof(integerText, notInteger, anyText),
  offsetDays: fc.oneof(fc.integer({ min: -3, max: 18 }).map(String), integerText, notInteger),
  depDate: fc.oneof({ weight: 4, arbitrary: dateText }, { weight: 1, arbitrary: anyText }),
  depCityName: cityText,
  arrCityName: cityText,
  depAirportCode: airportText,
  arrAirportCode: airportText,
  minSeats: fc.oneof(fc.integer({ min: -2, max: 25 }).map(String), fc.integer({ min: 840, max: 860 }).map(String), integerText, notInteger, anyText),
  source: fc.oneof(
    fc.subarray(SOURCES, { minLength: 1 }).map((list) => list.join(',')),
    fc.constantFrom('Acme-Air', 'acme air', 'acme-air,', ' b , default', 'x'.repeat(41), '-b'),
    anyText,
  ),
  aircraftType: fc.oneof(
    categoryListText,
    fc.tuple(categoryListText, fc.constantFrom('Glider', '', ' ', 'jet', 'Light Heavy Jet')).map(([a, b]) => `${a},${b}`),
    anyText,
  ),
};
const KNOWN = Object.keys(VALUES);

interface Pair {
  name: Token[];
  value: Token[] | null; // null: a name without `=`
}

const nameTokens = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...KNOWN).chain((n) => encoded(fc.constant(n))) },
  { weight: 1, arbitrary: encoded(fc.constantFrom('Page', 'SIZE', 'depdate', 'apiKey', 'foo', '__proto__', 'constructor', 'toString', 'page ', 'ünknown')) },
  { weight: 1, arbitrary: encoded(fc.string({ minLength: 1, maxLength: 8 })) },
);

const pairArb: fc.Arbitrary<Pair> = nameTokens.chain((name) => {
  const decodedName = name.map((t) => t.decoded).join('');
  const value = Object.hasOwn(VALUES, decodedName) ? VALUES[decodedName]! : anyText;
  return fc.oneof(
    { weight: 12, arbitrary: encoded(value).map((v) => ({ name, value: v })) },
    { weight: 1, arbitrary: fc.constant({ name, value: [] as Token[] }) },
    { weight: 1, arbitrary: fc.constant({ name, value: null }) },
  );
});

/** A well-formed query (most cases of the chaotic one are 400s): exercises the page, order and filters. */
const rarely = <T>(a: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: a });
const validPairs: fc.Arbitrary<Pair[]> = fc
  .record({
    // depDate + offsetDays lands near an edge as often as depDate does.
    window: rarely(fc.tuple(nearAnchor, fc.integer({ min: 0, max: 15 }), fc.boolean())),
    page: rarely(fc.integer({ min: -1, max: 4 }).map(String)),
    size: fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 150 })).map(String),
    depCityName: rarely(citySub.filter((c) => c.trim().length >= 2)),
    arrCityName: rarely(citySub.filter((c) => c.trim().length >= 2)),
    depAirportCode: rarely(fc.constantFrom(...codes).chain(caseMixed)),
    arrAirportCode: rarely(fc.constantFrom(...codes).chain(caseMixed)),
    minSeats: rarely(fc.integer({ min: 1, max: 20 }).map(String)),
    aircraftType: rarely(fc.array(categoryText, { minLength: 1, maxLength: 3 }).map((list) => list.join(','))),
    source: rarely(fc.subarray(SOURCES, { minLength: 1 }).map((list) => list.join(','))),
  })
  .chain(({ window, ...rest }) => {
    const entries: [string, string][] = Object.entries(rest).filter((e): e is [string, string] => e[1] !== undefined);
    if (window) {
      const [end, k, towardsEnd] = window;
      entries.push(['depDate', refDate(TODAY + (towardsEnd ? end - k : end + k))], ['offsetDays', String(k)]);
    }
    return fc.tuple(...entries.map(([name, value]) => fc.tuple(encoded(fc.constant(name)), encoded(fc.constant(value)))));
  })
  .map((pairs) => pairs.map(([name, value]) => ({ name, value })));

/** A query of up to 6 parameters; repeats come from drawing a name twice, or from an explicit copy. */
const queryArb = fc
  .tuple(fc.oneof(fc.array(pairArb, { maxLength: 6 }), validPairs), fc.boolean(), fc.integer({ min: 0, max: 3 }).map((n) => n === 0))
  .map(([pairs, repeat, emptyPair]) => {
    const all = repeat && pairs.length > 0 ? [...pairs, pairs[0]!] : pairs;
    const raw = all.map((p) => p.name.map((t) => t.raw).join('') + (p.value === null ? '' : '=' + p.value.map((t) => t.raw).join('')));
    if (emptyPair) raw.splice(Math.min(1, raw.length), 0, '');
    return { pairs: all, raw: raw.join('&') };
  });

// ---------------------------------------------------------------------------------------------
// The oracle and the reference listing, from the specification

/** ECMAScript white space and line terminators, as "trimming" removes them. */
const WS = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
const trim = (s: string) => s.replace(new RegExp(`^[${WS}]+|[${WS}]+$`, 'g'), '');
/**
 * "Ignoring case and accents": lower case, then each character without its combining marks
 * (`İ` lower-cases to `i` and a dot, `Ḷ` is `L` and a dot below, `ã` is `a` and a tilde).
 */
const bare = (s: string) =>
  [...s.toLowerCase()].map((c) => [...c.normalize('NFD')].filter((part) => !/^\p{M}$/u.test(part)).join('')).join('');
const INTEGER = /^[+-]?[0-9]+$/;
const clampBig = (text: string, min: bigint, max: bigint) => {
  const n = BigInt(text);
  return Number(n < min ? min : n > max ? max : n);
};

interface Expected {
  valid: boolean;
  page: number;
  size: number;
  depDate?: number;
  offsetDays: number;
  depCity?: string;
  arrCity?: string;
  depCode?: string;
  arrCode?: string;
  minSeats?: number;
  categories?: Set<AircraftCategory>;
  sources?: Set<string>;
}

/**
 * A category by the documented rule (docs/api.md, "Query parameters"): a name of the vocabulary
 * ignoring case, blanks, hyphens, underscores, dots, slashes and a plural `s`; nothing else.
 */
const spellingOf = (s: string) => s.normalize('NFKC').toLowerCase().replace(/[\s\-_./]/gu, '');
const CATEGORY_BY_SPELLING = new Map<string, AircraftCategory>(AIRCRAFT_CATEGORIES.map((c) => [spellingOf(c), c] as const));
const categoryNamed = (text: string) => {
  const key = spellingOf(text);
  return CATEGORY_BY_SPELLING.get(key) ?? (key.endsWith('s') ? CATEGORY_BY_SPELLING.get(key.slice(0, -1)) : undefined);
};

/** What the query means by the specification's rules, from the decoded pairs (repeats joined by commas, as API Gateway does). */
function oracle(pairs: Pair[]): Expected {
  const values = new Map<string, string[]>();
  for (const p of pairs) {
    const name = p.name.map((t) => t.decoded).join('');
    if (name === '') continue; // `&&` or `=x`: no parameter
    values.set(name, [...(values.get(name) ?? []), p.value === null ? '' : p.value.map((t) => t.decoded).join('')]);
  }
  const get = (name: string) => {
    const joined = values.get(name)?.join(',');
    return joined === '' ? undefined : joined; // given empty = absent
  };
  const e: Expected = { valid: true, page: 1, size: 20, offsetDays: 0 };
  const bad = () => {
    e.valid = false;
  };
  const page = get('page');
  if (page !== undefined) {
    if (INTEGER.test(page)) e.page = clampBig(page, 1n, BigInt(Number.MAX_SAFE_INTEGER));
    else bad();
  }
  const size = get('size');
  if (size !== undefined) {
    if (INTEGER.test(size)) e.size = clampBig(size, 1n, 100n);
    else bad();
  }
  /** Parameter `name`, when given, through `parse` (undefined: invalid) into `set`. */
  const take = <T>(name: string, parse: (value: string) => T | undefined, set: (value: T) => void) => {
    const v = get(name);
    if (v === undefined) return;
    const value = parse(v);
    if (value === undefined) bad();
    else set(value);
  };
  /** An integer literal from `min` to `max`. */
  const within = (min: bigint, max: bigint) => (v: string) => (INTEGER.test(v) && BigInt(v) >= min && BigInt(v) <= max ? Number(BigInt(v)) : undefined);
  take('offsetDays', within(0n, 15n), (n) => (e.offsetDays = n));
  const date = get('depDate');
  if (date !== undefined) {
    const shaped = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(date);
    if (shaped && refIsDate(Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10)))) e.depDate = refParse(date);
    else bad();
  }
  if (e.offsetDays !== 0 && date === undefined) bad();
  for (const [name, key] of [['depCityName', 'depCity'], ['arrCityName', 'arrCity']] as const) {
    const v = get(name);
    if (v === undefined || trim(v) === '') continue;
    const length = [...trim(v)].length;
    if (length < 2 || length > 100) bad();
    else e[key] = bare(trim(v));
  }
  for (const [name, key] of [['depAirportCode', 'depCode'], ['arrAirportCode', 'arrCode']] as const) {
    const v = get(name);
    if (v === undefined) continue;
    if (/^[A-Za-z]{3,4}$/.test(v)) e[key] = v.toLowerCase();
    else bad();
  }
  take('minSeats', within(1n, 850n), (n) => (e.minSeats = n));
  take(
    'aircraftType',
    (v) => {
      const named = v.split(',').map(categoryNamed);
      return named.every((c) => c !== undefined) ? new Set(named) : undefined;
    },
    (set) => (e.categories = set),
  );
  // Source ids (1-40 of a-z 0-9 -, not starting with -), each trimmed, at most 50.
  take(
    'source',
    (v) => {
      const ids = v.split(',').map(trim);
      return ids.length <= 50 && ids.every((id) => /^[a-z0-9][a-z0-9-]{0,39}$/.test(id)) ? new Set(ids) : undefined;
    },
    (set) => (e.sources = set),
  );
  return e;
}

const localToday = new Map(ZONES.map((z) => [z, refParse(new Intl.DateTimeFormat('en-CA', { timeZone: z }).format(NOW))]));

/** The page by the specification: listed, unblocked, not expired in its zone, in the window, filters; sorted, counted, sliced. */
function reference(legs: FixtureLeg[], e: Expected): { ids: string[]; total: number } {
  const code = (leg: StoredLeg, side: 'dep' | 'arr', c: string) =>
    (c.length === 4 ? (side === 'dep' ? leg.depAirportIcao : leg.arrAirportIcao) : side === 'dep' ? leg.depAirportIata : leg.arrAirportIata)?.toLowerCase() === c;
  const matching = legs.filter((leg) => {
    const start = refParse(leg.startDate);
    const end = refParse(leg.endDate);
    if (!leg.listed || leg.blocked) return false;
    if (end < localToday.get(leg.depTimezone)!) return false;
    if (e.depDate !== undefined) {
      const k = e.offsetDays;
      if (e.depDate + k < TODAY) return false;
      if (start > e.depDate + k || end < Math.max(e.depDate - k, TODAY)) return false;
    }
    if (e.depCity !== undefined && !bare(leg.depCityName).includes(e.depCity)) return false;
    if (e.arrCity !== undefined && !bare(leg.arrCityName).includes(e.arrCity)) return false;
    if (e.depCode !== undefined && !code(leg, 'dep', e.depCode)) return false;
    if (e.arrCode !== undefined && !code(leg, 'arr', e.arrCode)) return false;
    // An entry of six fields knows neither the seats nor the category.
    if (e.minSeats !== undefined && (leg.sixFields || leg.seatNum === null || leg.seatNum < e.minSeats)) return false;
    if (e.categories !== undefined && (leg.sixFields || leg.category === null || !e.categories.has(leg.category))) return false;
    // An entry of six fields has no source field: `default`.
    if (e.sources !== undefined && !e.sources.has(leg.sixFields ? 'default' : (leg.source ?? 'default'))) return false;
    return true;
  });
  matching.sort((a, b) => (a.startDate !== b.startDate ? (a.startDate < b.startDate ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const from = (e.page - 1) * e.size;
  return { ids: matching.slice(from, from + e.size).map((l) => l.id), total: matching.length };
}

// ---------------------------------------------------------------------------------------------

interface Body {
  code: string;
  message: string;
  data: {
    records: { id: string; startDate: string; endDate: string; depCityName: string; seatNum: number | null; aircraftType: string | null }[];
    total: number;
    page: number;
    size: number;
  } | null;
  traceId: string;
}

describe('list function over generated raw query strings', () => {
  it('answers 200 or 400 in the envelope; 400 exactly when the oracle says invalid; a 200 page as the reference listing', async () => {
    await fc.assert(
      fc.asyncProperty(fixtureArb, queryArb, fc.integer({ min: 1, max: 4 }), async (legs, query, pageSize) => {
        const calls = serve(legs, pageSize);
        repository.clear();
        const event = listEvent(undefined);
        event.rawQueryString = query.raw;
        const params = queryParameters(query.raw);
        if (params) event.queryStringParameters = params;
        const context = lambdaContext();
        const res = await handler(event, context);
        const body = JSON.parse(res.body ?? 'null') as Body;

        expect([200, 400]).toContain(res.statusCode);
        expect(Object.keys(body)).toEqual(['code', 'message', 'data', 'traceId']);
        expect(body.traceId).toMatch(UUID);
        expect(typeof body.message).toBe('string');
        // Bounded work per request.
        expect(calls.query).toBeLessThanOrEqual(MAX_QUERY_CALLS);
        expect(calls.batchGet).toBeLessThanOrEqual(MAX_BATCH_GET_CALLS);

        const e = oracle(query.pairs);
        if (!e.valid) {
          expect({ status: res.statusCode, code: body.code, data: body.data }).toEqual({ status: 400, code: 'INVALID_PARAMETER', data: null });
          expect(calls.query + calls.batchGet).toBe(0);
          return;
        }
        expect({ status: res.statusCode, code: body.code, message: body.message }).toEqual({ status: 200, code: 'OK', message: 'success' });
        const want = reference(legs, e);
        const data = body.data!;
        expect({ page: data.page, size: data.size, total: data.total }).toEqual({ page: e.page, size: e.size, total: want.total });
        expect(data.records.map((r) => r.id)).toEqual(want.ids);
        expect(data.records.length).toBeLessThanOrEqual(e.size);
        const byId = new Map(legs.map((l) => [l.id, l]));
        for (const r of data.records) {
          const leg = byId.get(r.id)!;
          // aircraftType: the category of the stored text, whatever its spelling; null for none.
          expect([r.startDate, r.endDate, r.depCityName, r.seatNum, r.aircraftType]).toEqual([leg.startDate, leg.endDate, leg.depCityName, leg.seatNum, leg.category]);
        }
      }),
      fcParams(2000),
    );
  });
});
