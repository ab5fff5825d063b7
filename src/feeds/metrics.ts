import { emfRecord as metricRecord } from '../metrics.js';

/**
 * The ingest function's CloudWatch metrics, written as Embedded Metric Format log lines (CloudWatch
 * Logs turns them into metrics; no API call, no extra permission). The alarms of the stack
 * (lib/constructs/feed-ingestion.ts) read the same names.
 */
export const FEED_METRICS = {
  namespace: 'EmptyLegs/Feeds',
  dimension: 'Stage',
  /** 1 per feed file loaded (upsert or sync). */
  loaded: 'FeedsLoaded',
  /** 1 per feed file refused (invalid records, unreadable, or stopped by the sync guard). */
  refused: 'FeedsRefused',
  legsWritten: 'LegsWritten',
  legsUnlisted: 'LegsUnlisted',
} as const;

export interface FeedMetricValues {
  loaded: number;
  refused: number;
  legsWritten: number;
  legsUnlisted: number;
}

/** One EMF line (a JSON object) with the four metrics for `stage`. */
export function emfRecord(stage: string, values: FeedMetricValues, now: Date): Record<string, unknown> {
  const m = FEED_METRICS;
  return metricRecord(
    m.namespace,
    { [m.dimension]: stage },
    { [m.loaded]: values.loaded, [m.refused]: values.refused, [m.legsWritten]: values.legsWritten, [m.legsUnlisted]: values.legsUnlisted },
    now,
  );
}
