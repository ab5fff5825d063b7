import { describe, expect, it } from '@jest/globals';
import { MCP_MAX_WARM_CPU_RATIO, mcpTargets, type McpTargetInputs } from '../../../bench/targets.js';
import { mcpSearchEvent, pageOf, searchArguments } from '../../../bench/mcp.js';

const query = (over: Partial<McpTargetInputs> = {}): McpTargetInputs => ({
  name: 'no filter, page 1',
  restReadUnits: [3.5, 3.5, 3.5],
  mcpReadUnits: [3.5, 3.5, 3.5],
  restCpuMs: 0.2,
  mcpCpuMs: 0.24,
  ...over,
});

const [units, cpu] = [0, 1];

describe('mcpTargets', () => {
  it('holds when read units are equal and the warm CPU ratio is within 1.3', () => {
    const targets = mcpTargets([query(), query({ name: 'price', restCpuMs: 0.3, mcpCpuMs: 0.39 })]);
    expect(targets).toHaveLength(2);
    expect(targets[units]).toMatchObject({ value: 0, limit: 0, unit: 'queries', holds: true });
    expect(targets[cpu]).toMatchObject({ value: 1.3, limit: MCP_MAX_WARM_CPU_RATIO, unit: 'ratio', holds: true });
    expect(targets.every((t) => t.notJudged === undefined)).toBe(true);
  });

  it('fails a warm CPU ratio above 1.3, on the worst query', () => {
    const targets = mcpTargets([query(), query({ name: 'filtered', restCpuMs: 0.2, mcpCpuMs: 0.262 })]);
    expect(targets[cpu]).toMatchObject({ value: 1.31, holds: false });
  });

  it('counts the queries whose read units differ, however little', () => {
    const targets = mcpTargets([query(), query({ name: 'a', mcpReadUnits: [3.5, 4, 3.5] }), query({ name: 'b', mcpReadUnits: [3.5, 3.5] })]);
    expect(targets[units]).toMatchObject({ value: 2, holds: false });
    expect(targets[units]!.name).toContain('(of 3)');
  });

  it('gives nothing when the comparison did not run', () => {
    expect(mcpTargets([])).toEqual([]);
  });
});

describe('the MCP request of the comparison', () => {
  it('gives the listing\'s texts as the search tool\'s JSON arguments', () => {
    expect(searchArguments({ minSeats: '8', aircraftType: 'light jet', pricedOnly: 'true', currency: 'USD' })).toEqual({ minSeats: 8, aircraftType: 'light jet', pricedOnly: true, currency: 'USD' });
  });

  it('is a POST of one tools/call of search_empty_legs', () => {
    const event = mcpSearchEvent({ size: '100' }, { ok: true });
    expect(event.requestContext.http.method).toBe('POST');
    expect(event.rawPath).toBe('/open/v1/mcp');
    expect(JSON.parse(event.body!)).toMatchObject({ method: 'tools/call', params: { name: 'search_empty_legs', arguments: { size: 100 } } });
  });

  it('reads the same page from the REST envelope and the tool\'s structured content', () => {
    const page = { records: [{ id: 'A' }, { id: 'B' }], total: 2, page: 1, size: 20 };
    expect(pageOf(JSON.stringify({ data: page, traceId: 't' }), false)).toBe('2 A,B');
    expect(pageOf(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { structuredContent: page, content: [] } }), true)).toBe('2 A,B');
    expect(pageOf(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { isError: true, content: [] } }), true)).toMatch(/^no structured content/);
  });
});
