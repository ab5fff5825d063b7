/** The watches' public surface for other folders of src/ (the owner's operations in src/watch-admin/). */
export {
  checkResolvedTarget,
  createWatch,
  readWatches,
  removeWatch,
  DELIVERIES_SHOWN,
  generateSecret,
  MAX_BODY_BYTES,
  parseWatchBody,
  parseWatchId,
  publicDelivery,
  publicWatch,
  ratesFor,
  requireWatch,
  type Delivery,
  type FilterDependencies,
  type Watch,
  type WatchDependencies,
  watchPortsOf,
} from './resource.js';
export { parseStoredFilters } from './filters.js';
export { bumpVersion, getDelivery, recordWatchSuccess, type DeliveryRecord, type WatchRecord, type WatchTables } from './store.js';
export { attemptDelivery, attemptWatch, webhookHeaders, secretsInEffect } from './attempt.js';
export { checkTargetUrl, resolveTarget, systemResolver, TargetRefused, type Resolver, type TargetPolicy } from './target.js';
export { createWebhookQueue } from './queue.js';
export { DEFAULT_POST_OPTIONS, postWebhook, type PostOptions, type WebhookPoster } from './post.js';
