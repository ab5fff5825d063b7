/**
 * CloudWatch metrics as Embedded Metric Format log lines (CloudWatch Logs turns them into metrics;
 * no API call, no extra permission): the ingest function's feed metrics (src/feeds/metrics.ts) and
 * the authorizer's failed usage writes (src/keys/authorizer.ts). The stack's alarms read the same names.
 */
export function emfRecord(
  namespace: string,
  dimensions: Readonly<Record<string, string>>,
  values: Readonly<Record<string, number>>,
  now: Date,
): Record<string, unknown> {
  return {
    _aws: {
      Timestamp: now.getTime(),
      CloudWatchMetrics: [
        {
          Namespace: namespace,
          Dimensions: [Object.keys(dimensions)],
          Metrics: Object.keys(values).map((Name) => ({ Name, Unit: 'Count' })),
        },
      ],
    },
    ...dimensions,
    ...values,
  };
}

/** The record as one line of JSON. */
export function emfLine(...args: Parameters<typeof emfRecord>): string {
  return JSON.stringify(emfRecord(...args));
}

/** The authorizer's failed writes of the usage counters (the stack's `UsageWriteFailures` alarm reads it). */
export const RATE_LIMIT_METRICS = { namespace: 'EmptyLegs/RateLimits', dimension: 'Stage', writeFailures: 'UsageWriteFailures' } as const;

/**
 * The retiring function's metrics (src/retirement/retire-legs.ts); the stack's `RetireBehind` alarm reads
 * `behind`.
 */
export const RETIRE_METRICS = {
  namespace: 'EmptyLegs/History',
  dimension: 'Stage',
  /** Legs retired by a run. */
  retired: 'LegsRetired',
  /** Shards a run left due legs in (0 when it caught up). */
  behind: 'RetireBehind',
} as const;

/**
 * The minute's sweep (src/sweep/handler.ts, docs/sources.md, "Expiry and staleness"): one line per run,
 * and one per stale source with its `Source` dimension. `StaleSources` is the alarm's metric.
 */
export const SWEEP_METRICS = {
  namespace: 'EmptyLegs/Sweep',
  dimension: 'Stage',
  source: 'Source',
  /** Expired legs a run touched (each a `withdrawn` change, reason `expired`). */
  expired: 'LegsExpired',
  /** Shards a run left due legs in. */
  behind: 'SweepBehind',
  /** Registered sources stale at the run's instant. */
  staleSources: 'StaleSources',
  /** 1 per stale source, per run (dimension `Source`). */
  sourceStale: 'SourceStale',
} as const;

/**
 * The scheduled snapshot build's metrics (src/snapshot/handler.ts), one line per run. A failed
 * run shows as the function's Errors (the stack's `SnapshotFunctionErrors` alarm).
 */
export const SNAPSHOT_METRICS = {
  namespace: 'EmptyLegs/Snapshot',
  dimension: 'Stage',
  /** 1 when the run published a snapshot; 0 when a large load began meanwhile. */
  built: 'SnapshotBuilt',
  /** Index entries in the snapshot a run built. */
  entries: 'SnapshotEntries',
  /** Parts written (buckets whose content changed) and deleted (retired one build earlier). */
  partsWritten: 'SnapshotPartsWritten',
  partsDeleted: 'SnapshotPartsDeleted',
} as const;

/**
 * The change consumer's batches (src/changes/handlers.ts): entries added to the change log, listing
 * transitions seen, and the batch's lag (ms from its oldest record's creation to its commit).
 */
export const CHANGE_METRICS = {
  namespace: 'EmptyLegs/Changes',
  dimension: 'Stage',
  entries: 'ChangeLogEntries',
  transitions: 'ListingTransitions',
  lagMs: 'ChangeLagMs',
} as const;

/**
 * The watches' matcher (src/watches/match/handler.ts), one line per batch: deliveries made, events
 * left out for a client without a key, malformed watch, delivery or log items skipped, and the lag
 * from the oldest record's creation to the batch's end.
 */
export const MATCH_METRICS = {
  namespace: 'EmptyLegs/Watches',
  dimension: 'Stage',
  deliveries: 'WatchDeliveries',
  withoutKey: 'WatchEventsWithoutKey',
  malformed: 'MalformedWatchItems',
  lagMs: 'MatchLagMs',
} as const;

/** Where a function's metric lines go: stdout, which Lambda hands to CloudWatch (EMF). */
export const toStdout = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** What a scheduled function over the legs table is given (retirement, the snapshot build). */
export interface ScheduledRunDeps<Client> {
  client: Client;
  legsTableName: string;
  stage: string;
  now?: () => number;
  /** Where the metric line goes (default: stdout). */
  emit?: (line: string) => void;
}

/** The scheduled rates fetch (docs/rates.md): whether it loaded, and the age of the rates in force (its alarm). */
export const RATES_METRICS = {
  namespace: 'EmptyLegs/Rates',
  dimension: 'Stage',
  loaded: 'RatesLoaded',
  ageDays: 'RatesAgeDays',
} as const;
