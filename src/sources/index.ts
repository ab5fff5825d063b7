/** What other capabilities may use of sources/: its public surface (eslint.boundaries.js). */
export { cachedRegistry, sourceFactsOfRegistry, type RegistrySource } from './cached.js';
export { EMPTY_REGISTRY, isStale, settingsOf, sourceFactsOf, type Registry, type SourceKind } from './registry.js';
export { createSourcesStore, type SourcesStore } from './store.js';
