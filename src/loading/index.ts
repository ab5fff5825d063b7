/** What other capabilities may use of loading/: its public surface (eslint.boundaries.js). */
export { loadFeed, type FeedLoadOutcome } from './feed-load.js';
export { readImportStream, type ImportError, type ImportResult } from './import/index.js';
export { ID_PATTERN } from './import/reference-data.js';
export { type LoadMode, type PlanCounts, type SourcePlan } from './sync-plan.js';
