/** What other capabilities may use of sweep/: its public surface (eslint.boundaries.js). */
export { createSweepStore, SWEEP_ID, TOUCH_ATTRIBUTES, type SweepStore } from './store.js';
export { sweepListing, type SweepReport } from './sweep.js';
