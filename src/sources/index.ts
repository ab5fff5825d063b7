/** What other capabilities may use of sources/: its public surface (eslint.boundaries.js). */
export { cachedFacts, cachedRegistry, sourceFactsOfRegistry, type RegistrySource } from './cached.js';
export { EMPTY_REGISTRY, isStale, settingsOf, sourceBlockFactsOf, sourceFactsOf, staleSourceIds, staleSourcesAt, type Registry, type SourceKind } from './registry.js';
export { createSourcesStore, type SourcesStore } from './store.js';
export { listSources, type ListSourcesDependencies } from './list-sources.js';
export type { SourceView } from './registry.js';
