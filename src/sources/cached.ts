import type { Clock } from '../clock.js';
import { createVersionFollower } from '../kernel/version-follower.js';
import { EMPTY_REGISTRY, sourceFactsOf, type Registry } from './registry.js';
import type { SourceFacts } from '../kernel/leg/blocks.js';
import type { SourcesStore } from './store.js';

/** The registry as a request sees it. */
export type RegistrySource = () => Promise<Registry>;

/** How long a warm container answers from the registry it read before it reads it again: well within the 2 minutes of a stale source. */
export const REGISTRY_CACHE_MS = 30_000;

/**
 * A container's registry: read at the first request, then at most every `intervalMs`, the requests
 * in between answering from memory; a failed read after a good one keeps the good one.
 */
export function cachedRegistry(store: Pick<SourcesStore, 'read'>, options: { clock: Clock; intervalMs?: number }): RegistrySource {
  const follower = createVersionFollower<Registry>({
    clock: options.clock,
    intervalMs: options.intervalMs ?? REGISTRY_CACHE_MS,
    read: () => store.read(),
    same: (a, b) => a.revision === b.revision,
  });
  return async () => {
    const read = follower.poll();
    if (follower.confirmed() === undefined) await (read ?? follower.inFlight());
    else read?.catch(() => undefined);
    return follower.confirmed()?.value ?? EMPTY_REGISTRY;
  };
}

/** What `include=provenance` reads of the registry: each source's facts, the registry read once per request. */
export function sourceFactsOfRegistry(registry: RegistrySource): () => Promise<(id: string) => SourceFacts> {
  return async () => {
    const read = await registry();
    return (id) => sourceFactsOf(read, id);
  };
}
