import { AIRPORT_DATA_FILE } from './airports/index.js';
import type { BundledFile, FunctionSpec } from './function-spec.js';

export type { BundledFile, FunctionSetting, FunctionSpec } from './function-spec.js';

/**
 * The service's functions: the stack, the bundling, the local server and the benchmark build each one
 * from its entry here (CONTRIBUTING.md, "Where things are").
 */

/** The airport reference (src/airports/): read by `new URL('./data/airports.json', import.meta.url)`. */
const AIRPORT_BUNDLED_FILE: BundledFile = { from: AIRPORT_DATA_FILE, to: 'data/airports.json' };

export const FUNCTIONS = {
  listEmptyLegs: {
    invokedBy: 'api',
    entry: 'functions/list-empty-legs/handler.ts',
    logicalId: 'ListEmptyLegsFunction',
    description: 'GET /open/v1/empty-legs: lists empty legs',
    memorySize: 1024,
    timeoutSeconds: 10,
    access: ['legs:read'],
    environment: ['LISTING_CACHE_TTL_SECONDS'],
    // Read on the first nearby search only (src/airports/reference.ts).
    bundledFiles: [AIRPORT_BUNDLED_FILE],
    alarm: { name: 'ListFunction' },
    concurrency: 'reserved',
  },
  getEmptyLeg: {
    invokedBy: 'api',
    entry: 'functions/get-empty-leg/handler.ts',
    logicalId: 'GetEmptyLegFunction',
    description: 'GET /open/v1/empty-legs/{id}: one empty leg',
    memorySize: 512,
    timeoutSeconds: 10,
    // group=flight reads the leg's route from the listing index (docs/api.md, "Flights").
    access: ['legs:read'],
    environment: [],
    alarm: { name: 'GetLegFunction' },
    concurrency: 'reserved',
  },
  listSources: {
    invokedBy: 'api',
    entry: 'functions/list-sources/handler.ts',
    logicalId: 'ListSourcesFunction',
    description: 'GET /open/v1/sources: the sources of the legs, registered or not',
    memorySize: 512,
    timeoutSeconds: 10,
    access: ['legs:read'],
    environment: ['LISTING_CACHE_TTL_SECONDS'],
    alarm: { name: 'SourcesFunction' },
    concurrency: 'reserved',
  },
  listChanges: {
    invokedBy: 'api',
    entry: 'functions/list-changes/handler.ts',
    logicalId: 'ListChangesFunction',
    description: 'GET /open/v1/empty-legs/changes: the change feed',
    memorySize: 1024,
    timeoutSeconds: 10,
    access: ['legs:changes', 'legs:sources', 'legs:sweep-state'],
    environment: [],
    alarm: { name: 'ChangesFunction' },
    concurrency: 'reserved',
  },
  authorizer: {
    invokedBy: 'api',
    entry: 'functions/authorizer/handler.ts',
    logicalId: 'AuthorizerFunction',
    description: 'HTTP API Lambda authorizer: resolves X-API-Key into a verdict, with its rate limit',
    memorySize: 512,
    timeoutSeconds: 5,
    access: ['keys:read', 'keys:count'],
    environment: ['FAILED_AUTH_PER_MINUTE', 'FAILED_AUTH_BURST'],
    alarm: { name: 'AuthorizerFunction', errorsAlarmName: 'AuthorizerErrors' },
    concurrency: 'reserved',
  },
  notFound: {
    invokedBy: 'api',
    entry: 'functions/not-found/handler.ts',
    logicalId: 'NotFoundFunction',
    description: '$default route: answers NOT_FOUND in the envelope',
    memorySize: 256,
    timeoutSeconds: 5,
    access: [],
    environment: [],
    alarm: { name: 'NotFoundFunction' },
  },
  openApi: {
    invokedBy: 'api',
    entry: 'functions/openapi/handler.ts',
    logicalId: 'OpenApiFunction',
    description: 'GET /open/v1/openapi.json: the OpenAPI document, no key',
    memorySize: 256,
    timeoutSeconds: 5,
    access: [],
    environment: [],
    alarm: { name: 'OpenApiFunction' },
  },
  ingestFeed: {
    invokedBy: 'feeds',
    entry: 'functions/ingest-feed/handler.ts',
    logicalId: 'IngestFeedFunction',
    description: 'Feeds bucket: validates and loads files put under incoming/, writes reports/',
    memorySize: 1024,
    timeoutSeconds: 600,
    access: ['legs:load'],
    environment: ['FEEDS_BUCKET_NAME'],
    // The import checks every record's airports against it.
    bundledFiles: [AIRPORT_BUNDLED_FILE],
  },
  retireLegs: {
    invokedBy: 'schedule',
    scheduleMinutes: 60,
    entry: 'functions/retire-legs/handler.ts',
    logicalId: 'RetireLegsFunction',
    description: 'Hourly: legs expired everywhere leave the listing index; DynamoDB TTL deletes them later',
    memorySize: 256,
    timeoutSeconds: 300,
    access: ['legs:retire'],
    environment: [],
    alarm: { name: 'RetireFunction' },
  },
  buildSnapshot: {
    invokedBy: 'schedule',
    scheduleMinutes: 1,
    entry: 'functions/build-snapshot/handler.ts',
    logicalId: 'BuildSnapshotFunction',
    description: 'Every minute: builds the listing snapshot when one is due (15 minutes old, or 500 changes behind)',
    memorySize: 1024,
    timeoutSeconds: 300,
    access: ['legs:snapshot'],
    environment: [],
    alarm: { name: 'SnapshotFunction' },
  },
  sweepListing: {
    invokedBy: 'schedule',
    scheduleMinutes: 1,
    entry: 'functions/sweep-listing/handler.ts',
    logicalId: 'SweepListingFunction',
    description: 'Every minute: legs expired since the last run, and the legs of sources gone stale or back, told to the change feed and the watches',
    memorySize: 512,
    timeoutSeconds: 50,
    access: ['legs:read', 'legs:sweep'],
    environment: [],
    alarm: { name: 'SweepFunction' },
  },
  fetchRates: {
    invokedBy: 'schedule',
    // Working days after the ECB's publication (about 16:00 CET: 15:00 UTC, 14:00 in summer), and an hour later again.
    scheduleCron: { minute: '30', hour: '15,16', weekDay: 'MON-FRI' },
    entry: 'functions/fetch-rates/handler.ts',
    logicalId: 'FetchRatesFunction',
    description: "Working days after 15:30 UTC: the ECB's reference rates (RATES_URL) as the rates in force",
    memorySize: 256,
    timeoutSeconds: 30,
    access: ['legs:rates-write'],
    environment: ['RATES_URL'],
    alarm: { name: 'RatesFunction' },
  },
  watches: {
    invokedBy: 'api',
    entry: 'functions/watches/handler.ts',
    logicalId: 'WatchesFunction',
    description: '/open/v1/watches: create, list, read and delete watches, list their deliveries',
    memorySize: 512,
    timeoutSeconds: 10,
    access: ['watches:manage', 'legs:rates'],
    environment: [],
    // Read when a watch names depNear or arrNear (src/listing/nearby.ts).
    bundledFiles: [AIRPORT_BUNDLED_FILE],
    alarm: { name: 'WatchesFunction' },
  },
  watchAdmin: {
    invokedBy: 'api',
    entry: 'functions/watch-admin/handler.ts',
    logicalId: 'WatchAdminFunction',
    description: "/open/v1/watches/{id}: the owner's changes, test events, replays and secret rotations",
    memorySize: 512,
    // One attempt of at most 10 s (DNS, connection, answer) and its reads and writes.
    timeoutSeconds: 20,
    access: ['watches:admin', 'legs:rates'],
    environment: [],
    // Read when a change names depNear or arrNear (src/listing/nearby.ts).
    bundledFiles: [AIRPORT_BUNDLED_FILE],
    alarm: { name: 'WatchAdminFunction' },
    concurrency: 'capped',
  },
  mcp: {
    invokedBy: 'api',
    entry: 'functions/mcp/handler.ts',
    logicalId: 'McpFunction',
    description: '/open/v1/mcp: the MCP server (Streamable HTTP, stateless): the listing, a leg, the sources, the watches and an enquiry as tools',
    memorySize: 1024,
    timeoutSeconds: 10,
    access: ['legs:read', 'watches:manage', 'enquiries:manage'],
    // The enquiry's events go to the webhook queue, as the enquiries function's (src/enquiries/events/).
    environment: ['LISTING_CACHE_TTL_SECONDS', 'WEBHOOK_QUEUE_URL'],
    // Read on the first nearby search, or a watch naming depNear or arrNear.
    bundledFiles: [AIRPORT_BUNDLED_FILE],
    alarm: { name: 'McpFunction' },
    concurrency: 'capped',
  },
  enquiries: {
    invokedBy: 'api',
    entry: 'functions/enquiries/handler.ts',
    logicalId: 'EnquiriesFunction',
    description: "Enquiries: a broker's POST (Idempotency-Key), list, read and withdrawal; a seller's list and answer",
    memorySize: 512,
    // Its reads and writes, and a notifyUrl's lookup (at most 3 s).
    timeoutSeconds: 10,
    access: ['enquiries:manage', 'legs:get'],
    // The webhook queue its events go to (src/enquiries/events/).
    environment: ['WEBHOOK_QUEUE_URL'],
    alarm: { name: 'EnquiriesFunction' },
    concurrency: 'capped',
  },
  apiKeys: {
    invokedBy: 'api',
    entry: 'functions/api-keys/handler.ts',
    logicalId: 'ApiKeysFunction',
    description: '/open/v1/api-keys: a client reads, creates, rotates and revokes its own keys',
    memorySize: 512,
    timeoutSeconds: 10,
    access: ['keys:manage'],
    environment: [],
    alarm: { name: 'ApiKeysFunction' },
  },
  deliverWebhooks: {
    invokedBy: 'queue',
    entry: 'functions/deliver-webhooks/handler.ts',
    logicalId: 'DeliverWebhooksFunction',
    description: 'Webhook queue: POSTs each delivery, signed, and schedules its retries',
    memorySize: 512,
    // A batch's ten deliveries run at once, each at most 10 s (its DNS lookup included), and their writes.
    timeoutSeconds: 30,
    // And the enquiries' events (src/enquiries/events/): their receivers' secrets.
    access: ['watches:deliver', 'keys:clients', 'enquiries:deliver'],
    environment: ['WEBHOOK_QUEUE_URL', 'WEBHOOK_SLOW_QUEUE_URL'],
    concurrency: 'capped',
  },
  deliverSlowWebhooks: {
    invokedBy: 'queue',
    entry: 'functions/deliver-slow-webhooks/handler.ts',
    logicalId: 'DeliverSlowWebhooksFunction',
    description: 'Slow lane: the deliveries of watches whose receiver answered slower than 2 s, off the shared queue',
    memorySize: 512,
    timeoutSeconds: 30,
    access: ['watches:deliver', 'keys:clients'],
    environment: ['WEBHOOK_SLOW_QUEUE_URL'],
    concurrency: 'capped',
  },
  consumeChanges: {
    invokedBy: 'stream',
    entry: 'functions/consume-changes/handler.ts',
    logicalId: 'ConsumeChangesFunction',
    description: "The legs table's stream: every item change becomes the change log's entries",
    memorySize: 512,
    timeoutSeconds: 60,
    // The registry with each batch (stale sources); a withdrawn leg's open enquiries expire, their events queued.
    access: ['legs:consume', 'legs:sources', 'enquiries:expire'],
    environment: ['WEBHOOK_QUEUE_URL'],
    alarm: { name: 'ConsumerFunction' },
  },
  matchWatches: {
    invokedBy: 'stream',
    entry: 'functions/match-watches/handler.ts',
    logicalId: 'MatchWatchesFunction',
    description: "The change log's state records (the legs table's stream): each listing transition becomes the watches' deliveries",
    memorySize: 1024,
    // A batch of 100 transitions can make thousands of deliveries, written and queued in batches.
    timeoutSeconds: 300,
    access: ['watches:match', 'keys:clients', 'legs:rates', 'legs:sources', 'legs:read'], // legs:read: a flight watch's other offers
    // The webhook queue the matcher sends deliveries to.
    environment: ['WEBHOOK_QUEUE_URL'],
    // Read when a watch names depNear or arrNear (src/listing/nearby.ts).
    bundledFiles: [AIRPORT_BUNDLED_FILE],
    alarm: { name: 'MatcherFunction' },
  },
} as const satisfies Readonly<Record<string, FunctionSpec>>;

