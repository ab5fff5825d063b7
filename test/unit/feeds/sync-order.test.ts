import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { compareSyncFiles, type SyncFile } from '../../../src/feeds/sync-order.js';
import { fcParams } from '../../support/fast-check.js';

/** The order of a source's sync files (src/feeds/sync-order.ts): stored time, then key, then S3 sequencer. */

const file = (patch: Partial<SyncFile> = {}): SyncFile => ({ file: 'incoming/sync/a.ndjson', versionId: 'v1', storedAt: Date.parse('2026-11-25T10:00:00Z'), sequencer: null, ...patch });

describe('compareSyncFiles', () => {
  it('orders by the time S3 stored the file first, whatever the keys', () => {
    expect(compareSyncFiles(file({ file: 'incoming/sync/z.ndjson' }), file({ storedAt: file().storedAt + 1000 }))).toBeLessThan(0);
  });

  it('within one time, by key, then by the sequencer (the shorter right-padded with zeros)', () => {
    expect(compareSyncFiles(file(), file({ file: 'incoming/sync/b.ndjson' }))).toBeLessThan(0);
    expect(compareSyncFiles(file({ sequencer: '0055AED6DCD90281E5' }), file({ sequencer: '0055AED6DCD90281E6' }))).toBeLessThan(0);
    // '0056' padded is '005600..', after '0055FF..'.
    expect(compareSyncFiles(file({ sequencer: '0056' }), file({ sequencer: '0055FFFFFF' }))).toBeGreaterThan(0);
    expect(compareSyncFiles(file({ sequencer: '0055' }), file({ sequencer: '005500' }))).toBe(0);
    expect(compareSyncFiles(file({ sequencer: null }), file({ sequencer: '01' }))).toBe(0);
  });

  it('is a total preorder: antisymmetric and transitive over generated files', () => {
    const arb = fc.record({
      file: fc.constantFrom('incoming/sync/a', 'incoming/sync/b', 'incoming/sync/a b'),
      versionId: fc.constantFrom('v1', 'v2', null),
      storedAt: fc.integer({ min: 0, max: 3 }).map((s) => s * 1000),
      sequencer: fc.option(fc.stringMatching(/^[0-9A-F]{1,6}$/), { nil: null }),
    });
    fc.assert(
      fc.property(arb, arb, arb, (a, b, c) => {
        expect(Math.sign(compareSyncFiles(a, b))).toBe(-Math.sign(compareSyncFiles(b, a)) || 0);
        if (compareSyncFiles(a, b) < 0 && compareSyncFiles(b, c) < 0 && a.sequencer !== null && b.sequencer !== null && c.sequencer !== null) {
          expect(compareSyncFiles(a, c)).toBeLessThan(0);
        }
      }),
      fcParams(300),
    );
  });
});
