import { BATCH_GET_LIMIT, MAX_BATCH_GET_ATTEMPTS } from '../aws/batch-limits.js';
import { CHANGE_PAGE_SIZE, MAX_FOLLOWED_ENTRIES } from '../kernel/leg-change.js';
import { MAX_SIZE } from './query.js';

/**
 * The hard bound on the DynamoDB work of one list request (docs/performance.md, "Bounded work per
 * request"), enforced where the work is done (the planner, the repository); checked by
 * test/unit/listing/planner-properties.test.ts and test/handler/listing/list-bounds.test.ts.
 */

/**
 * Most month buckets one request reads: the months from today - 1 - MAX_BUCKET_SPAN_DAYS, where a leg
 * still flyable in the earliest zone can have started, to today + HORIZON_DAYS (docs/performance.md,
 * "Bounded work per request"); the unit test finds the maximum by trying every day.
 */
export const MAX_MONTH_BUCKETS = 15;

/** Most bucket queries of one request: the month buckets and the bucket of long-window legs. */
export const MAX_BUCKET_READS = MAX_MONTH_BUCKETS + 1;

/**
 * Most Query requests (1 MB pages) followed in one bucket; a bucket that holds more fails the request
 * (INTERNAL_ERROR, logged with the bucket) rather than answer with a wrong total (docs/performance.md,
 * "Bounded work per request").
 */
export const MAX_QUERY_PAGES_PER_BUCKET = 32;

/**
 * Most parallel segments a bucket read is split into after its first page (`segmentsAfter`); their
 * pages count against MAX_QUERY_PAGES_PER_BUCKET together. Why 3: docs/performance.md, "Cold reads
 * that scale".
 */
export const MAX_SEGMENTS_PER_BUCKET = 3;

/** Most ids one request fetches: one page. */
export const MAX_IDS_PER_REQUEST = MAX_SIZE;

/** Most BatchGetItem requests of one list request. */
export const MAX_BATCH_GET_CALLS = Math.ceil(MAX_IDS_PER_REQUEST / BATCH_GET_LIMIT) * MAX_BATCH_GET_ATTEMPTS;

/** Most Query requests of one list request. */
export const MAX_QUERY_CALLS = MAX_BUCKET_READS * MAX_QUERY_PAGES_PER_BUCKET;

/** Following the change log, at most once a second per container: its head, then the missed entries' pages. */
export const MAX_LOG_CALLS = 1 + Math.ceil(MAX_FOLLOWED_ENTRIES / CHANGE_PAGE_SIZE / BATCH_GET_LIMIT) * MAX_BATCH_GET_ATTEMPTS;

/** Parts of one bucket's snapshot read at most; a bucket with more is read from the index. */
export const MAX_SNAPSHOT_PARTS_PER_BUCKET = 32;

/** The listing snapshot's reads in one request: its manifest, the change log since its build, the parts of the buckets read. */
export const MAX_SNAPSHOT_CALLS =
  1 + MAX_LOG_CALLS + Math.ceil((MAX_BUCKET_READS * MAX_SNAPSHOT_PARTS_PER_BUCKET) / BATCH_GET_LIMIT) * MAX_BATCH_GET_ATTEMPTS;

/** Most DynamoDB requests one list request sends (each may be retried by the SDK client: src/aws/dynamodb.ts). */
export const MAX_DYNAMODB_CALLS_PER_REQUEST = MAX_SNAPSHOT_CALLS + MAX_QUERY_CALLS + MAX_BATCH_GET_CALLS + MAX_LOG_CALLS;
