import { describe, expect, it } from '@jest/globals';
import { cachedRegistry } from '../../../src/sources/cached.js';
import type { Registry } from '../../../src/sources/registry.js';

/** A container's registry (src/sources/cached.ts): read again, the same revision is the same object (what is kept by it stays). */
describe('cachedRegistry', () => {
  it('answers the object of the first read while the revision read is the same, and the new one when it moves', async () => {
    let revision = 3;
    const read = (): Promise<Registry> => Promise.resolve({ sources: new Map(), lastLoadedAt: new Map([['acme', revision]]), revision });
    const registry = cachedRegistry({ read }, { clock: () => 0, intervalMs: 0 });
    const settled = () => new Promise((resolve) => setImmediate(resolve));
    const first = await registry();
    // Each call starts a read (interval 0) whose answer a later call sees: a new object of the same revision.
    await registry();
    await settled();
    expect(await registry()).toBe(first);
    revision = 4;
    // (The read the last call started, of revision 3, is done first.)
    for (let i = 0; i < 2; i++) {
      await registry();
      await settled();
    }
    const moved = await registry();
    expect(moved).not.toBe(first);
    expect(moved.revision).toBe(4);
    expect(moved.lastLoadedAt.get('acme')).toBe(4);
  });
});
