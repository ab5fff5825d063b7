import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { listResponse, successResponse } from '../../src/http/envelope.js';

describe('listResponse', () => {
  it('is the response successResponse gives, text for text, for any page (property)', () => {
    const record = fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string())));
    const page = fc.record({ records: fc.array(record, { maxLength: 5 }), total: fc.nat(), page: fc.nat(), size: fc.nat() }, { requiredKeys: ['records'] });
    fc.assert(
      fc.property(page, fc.string(), (data, traceId) => {
        const want = successResponse(data, traceId);
        expect(listResponse(data, traceId)).toEqual(want);
        // Again with the same record objects: their texts now come from the cache.
        expect(listResponse(data, traceId)).toEqual(want);
        expect(JSON.parse(listResponse(data, traceId).body ?? '')).toEqual(JSON.parse(want.body ?? ''));
      }),
    );
  });
});
