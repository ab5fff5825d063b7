/** What other capabilities may use of changes/: its public surface (eslint.boundaries.js). */
export { createChangeSource } from './follow.js';
export { createChangeLogStore } from './store.js';
export { WITHDRAW_REASONS, type EntryFacts, type ListingTransition, type StaleSources, type TransitionSubscriber, type WithdrawReason } from './transition.js';
export { logTransitionOf, LOG_STATE_ID_PREFIX } from './log-stream.js';
