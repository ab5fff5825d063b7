import type { SourcesStore } from '../../src/sources/index.js';
import { sourceOf } from '../../src/kernel/source.js';
import type { StoredLeg } from '../../src/kernel/leg-item.js';
import type { SourceHistoryEntry } from '../../src/sources/registry.js';

/**
 * The demo's registry (docs/sources.md): the three demo sources of both kinds, one verified, one
 * that goes stale an hour after `npm start` (unless loaded again: `npm run legs:load -- FILE --sync`).
 */
export const DEMO_REGISTRY: Readonly<Record<string, SourceHistoryEntry['change']>> = {
  skyline: { name: 'Skyline Aviation', kind: 'operator', verified: true, staleAfterMinutes: 36 * 60 },
  northjet: { name: 'NorthJet Brokers', kind: 'broker' },
  'azur-charter': { name: 'Azur Charter', kind: 'operator', staleAfterMinutes: 60 },
};

/** Stamps the loaded legs' sources as loaded at `at`, and with the demo data registers its sources. */
export async function registerLoadedSources(store: SourcesStore, legs: readonly StoredLeg[], at: number, demo: boolean): Promise<void> {
  await store.recordLoads(legs.map(sourceOf), at);
  if (!demo) return;
  for (const [id, change] of Object.entries(DEMO_REGISTRY)) await store.set(id, change, { id: 'npm-start', at });
}
