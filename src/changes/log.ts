import type { IndexKey } from '../kernel/leg-change.js';
import { createHash } from 'node:crypto';
import type { EmptyLeg } from '../kernel/model.js';
import type { LegFacts } from '../kernel/leg/blocks.js';
import { compareSequenceNumbers, type ListingTransition, type WithdrawReason } from './transition.js';

/**
 * The change log's rules, without I/O: entries numbered 1, 2, 3, ... in commit order, each `listed`,
 * `updated` or `withdrawn` (docs/api.md, "Change feed"); a leg's state (last sequence number applied,
 * digest of the record last given) skips a record seen again and gives the next entry's type.
 */
export type ChangeType = 'listed' | 'updated' | 'withdrawn';

/** How long the log keeps entries (docs/api.md): an older cursor is CURSOR_EXPIRED. */
export const RETENTION_DAYS = 30;
export const RETENTION_MS = RETENTION_DAYS * 86_400_000;
/** Entries and withdrawn states are deleted by DynamoDB TTL this long after they were written: a day past the retention. */
export const EXPIRE_AFTER_MS = RETENTION_MS + 86_400_000;

/** A leg's state in the log. `digest` is null when the log last said it is not listed. */
export interface LegState {
  sequenceNumber: string;
  digest: string | null;
  /** The `changedAt` of the transition that made this state: what a retried batch gives its subscribers again. */
  changedAt?: string;
  /** Listed, what the state keeps beside the record (src/changes/moves.ts, `keptFactsOf`); absent: not read. */
  kept?: string;
}

/** One committed (or to be committed) entry. */
export interface LogEntry {
  type: ChangeType;
  id: string;
  /** ISO 8601: when the change reached the log. */
  changedAt: string;
  /** The leg as listed; null for `withdrawn`. */
  leg: EmptyLeg | null;
  /** Why a `withdrawn` leg left (docs/api.md, "Change feed"); absent for the other types. */
  reason?: WithdrawReason;
  /** Its listing index entry (what the listing's caches apply; never served); absent for `withdrawn`. */
  index?: IndexKey;
  /** What `include` reads of the leg's item then (never served as such); absent for `withdrawn` and entries written before. */
  facts?: LegFacts;
}

/** A transition with the stream sequence number of the record it came from. */
export interface SequencedTransition {
  transition: ListingTransition;
  sequenceNumber: string;
  /** The leg's listing index entry after the change, if any. */
  index?: IndexKey;
  /** What `include` reads of its item after the change. */
  facts?: LegFacts;
}

/** The digest of a shown record (its JSON text, the fields in the API's order), or null. */
export function digestOf(leg: EmptyLeg | null): string | null {
  return leg === null ? null : createHash('sha256').update(JSON.stringify(leg)).digest('base64url').slice(0, 22);
}

/** The type of an entry from the digest the log last gave and the new one; undefined for no entry. */
export function changeTypeOf(previous: string | null, next: string | null): ChangeType | undefined {
  if (previous === null) return next === null ? undefined : 'listed';
  if (next === null) return 'withdrawn';
  return previous === next ? undefined : 'updated';
}

/** A group of entries committed together, with the states of their legs after them. */
export interface LogGroup {
  entries: LogEntry[];
  /** The new state of each leg of the group, and the state it replaces (undefined: none stored). */
  states: Map<string, { next: LegState; prior: LegState | undefined }>;
}

/**
 * What a batch of transitions adds to the log, given their legs' stored states: records already
 * applied (sequence number not above the state's) and changes the record does not show are skipped
 * (without a state, `before` is what the log last gave); entries in order, in groups of `groupSize`.
 */
export function planLog(
  batch: readonly SequencedTransition[],
  stored: ReadonlyMap<string, LegState>,
  groupSize: number,
): LogGroup[] {
  const current = new Map<string, LegState | undefined>();
  const groups: LogGroup[] = [];
  let group: LogGroup = { entries: [], states: new Map() };
  for (const { transition, sequenceNumber, index, facts } of batch) {
    const { id } = transition;
    const state = current.has(id) ? current.get(id) : stored.get(id);
    if (state !== undefined && compareSequenceNumbers(sequenceNumber, state.sequenceNumber) <= 0) continue;
    const previous = state === undefined ? digestOf(transition.before) : state.digest;
    const next = digestOf(transition.after);
    const type = changeTypeOf(previous, next);
    if (type === undefined) continue;
    if (group.entries.length >= groupSize) {
      groups.push(group);
      group = { entries: [], states: new Map() };
    }
    const nextState = { sequenceNumber, digest: next, changedAt: transition.changedAt };
    const prior = group.states.has(id) ? group.states.get(id)!.prior : state;
    const reason = type === 'withdrawn' ? { reason: transition.reason ?? 'unlisted' } : {};
    group.entries.push({
      type,
      id,
      changedAt: transition.changedAt,
      leg: transition.after,
      ...reason,
      ...(index && transition.after ? { index } : {}),
      ...(facts && transition.after ? { facts } : {}),
    });
    group.states.set(id, { next: nextState, prior });
    current.set(id, nextState);
  }
  if (group.entries.length > 0) groups.push(group);
  return groups;
}
