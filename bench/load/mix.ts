import { addDays } from '../../src/kernel/dates.js';
import { mulberry32 } from '../../local/demo/generator.js';

/**
 * The load test's request mix (`npm run load`), and what each request must get, derived from the
 * contract (the code table, the key rules, the parameter rules) without the service's code. Pure:
 * a request is a key kind and a query kind, drawn by weight with a seeded generator.
 */
export const LIST_PATH = '/open/v1/empty-legs';

export type KeyKind =
  | 'valid'
  | 'successor'
  | 'rotated'
  | 'missing'
  | 'garbage'
  | 'badChecksum'
  | 'neverIssued'
  | 'revoked'
  | 'expired'
  | 'wrongEnvironment'
  | 'noScope';

/** The keys of one run: clear keys made for it (see bench/load/keys.ts), and made-up ones. */
export interface LoadKeys {
  /** Active, with `empty_leg:read`. */
  valid: string;
  /** The new key of a rotation. */
  successor: string;
  /** The old key of that rotation, in its grace period. */
  rotated: string;
  revoked: string;
  /** Rotated with no grace: expired. */
  expired: string;
  /** A key of the other environment. */
  wrongEnvironment: string;
  /** Active, without `empty_leg:read`. */
  noScope: string;
  /** Well-formed keys with valid checksums that were never issued. */
  neverIssued: readonly string[];
  /** Keys of the right environment whose checksum is wrong. */
  badChecksum: readonly string[];
}

export interface Expectation {
  status: number;
  code: string;
  /** The response must carry `X-API-Key-Deprecated: true` (and must not when false). */
  deprecated: boolean;
  /** For a 200 with `page`/`size` given: the values in effect after clamping. */
  page?: number;
  size?: number;
}

interface KeyRule {
  kind: KeyKind;
  weight: number;
  /** The refusal on the listing route, or undefined when the key may read. */
  refusal?: { status: number; code: string };
  deprecated?: boolean;
}

/** Mostly good keys, as in real traffic; every kind of bad key shows up. */
export const KEY_RULES: readonly KeyRule[] = [
  { kind: 'valid', weight: 55 },
  { kind: 'successor', weight: 8 },
  { kind: 'rotated', weight: 10, deprecated: true },
  { kind: 'missing', weight: 4, refusal: { status: 401, code: 'API_KEY_MISSING' } },
  { kind: 'garbage', weight: 3, refusal: { status: 401, code: 'API_KEY_INVALID' } },
  { kind: 'badChecksum', weight: 3, refusal: { status: 401, code: 'API_KEY_INVALID' } },
  { kind: 'neverIssued', weight: 4, refusal: { status: 401, code: 'API_KEY_INVALID' } },
  { kind: 'revoked', weight: 3, refusal: { status: 401, code: 'API_KEY_INVALID' } },
  { kind: 'expired', weight: 3, refusal: { status: 401, code: 'API_KEY_EXPIRED' } },
  { kind: 'wrongEnvironment', weight: 3, refusal: { status: 401, code: 'API_KEY_WRONG_ENVIRONMENT' } },
  { kind: 'noScope', weight: 4, refusal: { status: 403, code: 'PERMISSION_DENIED' } },
];

export interface QueryRule {
  name: string;
  weight: number;
  path: string;
  /** What a key that may read gets; a route that does not exist is `NOT_FOUND` for any key. */
  outcome: 'ok' | 'invalid' | 'notFound';
  page?: number;
  size?: number;
}

