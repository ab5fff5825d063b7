// @dateIndependent: one fixed instant for the legs and the handlers' clock.
import { describe, expect, it } from '@jest/globals';
import { compareMcp, type McpQueryFigures } from '../../../bench/mcp.js';
import { MCP_MAX_WARM_CPU_RATIO, mcpTargets } from '../../../bench/targets.js';
import { verifiedContext } from '../../../src/auth/verdict.js';
import { lambdaContext, listEvent, TEST_KEY } from '../../support/events.js';
import { listingHandlers, memoryListing, type Handler } from '../../support/memory-listing.js';

/**
 * The MCP gate of `npm run bench -- --check` (bench/mcp.ts, bench/targets.ts): both of its targets are
 * judged (a count and a ratio of two figures of the same run, no absolute figure), they hold for the
 * real handlers' read units, and each fails when the MCP side is made to do more on purpose, in the
 * target's own unit: one more REST listing per tools/call (a ratio near 2), one more bucket read.
 */
const NOW = Date.parse('2026-11-27T12:00:00Z');
const clock = () => NOW;
const QUERIES: { name: string; params: Record<string, string> }[] = [
  { name: 'no filter, page 1', params: {} },
  { name: 'seats and category', params: { minSeats: '8', aircraftType: 'Light Jet' } },
];

function setUp() {
  const listing = memoryListing(1_000, '2026-11-27');
  return { listing, ...listingHandlers(listing, clock) };
}

async function compare(listing: ReturnType<typeof memoryListing>, list: Handler, mcp: Handler): Promise<{ figures: McpQueryFigures[]; errors: string[] }> {
  const errors: string[] = [];
  const figures = await compareMcp({
    queries: QUERIES,
    list,
    mcp,
    authorize: () => Promise.resolve(verifiedContext(TEST_KEY)),
    clear: () => undefined,
    readUnits: () => {
      const r = listing.reads();
      return r.buckets + r.legs / 2;
    },
    context: () => lambdaContext(),
    collectYoung: () => undefined,
    coldRounds: 2,
    warmUpRounds: 30,
    runs: 21,
    fail: (m) => errors.push(m),
  });
  return { figures, errors };
}

const targetsOf = (figures: McpQueryFigures[]) =>
  mcpTargets(figures.map((f) => ({ name: f.name, restReadUnits: f.rest.readUnits, mcpReadUnits: f.mcp.readUnits, restCpuMs: f.rest.cpuMs.p50, mcpCpuMs: f.mcp.cpuMs.p50 })));

describe('the MCP gate', () => {
  it('judges a count and a ratio of the same run, and the real handlers read the same units and answer the same pages', async () => {
    const { listing, list, mcp } = setUp();
    const { figures, errors } = await compare(listing, list, mcp);
    expect(errors).toEqual([]);
    const [units, cpu] = targetsOf(figures);
    expect(units).toMatchObject({ unit: 'queries', value: 0, limit: 0, holds: true });
    expect(cpu).toMatchObject({ unit: 'ratio', limit: MCP_MAX_WARM_CPU_RATIO });
    expect([units!.notJudged, cpu!.notJudged]).toEqual([undefined, undefined]);
    expect(figures.every((f) => f.rest.readUnits.reduce((a, b) => a + b, 0) > 0)).toBe(true);
  }, 120_000);

  it('fails when each tools/call does a REST listing more', async () => {
    const { listing, list, mcp } = setUp();
    const slower: Handler = async (event, context) => {
      await list(listEvent({}), context);
      return mcp(event, context);
    };
    // Its read units differ too (the extra listing reads): the count fails beside the ratio.
    const [units, cpu] = targetsOf((await compare(listing, list, slower)).figures);
    expect(cpu!.value).toBeGreaterThan(MCP_MAX_WARM_CPU_RATIO);
    expect(cpu!.holds).toBe(false);
    expect(units!.holds).toBe(false);
  }, 120_000);

  it('fails the count when a tools/call reads one bucket more, whatever its CPU', async () => {
    const { listing, list, mcp } = setUp();
    const reading: Handler = async (event, context) => {
      await listing.repository.queryBucket('long');
      return mcp(event, context);
    };
    const [units] = targetsOf((await compare(listing, list, reading)).figures);
    expect(units).toMatchObject({ value: QUERIES.length, holds: false });
  }, 120_000);
});
