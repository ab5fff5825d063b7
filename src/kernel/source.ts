/**
 * Feeds: every leg belongs to one source, the slug of the feed it came from (import format field
 * `source`). The API never shows it; a sync (`legs:load --sync`) uses it to know which legs a feed
 * owns. An item stored before sources existed has no `source` attribute and belongs to the default.
 */
export const DEFAULT_SOURCE = 'default';

/** 1-40 of a-z 0-9 and -, starting with a letter or digit. */
export const SOURCE_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;
export const SOURCE_RULE = 'must be a source slug: 1-40 of a-z 0-9 -, starting with a letter or digit';

/** What a registered source says it is (docs/sources.md): it operates the aircraft, or re-sells legs others operate. */
export const SOURCE_KINDS = ['operator', 'broker'] as const;
export type RegisteredKind = (typeof SOURCE_KINDS)[number];

/**
 * What the sources registry says of the sources it knows, as the listing's filters read it (`kind`,
 * `verifiedOnly`); a source it does not list is `unknown` and unverified.
 */
export interface SourceFacts {
  /** The registry's revision: the same revision, the same facts. */
  revision: number;
  kinds: ReadonlyMap<string, RegisteredKind>;
  verified: ReadonlySet<string>;
  /** Each source's last complete sync, epoch ms (a sync carries its legs unchanged without writing them: `confirmedAtOf`). */
  lastSyncedAt?: ReadonlyMap<string, number> | undefined;
}

export function isSource(value: unknown): value is string {
  return typeof value === 'string' && SOURCE_PATTERN.test(value);
}

/** The source of a stored item or leg; `default` when it has none. */
export function sourceOf(item: { readonly source?: unknown }): string {
  return typeof item.source === 'string' && item.source !== '' ? item.source : DEFAULT_SOURCE;
}