/** Realistic searches (dates ahead of today, filters, paging), bad parameters, unknown routes. */
export function queryRules(todayUtc: string): QueryRule[] {
  const ahead = (days: number) => addDays(todayUtc, days);
  const q = (query: string) => `${LIST_PATH}${query}`;
  return [
    { name: 'no filter', weight: 12, path: q(''), outcome: 'ok', page: 1, size: 20 },
    { name: 'size=5', weight: 8, path: q('?size=5'), outcome: 'ok', page: 1, size: 5 },
    { name: 'page 2 of 10', weight: 6, path: q('?page=2&size=10'), outcome: 'ok', page: 2, size: 10 },
    { name: 'depDate +14, offset 3', weight: 10, path: q(`?depDate=${ahead(14)}&offsetDays=3`), outcome: 'ok' },
    { name: 'depDate +30, offset 15, size 50', weight: 6, path: q(`?depDate=${ahead(30)}&offsetDays=15&size=50`), outcome: 'ok', size: 50 },
    { name: 'depDate today', weight: 4, path: q(`?depDate=${todayUtc}`), outcome: 'ok' },
    { name: 'depDate in the past', weight: 2, path: q(`?depDate=${addDays(todayUtc, -40)}&offsetDays=2`), outcome: 'ok' },
    { name: 'city', weight: 6, path: q('?depCityName=new%20york'), outcome: 'ok' },
    { name: 'city and date', weight: 4, path: q(`?arrCityName=London&depDate=${ahead(7)}&offsetDays=7`), outcome: 'ok' },
    { name: 'airport ICAO', weight: 5, path: q('?depAirportCode=KTEB'), outcome: 'ok' },
    { name: 'airport IATA, size 100', weight: 3, path: q('?arrAirportCode=nce&size=100'), outcome: 'ok', size: 100 },
    { name: 'clamped page and size', weight: 3, path: q('?page=-4&size=100000'), outcome: 'ok', page: 1, size: 100 },
    { name: 'page past the end', weight: 2, path: q('?page=9999'), outcome: 'ok', page: 9999 },
    { name: 'blank city (ignored)', weight: 2, path: q('?depCityName=%20%20&size=3'), outcome: 'ok', size: 3 },
    { name: 'page not an integer', weight: 3, path: q('?page=two'), outcome: 'invalid' },
    { name: 'size not an integer', weight: 2, path: q('?size=1.5'), outcome: 'invalid' },
    { name: 'offsetDays over 15', weight: 2, path: q(`?depDate=${ahead(3)}&offsetDays=16`), outcome: 'invalid' },
    { name: 'offsetDays without depDate', weight: 2, path: q('?offsetDays=3'), outcome: 'invalid' },
    { name: 'not a calendar date', weight: 2, path: q('?depDate=2026-02-30'), outcome: 'invalid' },
    { name: 'city of one letter', weight: 1, path: q('?depCityName=x'), outcome: 'invalid' },
    { name: 'airport code with a digit', weight: 1, path: q('?depAirportCode=AB1'), outcome: 'invalid' },
    { name: 'unknown route', weight: 2, path: '/open/v1/empty-leg', outcome: 'notFound' },
    { name: 'unknown version', weight: 1, path: '/open/v2/empty-legs?size=5', outcome: 'notFound' },
  ];
}

/** What a request with a key of `keyKind` on `query` must get. */
export function expectationFor(keyKind: KeyKind, query: QueryRule): Expectation {
  // The $default route has no authorizer: any key, or none, gets NOT_FOUND.
  if (query.outcome === 'notFound') return { status: 404, code: 'NOT_FOUND', deprecated: false };
  const rule = KEY_RULES.find((r) => r.kind === keyKind);
  if (!rule) throw new Error(`unknown key kind ${keyKind}`);
  if (rule.refusal) return { ...rule.refusal, deprecated: false };
  const deprecated = rule.deprecated === true;
  if (query.outcome === 'invalid') return { status: 400, code: 'INVALID_PARAMETER', deprecated };
  return {
    status: 200,
    code: 'OK',
    deprecated,
    ...(query.page !== undefined ? { page: query.page } : {}),
    ...(query.size !== undefined ? { size: query.size } : {}),
  };
}

/** A small seeded generator (the demo data's mulberry32): the same seed gives the same sequence of requests. */
export const seededRandom = mulberry32;

export function pickWeighted<T extends { weight: number }>(items: readonly T[], random: () => number): T {
  const total = items.reduce((sum, i) => sum + i.weight, 0);
  let x = random() * total;
  for (const item of items) {
    x -= item.weight;
    if (x < 0) return item;
  }
  return items[items.length - 1]!;
}

/** The `X-API-Key` value to send for `kind`, or undefined for none. */
export function keyFor(kind: KeyKind, keys: LoadKeys, random: () => number): string | undefined {
  const one = (list: readonly string[]) => list[Math.floor(random() * list.length)]!;
  switch (kind) {
    case 'missing':
      return undefined;
    case 'garbage':
      return one(['let-me-in', 'Bearer token', 'elk_test_', 'elk_live_short', '0000']);
    case 'badChecksum':
      return one(keys.badChecksum);
    case 'neverIssued':
      return one(keys.neverIssued);
    default:
      return keys[kind];
  }
}

export interface PlannedRequest {
  keyKind: KeyKind;
  query: QueryRule;
  key: string | undefined;
  expect: Expectation;
}

export function planRequest(keys: LoadKeys, queries: readonly QueryRule[], random: () => number): PlannedRequest {
  const keyKind = pickWeighted(KEY_RULES, random).kind;
  const query = pickWeighted(queries, random);
  return { keyKind, query, key: keyFor(keyKind, keys, random), expect: expectationFor(keyKind, query) };
}
