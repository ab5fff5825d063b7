import type { PoolAnswer, PoolRequest, UsageCounter, UsageReserver, UsageTotals } from '../../src/keys/limits/limiter-ports.js';

/**
 * The usage counter items of one keys table, in memory, with the semantics of src/keys/limits/usage.ts
 * (addUsage, reserveUsage): what every container's writes add up to, and the shared bucket.
 */
export interface MemoryUsage {
  counter: UsageCounter;
  reserve: UsageReserver;
  totals: Map<string, UsageTotals>;
  tats: Map<string, number>;
  /** The served count when each bucket was last found full. */
  bases: Map<string, number>;
  /** When each bucket was last found full. */
  fulls: Map<string, number>;
  /** The last refusal a container wrote (busyAt). */
  busy: Map<string, number>;
  writes: number;
}

export function memoryUsage(): MemoryUsage {
  const totals = new Map<string, UsageTotals>();
  const tats = new Map<string, number>();
  const bases = new Map<string, number>();
  const fulls = new Map<string, number>();
  const busy = new Map<string, number>();
  const store: MemoryUsage = {
    fulls,
    busy,
    totals,
    tats,
    bases,
    writes: 0,
    counter: (keyId, day, add) => {
      store.writes++;
      const t = totals.get(`${keyId}#${day}`) ?? { served: 0, refused: 0 };
      const next = { served: t.served + add.served, refused: t.refused + add.refused };
      totals.set(`${keyId}#${day}`, next);
      if (add.busyAt !== undefined) busy.set(`${keyId}#${day}`, add.busyAt);
      return Promise.resolve(next);
    },
    reserve: (keyId: string, day: string, add: UsageTotals, pool: PoolRequest): Promise<PoolAnswer> => {
      store.writes++;
      const item = `${keyId}#${day}`;
      const t = totals.get(item) ?? { served: 0, refused: 0 };
      const tat = tats.get(item);
      const busyAt = busy.get(item);
      const isBusy = busyAt !== undefined && busyAt > pool.now - pool.quietMs;
      const full = tat === undefined || tat < pool.now || tat > pool.now + 2 * pool.capacityMs + 1000;
      const start = full ? pool.now : tat;
      if (isBusy || start + pool.costMs > pool.now + pool.capacityMs + 0.001) {
        return Promise.resolve({ granted: false, busy: isBusy, totals: t, tat: tat ?? pool.now, servedSinceFull: t.served - (bases.get(item) ?? 0), fullAt: fulls.get(item) ?? 0 });
      }
      bases.set(item, (full ? t.served : (bases.get(item) ?? 0)) + add.served - 1);
      if (full) fulls.set(item, pool.now);
      const next = { served: t.served + add.served, refused: t.refused + add.refused };
      totals.set(item, next);
      tats.set(item, start + pool.costMs);
      return Promise.resolve({ granted: true, busy: false, totals: next, tat: start + pool.costMs, servedSinceFull: next.served - (bases.get(item) ?? 0), fullAt: fulls.get(item) ?? 0 });
    },
  };
  return store;
}
