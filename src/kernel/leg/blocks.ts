import type { EmptyLeg } from '../model.js';
import { sourceOf } from '../source.js';
import { departureWindow, type DepartureWindow } from './departure.js';
import { confirmedAtOf, instantsOf, type LegInstants } from './instants.js';
import { recordFlightKey } from './flight-key.js';

/**
 * `include` (docs/api.md, "Provenance and departure"): blocks a record carries after its usual
 * fields when asked, from what the leg's item holds and its source's registry entry.
 */
export const INCLUDE_BLOCKS = ['provenance', 'departure', 'flight'] as const;
export type IncludeBlock = (typeof INCLUDE_BLOCKS)[number];
export type Include = ReadonlySet<IncludeBlock>;
export const NO_INCLUDE: Include = new Set();
export const INCLUDE_PATTERN = /^(provenance|departure|flight)(,(provenance|departure|flight)){0,2}$/;
export const INCLUDE_RULE = 'must be a comma list of provenance, departure and flight, each once';

/** The blocks `text` asks for (undefined or empty: none); null when it is not such a list. */
export function parseInclude(text: string | undefined): Include | null {
  if (text === undefined || text === '') return NO_INCLUDE;
  if (!INCLUDE_PATTERN.test(text)) return null;
  const blocks = new Set(text.split(',') as IncludeBlock[]);
  return blocks.size === text.split(',').length ? blocks : null;
}

/** What a record's blocks read of its leg's item. */
export interface LegFacts extends LegInstants {
  source: string;
  startDate: string;
  endDate: string;
  depTimezone: string;
  depTimeFrom?: string | undefined;
  depTimeTo?: string | undefined;
}

export function factsOfItem(item: Readonly<Record<string, unknown>>): LegFacts {
  return {
    source: sourceOf(item),
    startDate: String(item.startDate),
    endDate: String(item.endDate),
    depTimezone: typeof item.depTimezone === 'string' ? item.depTimezone : 'UTC',
    ...(typeof item.depTimeFrom === 'string' ? { depTimeFrom: item.depTimeFrom } : {}),
    ...(typeof item.depTimeTo === 'string' ? { depTimeTo: item.depTimeTo } : {}),
    ...instantsOf(item),
  };
}

/** The facts as the change log keeps them with an entry or a state (`p`): JSON. */
export function storedFacts(facts: LegFacts): string {
  return JSON.stringify(facts);
}

/** Stored facts back; undefined when there are none or they are not such. */
export function factsOfStored(value: unknown): LegFacts | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null ? factsOfItem(parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** What the registry says of a source (src/sources/registry.ts, `sourceBlockFactsOf`). */
export interface SourceFacts {
  name: string;
  kind: string;
  verified: boolean;
  lastLoadedAt: number | undefined;
  lastSyncedAt: number | undefined;
}

/** A source the registry does not know (or no registry read). */
export const unregisteredSource = (id: string): SourceFacts => ({ name: id, kind: 'unknown', verified: false, lastLoadedAt: undefined, lastSyncedAt: undefined });

export interface Provenance {
  source: string;
  sourceName: string;
  kind: string;
  verified: boolean;
  firstSeenAt: string | null;
  updatedAt: string | null;
  confirmedAt: string | null;
  sourceLoadedAt: string | null;
}

const iso = (ms: number | undefined): string | null => (ms === undefined || Number.isNaN(ms) ? null : new Date(ms).toISOString());

export function provenanceOf(facts: LegFacts, source: SourceFacts): Provenance {
  return {
    source: facts.source,
    sourceName: source.name,
    kind: source.kind,
    verified: source.verified,
    firstSeenAt: iso(facts.firstSeenAt),
    updatedAt: iso(facts.updatedAt),
    confirmedAt: iso(confirmedAtOf({ confirmedAt: facts.confirmedAt ?? Number.NaN }, source.lastSyncedAt)),
    sourceLoadedAt: iso(source.lastLoadedAt),
  };
}

export type WithBlocks<R> = R & { provenance?: Provenance; departure?: DepartureWindow; flightKey?: string | null };

/** The record with the blocks `include` asks for, after its usual fields; the record itself when it asks for none. */
export function withBlocks<R extends EmptyLeg>(record: R, include: Include, facts: LegFacts, source: (id: string) => SourceFacts): WithBlocks<R> {
  if (include.size === 0) return record;
  return {
    ...record,
    ...(include.has('provenance') ? { provenance: provenanceOf(facts, source(facts.source)) } : {}),
    ...(include.has('departure') ? { departure: departureWindow(facts, facts.depTimezone) } : {}),
    ...(include.has('flight') ? { flightKey: recordFlightKey(record) } : {}),
  };
}
