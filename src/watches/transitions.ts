import type { EmptyLeg } from '../legs/model.js';

/**
 * The port the change log calls (docs/watches.md, "The change log's port"): one listing transition
 * of a leg, as the unfiltered listing shows it before and after a change (null: not listed).
 */
export interface LegTransition {
  id: string;
  /** ISO 8601 instant of the change. */
  changedAt: string;
  /**
   * What identifies the change across retries of its batch (the stream record's sequence number);
   * without it `changedAt` must be stable across retries, or a retried batch makes new delivery ids.
   */
  changeId?: string;
  before: EmptyLeg | null;
  after: EmptyLeg | null;
}

/** What a subscriber of the change log is: called with each batch, in order; a throw retries the batch. */
export type TransitionSubscriber = (transitions: readonly LegTransition[]) => Promise<void>;
