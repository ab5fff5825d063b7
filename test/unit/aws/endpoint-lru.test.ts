import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { EndpointCache } from '@aws-sdk/endpoint-cache';
import EndpointLru from '../../../src/aws/endpoint-lru.js';
import { fcParams } from '../../support/fast-check.js';

/** What the SDK's EndpointCache uses of mnemonist's LRU. */
interface Lru {
  get(key: number): number | undefined;
  set(key: number, value: number): unknown;
  has(key: number): boolean;
  peek(key: number): number | undefined;
  clear(): void;
}
// mnemonist/lru-cache is CommonJS (`module.exports = LRUCache`).
const MnemonistLru = createRequire(import.meta.url)('mnemonist/lru-cache') as new (capacity: number) => Lru;

/**
 * The bundles alias `mnemonist/lru-cache` to src/aws/endpoint-lru.ts (lib/bundling.ts). Both LRUs
 * are driven with the same generated operations, as the SDK's EndpointCache uses them (get, set,
 * has, peek, clear), and must answer alike; then the SDK's EndpointCache itself runs on ours.
 */
type Op = { op: 'get' | 'has' | 'peek'; key: number } | { op: 'set'; key: number; value: number } | { op: 'clear' };
const key = fc.integer({ min: 0, max: 12 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constantFrom('get' as const, 'has' as const, 'peek' as const), key }),
  fc.record({ op: fc.constant('set' as const), key, value: fc.integer() }),
  fc.constant({ op: 'clear' as const }),
);

describe('EndpointLru (lru-cache) in place of mnemonist/lru-cache', () => {
  it('answers every get, has and peek as mnemonist does, evictions included', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(opArb, { maxLength: 80 }), (capacity, ops) => {
        const theirs = new MnemonistLru(capacity);
        const ours = new EndpointLru<number, number>(capacity);
        for (const o of ops) {
          if (o.op === 'set') {
            theirs.set(o.key, o.value);
            ours.set(o.key, o.value);
          } else if (o.op === 'clear') {
            theirs.clear();
            ours.clear();
          } else {
            expect([o, ours[o.op](o.key)]).toEqual([o, theirs[o.op](o.key)]);
          }
        }
      }),
      fcParams(2000),
    );
  });

  it('serves the SDK\'s EndpointCache (as the aliased bundle runs it)', () => {
    // The cache the SDK builds is mnemonist's here (not bundled); the same calls on one built on ours.
    const sdk = new EndpointCache(2);
    const cache = Object.assign(Object.create(EndpointCache.prototype) as EndpointCache, { cache: new EndpointLru(2) });
    for (const c of [sdk, cache]) {
      expect(c.getEndpoint('a')).toBeUndefined();
      c.set('a', [{ Address: 'a.example', CachePeriodInMinutes: 1 }]);
      c.set('b', [{ Address: 'b.example', CachePeriodInMinutes: 1 }]);
      c.set('c', [{ Address: 'c.example', CachePeriodInMinutes: 1 }]);
      expect([c.getEndpoint('a'), c.getEndpoint('b'), c.getEndpoint('c')]).toEqual([undefined, 'b.example', 'c.example']);
      c.delete('b');
      expect(c.has('b')).toBe(false);
    }
  });
});
