import type { Clock } from '../clock.js';
import { createVersionFollower } from '../kernel/version-follower.js';
import type { RateSet } from './ecb-xml.js';
import type { RatesStore } from './store.js';

/** The rates in force as a request sees them; undefined when none were ever loaded. */
export type RatesSource = () => Promise<RateSet | undefined>;

/** How long a warm container answers from the rates it read before it reads them again. */
export const RATES_CACHE_MS = 60_000;

/**
 * A container's rates: read at the first request, then again at most every `intervalMs`, the
 * requests in between answering from memory. A failed read after a good one keeps the good one.
 * `fresh` (the watches' matcher): a call that starts a read waits for it rather than answering the old rates.
 */
export function cachedRates(store: Pick<RatesStore, 'read'>, options: { clock: Clock; intervalMs?: number; fresh?: boolean }): RatesSource {
  const follower = createVersionFollower<RateSet | undefined>({
    clock: options.clock,
    intervalMs: options.intervalMs ?? RATES_CACHE_MS,
    read: () => store.read(),
  });
  return async () => {
    const read = follower.poll();
    if (follower.confirmed() === undefined) await (read ?? follower.inFlight());
    else if (options.fresh === true) await read?.catch(() => undefined);
    else read?.catch(() => undefined);
    return follower.confirmed()?.value;
  };
}
