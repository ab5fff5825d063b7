import { derivedIndexKeyOf, indexRepairOf, withWrittenInstants, type IndexKey, type IndexRepair } from '../kernel/leg-change.js';
import { backoffDelay, sleep } from '../aws/backoff.js';
import { forEachBounded } from '../aws/batch-write.js';
import { factsOfItem } from '../kernel/leg/blocks.js';
import type { Clock } from '../clock.js';
import { planLog, type LegState, type SequencedTransition } from './log.js';
import { movingTransitions } from './moves.js';
import { GROUP_SIZE, type ChangeLogStore } from './store.js';
import { compareSequenceNumbers, SERVICE_ITEM_PREFIX, transitionOf, type ItemChange, type ListingTransition, type StaleSources, type TransitionSubscriber } from './transition.js';


export interface ConsumeDependencies {
  store: ChangeLogStore;
  clock: Clock;
  subscribers?: readonly TransitionSubscriber[];
  /** Entries per transaction (default GROUP_SIZE; tests make it small). */
  groupSize?: number;
  /** Attempts at committing the batch when other writers commit first (then the batch fails). */
  maxAttempts?: number;
  /**
   * The sources stale at an instant, read fresh for each batch that has legs (the registry item:
   * docs/sources.md): a leg of one is not listed after its change. Default: none.
   */
  staleSources?: (now: number) => Promise<StaleSources>;
}

export interface ConsumeResult {
  /** Transitions given to the subscribers: those that move something (src/changes/moves.ts). */
  transitions: number;
  /** Entries the batch added to the log (0 when delivered again). */
  entries: number;
}

/** Repair writes of one batch in flight at once (a load of hand-written legs repairs each). */
const REPAIR_CONCURRENCY = 8;

export async function consumeChanges(changes: readonly ItemChange[], deps: ConsumeDependencies): Promise<ConsumeResult> {
  const now = deps.clock();
  const batch: SequencedTransition[] = [];
  const repairs = new Map<string, { image: Readonly<Record<string, unknown>>; repair: IndexRepair }>();
  const legs = changes.some((c) => !c.id.startsWith(SERVICE_ITEM_PREFIX));
  const stale = legs ? await deps.staleSources?.(now) : undefined;
  const oldImages: (Readonly<Record<string, unknown>> | undefined)[] = [];
  for (const change of changes) {
    if (change.id.startsWith(SERVICE_ITEM_PREFIX)) continue;
    // A write by hand gets the instants a load would have kept (docs/storage.md, "A leg's instants"): its facts as the log keeps them.
    const written = change.newImage && withWrittenInstants(change.oldImage, change.newImage, now);
    const transition = transitionOf(written ? { ...change, newImage: written.image } : change, now, stale);
    if (!transition) continue;
    const index: IndexKey | undefined = derivedIndexKeyOf(written?.image);
    batch.push({ transition, sequenceNumber: change.sequenceNumber, index, ...(written ? { facts: factsOfItem(written.image) } : {}) });
    oldImages.push(change.oldImage);
    const repair = change.newImage && indexRepairOf(change.newImage, index, written?.instants);
    if (repair) repairs.set(change.id, { image: change.newImage!, repair });
    else repairs.delete(change.id);
  }
  const { entries, states } = batch.length === 0 ? { entries: 0, states: new Map<string, LegState>() } : await appendToLog(batch, deps);
  // The log holds what the legs' fields give; their items are brought in line after it (docs/storage.md, "Hand edits").
  await forEachBounded([...repairs], REPAIR_CONCURRENCY, async ([id, { image, repair }]) => void (await deps.store.reindex(id, image, repair)));
  // A transition that moves nothing (a repair's own record) reaches no subscriber (docs/storage.md, "Hand edits").
  const transitions = movingTransitions(batch, oldImages, states, now, stale).map((b) => asFirstGiven(b, states.get(b.transition.id)));
  if (transitions.length > 0) for (const subscriber of deps.subscribers ?? []) await subscriber(transitions);
  return { transitions: transitions.length, entries };
}

/**
 * A transition as its subscribers first got it: a record the log had applied before this batch
 * (a retried batch) keeps the `changedAt` it was given then, so that what subscribers key by the
 * change (`changeId`, `changedAt`) stays the same.
 */
function asFirstGiven(b: SequencedTransition, state: LegState | undefined): ListingTransition {
  if (state?.changedAt === undefined || compareSequenceNumbers(b.sequenceNumber, state.sequenceNumber) > 0) return b.transition;
  return { ...b.transition, changedAt: state.changedAt };
}

/**
 * Commits the batch's entries group by group; after a conflict, reads the states again and goes on.
 * Returns the entries committed and the states read before the first attempt.
 */
async function appendToLog(batch: readonly SequencedTransition[], deps: ConsumeDependencies): Promise<{ entries: number; states: Map<string, LegState> }> {
  const maxAttempts = deps.maxAttempts ?? 10;
  let committed = 0;
  let first: Map<string, LegState> | undefined;
  for (let attempt = 1; ; attempt++) {
    const states = await deps.store.states(batch.map((b) => b.transition.id));
    first ??= states;
    let conflict = false;
    for (const group of planLog(batch, states, deps.groupSize ?? GROUP_SIZE)) {
      if (!(await deps.store.append(group, deps.clock()))) {
        conflict = true;
        break;
      }
      committed += group.entries.length;
    }
    if (!conflict) return { entries: committed, states: first };
    if (attempt >= maxAttempts) throw new Error(`The change log stayed in conflict after ${maxAttempts} attempts`);
    await sleep(backoffDelay(attempt - 1, 10, 500));
  }
}
