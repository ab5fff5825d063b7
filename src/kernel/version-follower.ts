import type { Clock } from '../clock.js';

/** The last successful read of the followed item: its value, and the instant that read started. */
export interface Confirmed<T> {
  value: T;
  at: number;
}

export interface VersionFollowerOptions<T> {
  clock: Clock;
  /** Least time between the starts of two reads (ms); 0: every poll reads (one at a time). */
  intervalMs: number;
  /** Reads the small item that says the version (throws when it cannot). */
  read: () => Promise<T>;
  /** Whether two reads name the same version. Default: `Object.is`. */
  same?: (a: T, b: T) => boolean;
  /** Called (and awaited, inside the read) when a read finds a version other than the confirmed one, or the first. */
  onMove?: (value: T, previous: Confirmed<T> | undefined, at: number) => void | Promise<void>;
}

export interface VersionFollower<T> {
  /**
   * Starts a read when none is in flight and `intervalMs` has passed since the last one started (a
   * failed read allows the next at once); answers the read it started, else undefined. It rejects
   * when the read or `onMove` throws, and `confirmed` is then left as it was.
   */
  poll(): Promise<void> | undefined;
  /** The read in flight, if any. */
  inFlight(): Promise<void> | undefined;
  /** The last successful read; undefined before the first (or since `reset`). */
  confirmed(): Confirmed<T> | undefined;
  /** Forgets the confirmed version and the interval: the next poll reads, and its version counts as moved. */
  reset(): void;
}

/** Follows a version item: reads it at most every `intervalMs`, one read at a time, and says when it moved. */
export function createVersionFollower<T>(options: VersionFollowerOptions<T>): VersionFollower<T> {
  const same = options.same ?? Object.is;
  let confirmed: Confirmed<T> | undefined;
  let lastStart = -Infinity;
  let flight: Promise<void> | undefined;
  let generation = 0;

  async function readOnce(at: number, gen: number): Promise<void> {
    try {
      const value = await options.read();
      if (gen !== generation) return;
      if (confirmed === undefined || !same(confirmed.value, value)) await options.onMove?.(value, confirmed, at);
      if (gen === generation) confirmed = { value, at };
    } catch (err) {
      if (gen === generation) lastStart = -Infinity;
      throw err;
    }
  }

  return {
    poll() {
      if (flight) return undefined;
      const at = options.clock();
      if (options.intervalMs > 0 && at - lastStart < options.intervalMs) return undefined;
      lastStart = at;
      const read = readOnce(at, generation).finally(() => {
        if (flight === read) flight = undefined;
      });
      flight = read;
      return read;
    },
    inFlight: () => flight,
    confirmed: () => confirmed,
    reset() {
      generation += 1;
      confirmed = undefined;
      lastStart = -Infinity;
      flight = undefined;
    },
  };
}
