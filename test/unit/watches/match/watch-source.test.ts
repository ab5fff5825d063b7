import { describe, expect, it } from '@jest/globals';
import { AirportIndex } from '../../../../src/airports/reference.js';
import { MATCH_PROJECTION, matchableWatches } from '../../../../src/watches/match/watch-source.js';

/** The matcher's watches from the items it reads (src/watches/match/watch-source.ts): a watch's `include` read with it. */
const airports = () => new AirportIndex([]);
const item = (watchId: string, extra: Record<string, unknown> = {}) => ({ clientId: 'C1', watchId, filters: {}, status: 'active', ...extra });

describe('matchableWatches', () => {
  it("reads a watch's include into the blocks its deliveries carry; none when absent or empty; a malformed one leaves the watch out, counted", () => {
    const { watches, malformed } = matchableWatches(
      [item('W1', { include: 'departure,provenance' }), item('W2'), item('W3', { include: '' }), item('W4', { include: 'flight,flight' }), item('W5', { include: 7 })],
      airports,
    );
    expect(watches.map((w) => [w.id, w.include === undefined ? undefined : [...w.include].sort()])).toEqual([
      ['W1', ['departure', 'provenance']],
      ['W2', undefined],
      ['W3', undefined],
    ]);
    expect(malformed).toBe(2);
  });

  it('the reads take the include and group attributes (and still no secret or URL)', () => {
    expect(MATCH_PROJECTION.ProjectionExpression.split(', ').map((n) => (MATCH_PROJECTION.ExpressionAttributeNames as Record<string, string>)[n] ?? n)).toEqual([
      'clientId',
      'watchId',
      'filters',
      'status',
      'include',
      'group',
    ]);
  });
});
