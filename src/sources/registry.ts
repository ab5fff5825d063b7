/**
 * The sources registry (docs/sources.md): what the team running the service knows of each feed that
 * legs name. A source it does not know is `kind: unknown`, unverified and never stale.
 */
import type { SourceFacts as BlockSourceFacts } from '../kernel/leg/blocks.js';
import { SOURCE_KINDS, type RegisteredKind, type SourceFacts } from '../kernel/source.js';

export { SOURCE_KINDS, type RegisteredKind };
export type SourceKind = RegisteredKind | 'unknown';

export interface SourceSettings {
  name: string | null;
  kind: SourceKind;
  verified: boolean;
  /** Epoch ms of the run that verified it; null when unverified. */
  verifiedAt: number | null;
  /** null: never stale. */
  staleAfterMinutes: number | null;
  /** Epoch ms of the run that last set `staleAfterMinutes`: a source never loaded since is judged from then. */
  staleAfterSetAt: number | null;
}

/** One entry of a source's history: a `sources set` run and what it changed. */
export interface SourceHistoryEntry {
  at: number;
  run: string;
  change: Partial<Pick<SourceSettings, 'name' | 'kind' | 'verified' | 'staleAfterMinutes'>>;
}

export interface RegisteredSource {
  settings: SourceSettings;
  history: SourceHistoryEntry[];
}

/** The registry as read: the registered sources and the last successful load of every source loaded since. */
export interface Registry {
  sources: ReadonlyMap<string, RegisteredSource>;
  lastLoadedAt: ReadonlyMap<string, number>;
  /** The last complete sync (`--sync`, a sync ingest) of every source synced since: its listed legs were all carried then. */
  lastSyncedAt?: ReadonlyMap<string, number>;
  /** Counts every write of the registry item (a settings change or a load). */
  revision: number;
}

export const EMPTY_REGISTRY: Registry = { sources: new Map(), lastLoadedAt: new Map(), revision: 0 };

export const UNREGISTERED: SourceSettings = {
  name: null,
  kind: 'unknown',
  verified: false,
  verifiedAt: null,
  staleAfterMinutes: null,
  staleAfterSetAt: null,
};

export const MIN_STALE_MINUTES = 1;
export const MAX_STALE_MINUTES = 30 * 24 * 60;
export const DURATION_RULE = 'must be a duration such as 90m, 36h or 7d, from 1 minute to 30 days';

const UNIT_MINUTES = { m: 1, h: 60, d: 24 * 60 } as const;

/** `90m`, `36h`, `7d` in minutes; undefined when not such a duration within 1 minute to 30 days. */
export function parseStaleAfter(text: string): number | undefined {
  const m = /^([1-9][0-9]{0,5})([mhd])$/.exec(text);
  if (!m) return undefined;
  const minutes = Number(m[1]) * UNIT_MINUTES[m[2] as keyof typeof UNIT_MINUTES];
  return minutes >= MIN_STALE_MINUTES && minutes <= MAX_STALE_MINUTES ? minutes : undefined;
}

/** Minutes as the shortest exact duration (`90m`, `36h`, `7d`). */
export function formatMinutes(minutes: number): string {
  if (minutes % UNIT_MINUTES.d === 0) return `${minutes / UNIT_MINUTES.d}d`;
  if (minutes % UNIT_MINUTES.h === 0) return `${minutes / UNIT_MINUTES.h}h`;
  return `${minutes}m`;
}

export function settingsOf(registry: Registry, source: string): SourceSettings {
  return registry.sources.get(source)?.settings ?? UNREGISTERED;
}

/** What a record's `provenance` block reads of a source (src/kernel/leg/blocks.ts). */
export function sourceBlockFactsOf(registry: Registry, id: string): BlockSourceFacts {
  const s = settingsOf(registry, id);
  return { name: s.name ?? id, kind: s.kind, verified: s.verified, lastLoadedAt: registry.lastLoadedAt.get(id), lastSyncedAt: registry.lastSyncedAt?.get(id) };
}

