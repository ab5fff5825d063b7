import { describe, expect, it } from '@jest/globals';
import { BATCH_LEGS_PER_MINUTE, DEFAULT_TRAFFIC, readKindOf, trafficOptions } from '../../../bench/traffic.js';

describe('the traffic simulation options', () => {
  it('carry the same writes per request whatever the span: the batch is the span\'s share of 500 a minute', () => {
    expect(trafficOptions(60)).toEqual(DEFAULT_TRAFFIC);
    expect(trafficOptions(60).batchLegs).toBe(BATCH_LEGS_PER_MINUTE);
    expect(trafficOptions(30).batchLegs).toBe(250);
    expect(trafficOptions(90).batchLegs).toBe(750);
    expect(trafficOptions(1).batchLegs).toBe(8);
    for (const seconds of [12, 30, 60, 780]) {
      const o = trafficOptions(seconds);
      const legsPerRequest = (o.batchLegs + o.writesPerSecond * seconds) / (o.requestsPerSecond * seconds);
      expect(legsPerRequest).toBeCloseTo((BATCH_LEGS_PER_MINUTE / 60 + 1) / 50, 2);
    }
  });
});

describe('what a call of the listing reads', () => {
  const call = (over: Partial<Parameters<typeof readKindOf>[0]>) => readKindOf({ operation: 'BatchGetItem', getId: undefined, snapshotBuckets: [], changeLogItems: false, ...over });
  it('tells the log\'s head, its pages, the snapshot, the index and the records apart', () => {
    expect(call({ operation: 'GetItem', getId: '~changes' })).toBe('head');
    expect(call({ operation: 'GetItem', getId: '~change#12' })).toBe('changes');
    expect(call({ changeLogItems: true })).toBe('changes');
    expect(call({ operation: 'GetItem', getId: '~snapshot' })).toBe('snapshot');
    expect(call({ snapshotBuckets: ['2026-12'] })).toBe('snapshot');
    expect(call({ operation: 'Query' })).toBe('index');
    expect(call({})).toBe('records');
  });
});