export type FunctionName = keyof typeof FUNCTIONS;

/** The function's name outside AWS (local server, logs): its folder, e.g. `list-empty-legs`. */
export const localFunctionName = (name: FunctionName): string => FUNCTIONS[name].entry.split('/').at(-2) ?? name;

/** `listEmptyLegs` -> `ListEmptyLegs`: construct ids derived from table keys. */
export const constructIdOf = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

export const FUNCTION_NAMES = Object.keys(FUNCTIONS) as FunctionName[];

/** The functions the HTTP API invokes (the stack creates them, with their alarms). */
export const API_FUNCTION_NAMES = FUNCTION_NAMES.filter((name) => FUNCTIONS[name].invokedBy === 'api');
/** The functions an EventBridge schedule invokes (lib/constructs/scheduled-functions.ts). */
export const SCHEDULED_FUNCTION_NAMES = FUNCTION_NAMES.filter((name) => FUNCTIONS[name].invokedBy === 'schedule');
/** The functions with reserved concurrency, a share or a cap (lib/stage-config.ts `reservedConcurrency`). */
export type ConcurrencyFunctionName = { [N in FunctionName]: (typeof FUNCTIONS)[N] extends { concurrency: string } ? N : never }[FunctionName];
export const CONCURRENCY_FUNCTION_NAMES = FUNCTION_NAMES.filter((name): name is ConcurrencyFunctionName => (FUNCTIONS[name] as FunctionSpec).concurrency !== undefined);
/** The functions the legs table's stream invokes (lib/constructs/change-stream.ts). */
export const STREAM_FUNCTION_NAMES = FUNCTION_NAMES.filter((name) => FUNCTIONS[name].invokedBy === 'stream');