/**
 * True when the source has a staleness bound and its last successful load (or, never loaded since,
 * the setting of the bound) is older than it at `now`.
 */
export function isStale(registry: Registry, source: string, now: number): boolean {
  const settings = settingsOf(registry, source);
  if (settings.staleAfterMinutes === null) return false;
  const from = registry.lastLoadedAt.get(source) ?? settings.staleAfterSetAt;
  return from !== null && now - from > settings.staleAfterMinutes * 60_000;
}

/** The registry as the listing's filters read it (`kind`, `verifiedOnly`): the kinds and the verified sources. */
export function sourceFactsOf(registry: Registry & { lastSyncedAt?: ReadonlyMap<string, number> | undefined }): SourceFacts {
  const kinds = new Map<string, RegisteredKind>();
  const verified = new Set<string>();
  for (const [id, { settings }] of registry.sources) {
    if (settings.kind !== 'unknown') kinds.set(id, settings.kind);
    if (settings.verified) verified.add(id);
  }
  return { revision: registry.revision, kinds, verified, lastSyncedAt: registry.lastSyncedAt };
}

/** The sources stale at `now`, in id order (docs/sources.md, "Stale sources"): only registered sources with a bound can be. */
export function staleSourceIds(registry: Registry, now: number): string[] {
  return [...registry.sources.keys()].filter((id) => isStale(registry, id, now)).sort();
}

/** A predicate of the sources stale at `now` (what the listing, the by-id route and the change consumer leave out). */
export function staleSourcesAt(registry: Registry, now: number): (source: string) => boolean {
  const stale = new Set(staleSourceIds(registry, now));
  return (source) => stale.has(source);
}

/** A source as `GET /open/v1/sources` and `sources show` give it. */
export interface SourceView {
  id: string;
  name: string;
  kind: SourceKind;
  verified: boolean;
  verifiedAt: string | null;
  legsListed: number;
  lastLoadedAt: string | null;
  staleAfterMinutes: number | null;
  stale: boolean;
}

const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

export function sourceView(registry: Registry, id: string, legsListed: number, now: number): SourceView {
  const s = settingsOf(registry, id);
  const stale = isStale(registry, id, now);
  return {
    id,
    name: s.name ?? id,
    kind: s.kind,
    verified: s.verified,
    verifiedAt: iso(s.verifiedAt),
    // A stale source's legs are out of the listing (docs/sources.md, "Stale sources").
    legsListed: stale ? 0 : legsListed,
    lastLoadedAt: iso(registry.lastLoadedAt.get(id)),
    staleAfterMinutes: s.staleAfterMinutes,
    stale,
  };
}

/**
 * Every registered source and every source with legs in the listing, in id order. `default` (legs
 * loaded without a source) is one of them when it has legs.
 */
export function sourceViews(registry: Registry, listed: ReadonlyMap<string, number>, now: number): SourceView[] {
  const ids = [...new Set([...registry.sources.keys(), ...[...listed].filter(([, n]) => n > 0).map(([id]) => id)])].sort();
  return ids.map((id) => sourceView(registry, id, listed.get(id) ?? 0, now));
}

/** The settings after a `sources set` run's change (`at`: the run's instant). */
export function applyChange(before: SourceSettings, change: SourceHistoryEntry['change'], at: number): SourceSettings {
  const after: SourceSettings = { ...before };
  if (change.name !== undefined) after.name = change.name;
  if (change.kind !== undefined) after.kind = change.kind;
  if (change.verified !== undefined && change.verified !== before.verified) {
    after.verified = change.verified;
    after.verifiedAt = change.verified ? at : null;
  }
  if (change.staleAfterMinutes !== undefined) {
    after.staleAfterMinutes = change.staleAfterMinutes;
    after.staleAfterSetAt = change.staleAfterMinutes === null ? null : at;
  }
  return after;
}

