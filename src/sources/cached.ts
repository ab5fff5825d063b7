import type { Clock } from '../clock.js';
import { createVersionFollower } from '../kernel/version-follower.js';
import type { SourceFacts } from '../kernel/source.js';
import type { SourceFacts as BlockSourceFacts } from '../kernel/leg/blocks.js';
import { EMPTY_REGISTRY, sourceBlockFactsOf, sourceFactsOf, type Registry } from './registry.js';
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
  // The same revision answers the same object: what a container keeps by it (a record's blocks) stays.
  let kept: Registry = EMPTY_REGISTRY;
  return async () => {
    const read = follower.poll();
    if (follower.confirmed() === undefined) await (read ?? follower.inFlight());
    else read?.catch(() => undefined);
    const value = follower.confirmed()?.value ?? EMPTY_REGISTRY;
    if (value.revision !== kept.revision) kept = value;
    return kept;
  };
}

/** The facts of a container's registry (`sourceFactsOf`), made once per registry read. */
export function cachedFacts(registry: RegistrySource): () => Promise<SourceFacts> {
  const made = new WeakMap<Registry, SourceFacts>();
  return async () => {
    const read = await registry();
    let facts = made.get(read);
    if (facts === undefined) made.set(read, (facts = sourceFactsOf(read)));
    return facts;
  };
}

/** What `include=provenance` reads of the registry: each source's facts, the registry read once per request. */
export function sourceFactsOfRegistry(registry: RegistrySource): () => Promise<(id: string) => BlockSourceFacts> {
  return async () => {
    const read = await registry();
    return (id) => sourceBlockFactsOf(read, id);
  };
}
