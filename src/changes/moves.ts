import type { IndexKey } from '../kernel/leg-change.js';
import { factsOfItem, storedFacts, type LegFacts } from '../kernel/leg/blocks.js';
import type { EmptyLeg } from '../kernel/model.js';
import { digestOf, type LegState, type SequencedTransition } from './log.js';
import {
  compareSequenceNumbers,
  STATE_CONFIRMED_ATTR,
  STATE_DEP_FROM_ATTR,
  STATE_DEP_TO_ATTR,
  STATE_SOURCE_ATTR,
  stateFacts,
  withdrawReasonOf,
  type EntryFacts,
  type StaleSources,
} from './transition.js';

type Image = Readonly<Record<string, unknown>>;

/** A listed leg's state attribute with what `include` reads of its item (src/changes/store.ts). */
export const STATE_LEG_FACTS_ATTR = 'p';
const KEPT = [STATE_SOURCE_ATTR, STATE_CONFIRMED_ATTR, STATE_DEP_FROM_ATTR, STATE_DEP_TO_ATTR, STATE_LEG_FACTS_ATTR] as const;

/** What a listed leg's state item keeps beside its record (its entry's facts, what `include` reads), as one string. */
export function keptFactsOf(item: Image): string {
  return JSON.stringify(KEPT.map((name) => item[name] ?? null));
}

/** The same for a change's after side: what the log's state keeps of its index entry and its item's facts. */
export function keptFactsOfChange(index: IndexKey | undefined, facts: LegFacts | undefined): string {
  return keptFactsOf({ ...stateFacts(index), ...(facts === undefined ? {} : { [STATE_LEG_FACTS_ATTR]: storedFacts(facts) }) });
}

/** What the subscribers were last given of a leg: its record's digest (null: not listed) and, listed, its kept facts. */
export interface Given {
  digest: string | null;
  kept?: string | undefined;
}

const givenOf = (b: SequencedTransition): Given =>
  b.transition.after === null ? { digest: null } : { digest: digestOf(b.transition.after), kept: keptFactsOfChange(b.index, b.facts) };

/**
 * The log's state as what the subscribers were last given, as the log reads it (src/changes/log.ts,
 * `planLog`): none gives `before`; one not older than the record (a batch given again) tells nothing.
 */
function givenOfState(state: LegState | undefined, b: SequencedTransition): Given | undefined {
  if (state === undefined) return { digest: digestOf(b.transition.before) };
  return compareSequenceNumbers(b.sequenceNumber, state.sequenceNumber) > 0 ? { digest: state.digest, kept: state.kept } : undefined;
}

const sameRecord = (a: EmptyLeg | null, b: EmptyLeg | null) => (a === null || b === null ? a === b : JSON.stringify(a) === JSON.stringify(b));

/** True when `after` holds every fact `before` holds, the same: it changes only facts the old image had not. */
function fillsOnly(before: EntryFacts | undefined, after: EntryFacts | undefined): boolean {
  return Object.entries(before ?? {}).every(([name, value]) => after?.[name as keyof EntryFacts] === value);
}

/**
 * A transition moves nothing when it shows what the subscribers were last given (`prior`): not listed,
 * for the reason its old image gives too; listed, both its sides' record, with the same facts (its
 * entry's, what `include` reads) or facts the old image lacked filled as last given (a repair's record).
 */
export function movesNothing(b: SequencedTransition, oldImage: Image | undefined, prior: () => Given | undefined, now: number, stale?: StaleSources): boolean {
  const t = b.transition;
  if (t.after === null) return prior()?.digest === null && t.reason === withdrawReasonOf(oldImage, now, stale);
  if (!sameRecord(t.before, t.after)) return false;
  const was = prior();
  if (was === undefined || was.digest !== digestOf(t.after)) return false;
  const sameFacts = JSON.stringify(t.beforeFacts ?? {}) === JSON.stringify(t.afterFacts ?? {});
  if (sameFacts && oldImage !== undefined && b.facts !== undefined && storedFacts(factsOfItem(oldImage)) === storedFacts(b.facts)) return true;
  return fillsOnly(t.beforeFacts, t.afterFacts) && was.kept === keptFactsOfChange(b.index, b.facts);
}

/**
 * The batch's transitions that move something, in order (src/changes/consume.ts gives only these to
 * its subscribers): `oldImages` the records' old images, `states` the log's states read before the batch.
 */
export function movingTransitions(
  batch: readonly SequencedTransition[],
  oldImages: readonly (Image | undefined)[],
  states: ReadonlyMap<string, LegState>,
  now: number,
  stale?: StaleSources,
): SequencedTransition[] {
  const previous = new Map<string, SequencedTransition>();
  return batch.filter((b, i) => {
    const id = b.transition.id;
    const before = previous.get(id);
    previous.set(id, b);
    const prior = () => (before === undefined ? givenOfState(states.get(id), b) : givenOf(before));
    return !movesNothing(b, oldImages[i], prior, now, stale);
  });
}
