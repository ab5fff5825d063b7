import { sourceViews, type SourceView } from './registry.js';
import type { RegistrySource } from './cached.js';

/** Ports of the sources list: the registry, the listing's count of legs per source. */
export interface ListSourcesDependencies {
  registry: RegistrySource;
  countListed: (now: number) => Promise<ReadonlyMap<string, number>>;
  now: number;
}

/** GET /open/v1/sources: every registered source and every source with legs in the listing, in id order. */
export async function listSources(deps: ListSourcesDependencies): Promise<{ records: SourceView[] }> {
  const [registry, listed] = await Promise.all([deps.registry(), deps.countListed(deps.now)]);
  return { records: sourceViews(registry, listed, deps.now) };
}
