import { dateInZone, utcDate } from '../src/kernel/dates.js';
import type { RateSet } from '../src/rates/index.js';
import { expectedListing, type DataLeg, type Expected, type MixQuery } from './mix.js';

/**
 * The benchmark's expected answers at the instant each request is served: the functions and the
 * oracle read one clock (docs/performance.md, "Running the benchmark"). A request is checked
 * against the answer at the instants read just before and just after it, so a run across a zone's
 * midnight (legs leaving the listing mid-run, as they should) gives no error.
 */

/** The listing of a response as the checks read it. */
interface Page {
  total: number;
  records: { id: string; convertedPrice?: { amount: number } | null }[];
}

export interface ServedChecker {
  /** The expected answer of query `index` of the mix at `instant` (epoch ms). */
  expectedAt(index: number, instant: number): Expected;
  /** The UTC date at `instant`. */
  todayAt(instant: number): string;
  /**
   * What is wrong with a response to query `index` served between the instants `from` and `to`
   * (read from the functions' clock before and after it): nothing when it is the answer at either.
   */
  check(index: number, status: number, body: string, from: number, to: number): string[];
}

/**
 * The expected answers change only when the UTC date or a departure zone's date does (expiry):
 * they are computed once per such state, and a body once found right for a state is not parsed again.
 */
export function createServedChecker(data: readonly DataLeg[], mix: readonly MixQuery[], rates?: RateSet): ServedChecker {
  const zones = [...new Set(data.map((d) => d.leg.depTimezone))].sort();
  // Every zone's offset is whole minutes: one state per minute at most.
  const stateOfMinute = new Map<number, string>();
  const stateAt = (instant: number): string => {
    const minute = Math.floor(instant / 60_000);
    let state = stateOfMinute.get(minute);
    if (state === undefined) {
      const at = new Date(minute * 60_000);
      state = [utcDate(at), ...zones.map((z) => zoneDate(at, z))].join(' ');
      stateOfMinute.set(minute, state);
    }
    return state;
  };
  const expected = new Map<string, Expected>();
  const expectedAt = (index: number, instant: number): Expected => {
    const key = `${index} ${stateAt(instant)}`;
    let want = expected.get(key);
    if (want === undefined) expected.set(key, (want = expectedListing(data, mix[index]!.params, new Date(instant), rates)));
    return want;
  };
  /** Per query and state: the last body (without its trace id) found right. */
  const checked = new Map<string, string>();

  const differences = (q: MixQuery, page: Page, want: Expected, instant: number): string[] => {
    const out: string[] = [];
    const at = new Date(instant).toISOString();
    if (page.total !== want.total) out.push(`${q.name}: total ${page.total}, expected ${want.total} (at ${at})`);
    if (page.records.map((r) => r.id).join(',') !== want.pageIds.join(',')) out.push(`${q.name}: the page's records differ from the expected ones (at ${at})`);
    const amounts = page.records.map((r) => (r.convertedPrice === undefined ? undefined : (r.convertedPrice?.amount ?? null)));
    if (want.pageAmounts !== undefined && amounts.join(',') !== want.pageAmounts.join(',')) out.push(`${q.name}: the page's converted prices differ from the expected ones (at ${at})`);
    return out;
  };

  return {
    expectedAt,
    todayAt: (instant) => utcDate(new Date(instant)),
    check(index, status, body, from, to) {
      const q = mix[index]!;
      if (status !== 200) return [`${q.name}: HTTP ${status} ${body.slice(0, 200)}`];
      const instants = stateAt(from) === stateAt(to) ? [from] : [from, to];
      // A body equal to one already found right at this state (all but its trace id) needs no second
      // parse: the warm runs then make no garbage of their own for the next request to collect.
      const part = body.slice(0, body.lastIndexOf(',"traceId":'));
      if (instants.some((at) => checked.get(`${index} ${stateAt(at)}`) === part)) return [];
      const page = (JSON.parse(body) as { data: Page }).data;
      let first: string[] = [];
      for (const at of instants) {
        const wrong = differences(q, page, expectedAt(index, at), at);
        if (wrong.length === 0) {
          checked.set(`${index} ${stateAt(at)}`, part);
          return [];
        }
        if (at === from) first = wrong;
      }
      return first;
    },
  };
}

/** The date in `zone`, UTC's for a zone this runtime does not know (as the oracle reads it, bench/mix.ts). */
function zoneDate(at: Date, zone: string): string {
  try {
    return dateInZone(at, zone);
  } catch {
    return utcDate(at);
  }
}
