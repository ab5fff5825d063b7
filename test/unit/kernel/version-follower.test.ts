import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { createVersionFollower, type Confirmed } from '../../../src/kernel/version-follower.js';
import { fcParams } from '../../support/fast-check.js';

/** A read the test settles by hand. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function harness(intervalMs: number) {
  let now = 1_000_000;
  const reads: ReturnType<typeof deferred<number>>[] = [];
  const moves: { value: number; previous: Confirmed<number> | undefined; at: number }[] = [];
  const follower = createVersionFollower<number>({
    clock: () => now,
    intervalMs,
    read: () => {
      const d = deferred<number>();
      reads.push(d);
      return d.promise;
    },
    onMove: (value, previous, at) => void moves.push({ value, previous, at }),
  });
  return { follower, reads, moves, advance: (ms: number) => (now += ms), now: () => now };
}

describe('createVersionFollower', () => {
  it('reads at most once per interval, one read at a time', async () => {
    const h = harness(1_000);
    const first = h.follower.poll();
    expect(first).toBeDefined();
    expect(h.follower.poll()).toBeUndefined();
    expect(h.follower.inFlight()).toBe(first);
    h.reads[0]!.resolve(3);
    await first;
    expect(h.follower.inFlight()).toBeUndefined();
    expect(h.follower.confirmed()).toEqual({ value: 3, at: 1_000_000 });
    h.advance(999);
    expect(h.follower.poll()).toBeUndefined();
    h.advance(1);
    expect(h.follower.poll()).toBeDefined();
    expect(h.reads).toHaveLength(2);
  });

  it('calls onMove for the first version and each change, not for the same one', async () => {
    const h = harness(10);
    for (const v of [1, 1, 2, 2, 1]) {
      const read = h.follower.poll()!;
      h.reads.at(-1)!.resolve(v);
      await read;
      h.advance(10);
    }
    expect(h.moves.map((m) => [m.value, m.previous?.value])).toEqual([
      [1, undefined],
      [2, 1],
      [1, 2],
    ]);
  });

  it('a failed read keeps the confirmed version, rejects, and allows the next read at once', async () => {
    const h = harness(1_000);
    const ok = h.follower.poll()!;
    h.reads[0]!.resolve(5);
    await ok;
    h.advance(1_000);
    const failed = h.follower.poll()!;
    h.reads[1]!.reject(new Error('throttled'));
    await expect(failed).rejects.toThrow('throttled');
    expect(h.follower.confirmed()).toEqual({ value: 5, at: 1_000_000 });
    expect(h.follower.poll()).toBeDefined();
  });

  it('reset forgets the version: a read in flight then counts for nothing, the next one is a move', async () => {
    const h = harness(1_000);
    const stale = h.follower.poll()!;
    h.follower.reset();
    expect(h.follower.inFlight()).toBeUndefined();
    const fresh = h.follower.poll()!;
    h.reads[0]!.resolve(7);
    await stale;
    expect(h.follower.confirmed()).toBeUndefined();
    h.reads[1]!.resolve(7);
    await fresh;
    expect(h.moves.map((m) => m.value)).toEqual([7]);
    expect(h.follower.confirmed()?.value).toBe(7);
  });

  it('a reset while onMove runs: that read confirms nothing', async () => {
    const gate = deferred<void>();
    const follower = createVersionFollower({ clock: () => 0, intervalMs: 1_000, read: () => Promise.resolve(4), onMove: () => gate.promise });
    const read = follower.poll()!;
    await Promise.resolve();
    await Promise.resolve();
    follower.reset();
    gate.resolve();
    await read;
    expect(follower.confirmed()).toBeUndefined();
  });

  it('an onMove that throws fails the read and confirms nothing', async () => {
    let now = 0;
    const follower = createVersionFollower({
      clock: () => now,
      intervalMs: 100,
      read: () => Promise.resolve(1),
      onMove: () => Promise.reject(new Error('slots gone')),
    });
    await expect(follower.poll()).rejects.toThrow('slots gone');
    expect(follower.confirmed()).toBeUndefined();
    now += 1;
    expect(follower.poll()).toBeDefined();
    await follower.inFlight()?.catch(() => undefined);
  });

  it('with intervalMs 0, every poll reads, whatever the clock does', async () => {
    let now = 5_000;
    let reads = 0;
    const follower = createVersionFollower({ clock: () => now, intervalMs: 0, read: () => Promise.resolve(++reads) });
    await follower.poll();
    now -= 1_000;
    await follower.poll();
    await follower.poll();
    expect(reads).toBe(3);
    expect(follower.confirmed()).toEqual({ value: 3, at: 4_000 });
  });

  it('compares versions with `same` (an item whose version is one of its fields)', async () => {
    const moved: number[] = [];
    let now = 0;
    const items = [{ v: 1, recent: 'a' }, { v: 1, recent: 'b' }, { v: 2, recent: 'c' }];
    const follower = createVersionFollower({
      clock: () => now,
      intervalMs: 1,
      read: () => Promise.resolve(items.shift()!),
      same: (a, b) => a.v === b.v,
      onMove: (item) => void moved.push(item.v),
    });
    for (let i = 0; i < 3; i++) {
      await follower.poll();
      now += 1;
    }
    expect(moved).toEqual([1, 2]);
    expect(follower.confirmed()?.value).toEqual({ v: 2, recent: 'c' });
  });
});

type Step = { kind: 'advance'; ms: number } | { kind: 'poll' } | { kind: 'settle'; value: number; ok: boolean } | { kind: 'reset' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 3_000 }) }),
  fc.constant<Step>({ kind: 'poll' }),
  fc.record({ kind: fc.constant('settle' as const), value: fc.integer({ min: 0, max: 3 }), ok: fc.boolean() }),
  fc.constant<Step>({ kind: 'reset' }),
);

describe('createVersionFollower against a model (property)', () => {
  it('one read at a time, none before the interval unless the last failed, onMove exactly when the version moved', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2_000 }), fc.array(stepArb, { maxLength: 40 }), async (intervalMs, steps) => {
        const h = harness(intervalMs);
        // The model: when the next read may start, the confirmed value, the moves expected.
        let nextAllowed = -Infinity;
        let model: number | undefined;
        let pending: { read: Promise<void>; d: ReturnType<typeof deferred<number>> } | undefined;
        const expectedMoves: number[] = [];
        for (const step of steps) {
          if (step.kind === 'advance') h.advance(step.ms);
          else if (step.kind === 'reset') {
            h.follower.reset();
            // A read in flight at the reset settles after it and counts for nothing.
            pending?.d.resolve(0);
            await pending?.read;
            pending = undefined;
            model = undefined;
            nextAllowed = -Infinity;
            h.moves.length = 0;
            expectedMoves.length = 0;
          } else if (step.kind === 'poll') {
            const before = h.reads.length;
            const read = h.follower.poll();
            const mayStart = pending === undefined && (intervalMs === 0 || h.now() >= nextAllowed);
            expect(read !== undefined).toBe(mayStart);
            expect(h.reads.length).toBe(before + (mayStart ? 1 : 0));
            if (read) {
              pending = { read, d: h.reads.at(-1)! };
              nextAllowed = h.now() + intervalMs;
            }
          } else if (pending) {
            const { read, d } = pending;
            pending = undefined;
            if (step.ok) {
              d.resolve(step.value);
              await read;
              if (model !== step.value) expectedMoves.push(step.value);
              model = step.value;
            } else {
              d.reject(new Error('no answer'));
              await expect(read).rejects.toThrow('no answer');
              nextAllowed = -Infinity;
            }
          }
          expect(h.follower.confirmed()?.value).toBe(model);
          expect(h.moves.map((m) => m.value)).toEqual(expectedMoves);
        }
        pending?.d.resolve(0);
      }),
      fcParams(200),
    );
  });
});
