import { LRUCache } from 'lru-cache';

/**
 * Stands in for `mnemonist/lru-cache` in the Lambda bundles (lib/bundling.ts aliases it). The
 * DynamoDB client's endpoint discovery keeps its (never used: discovery is off) endpoint cache in a
 * mnemonist LRU, which brought mnemonist and obliterator into the list bundle (about 7 kB of its
 * 300 kB limit) beside lru-cache, which the functions already use. This is lru-cache with
 * mnemonist's constructor; get, set, has, peek and clear behave alike
 * (test/unit/aws/endpoint-lru.test.ts drives both with the same operations).
 */
export default class EndpointLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>> extends LRUCache<K, V> {
  constructor(capacity: number) {
    super({ max: capacity });
  }
}
