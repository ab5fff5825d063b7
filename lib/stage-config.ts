import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Stage } from '../src/config.js';
import type { KeyEnvironment } from '../src/auth/verdict.js';
import type { FeedIngestionSettings } from './constructs/feed-ingestion.js';
import type { WafSettings } from './constructs/edge.js';
import type { ConcurrencyFunctionName } from '../src/function-table.js';

/**
 * Everything that differs between the two stages, in one typed place. The stack class reads only
 * this; nothing in lib/ branches on the stage name.
 */
export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export interface AlarmThresholds {
  /** Period over which every alarm's metric is aggregated. */
  readonly period: Duration;
  /** Consecutive breaching periods before an alarm fires. */
  readonly evaluationPeriods: number;
  /** API 5xx responses as a percentage of all requests in the period (alarm when above). */
  readonly api5xxRatePercent: number;
  /** Lambda `Errors` (sum per period) of the list and not-found functions (alarm at or above). */
  readonly functionErrors: number;
  /** Lambda `Throttles` (sum per period) of any function (alarm at or above). */
  readonly functionThrottles: number;
  /** Lambda `Errors` of the authorizer (alarm at or above): each one is a 500 for a caller. */
  readonly authorizerErrors: number;
  /** DynamoDB read/write throttle events on a table and its indexes (sum per period; alarm at or above). */
  readonly dynamoThrottles: number;
  /**
   * Failed writes of the usage counters by the authorizer (sum per period; alarm at or above): while
   * they fail, each container enforces its last known share of a key's limit (fail open).
   */
  readonly usageWriteFailures: number;
}

export interface StageConfig {
  readonly stage: Stage;
  /** The only key environment the stage accepts (docs/api.md, "API keys"): sandbox `test`, prod `live`. */
  readonly allowedKeyEnvironment: KeyEnvironment;
  /** What happens to the tables (and log groups) when the stack is deleted or they are replaced. */
  readonly removalPolicy: RemovalPolicy;
  /** DynamoDB deletion protection on both tables. */
  readonly deletionProtection: boolean;
  /** POWERTOOLS_LOG_LEVEL of every function. */
  readonly logLevel: LogLevel;
  /** Retention of the functions' log groups and of the API access log group. */
  readonly logRetention: RetentionDays;
  /**
   * Stage-wide throttling of the HTTP API (steady rate in requests per second, burst in requests):
   * protects the account as a whole, whatever the keys; each key's own limit is the authorizer's
   * (docs/api.md, "Rate limits").
   */
  readonly throttling: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * The web ACL in front of the API (lib/constructs/edge.ts): requests one address may send per
   * window before WAF answers 429. Half the stage's throttle, so that no one address can spend it.
   */
  readonly waf: WafSettings;
  /**
   * FAILED_AUTH_PER_MINUTE and FAILED_AUTH_BURST of the authorizer: failed authentications per
   * source address and container before its requests are answered 429 without a read
   * (src/keys/limits/address-limit.ts).
   */
  readonly failedAuth: { readonly perMinute: number; readonly burst: number };
  /** LISTING_CACHE_TTL_SECONDS of the list function: the ceiling of its change-aware cache (0 turns it off). */
  readonly listingCacheTtlSeconds: number;
  readonly alarms: AlarmThresholds;
  /** The feeds bucket and ingest function (lib/constructs/feed-ingestion.ts). */
  readonly feeds: FeedIngestionSettings;
  /**
   * Reserved concurrency of the functions that have one (src/function-table.ts `concurrency`,
   * docs/deploy.md "Concurrency"): the authorizer's and the listing's a share that deliveries and
   * test events cannot take; the watch administration's and the deliveries' a ceiling.
   */
  readonly reservedConcurrency: Readonly<Record<ConcurrencyFunctionName, number>>;
  /** `maximumConcurrency` of the delivery queue's event source: at most the delivery function's cap. */
  readonly deliveryMaximumConcurrency: number;
}

export const STAGE_CONFIGS: Readonly<Record<Stage, StageConfig>> = {
  sandbox: {
    stage: 'sandbox',
    allowedKeyEnvironment: 'test',
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    logLevel: 'DEBUG',
    logRetention: RetentionDays.ONE_WEEK,
    throttling: { rateLimit: 200, burstLimit: 400 },
    waf: { requestsPerAddress: 6000, windowSeconds: 60 },
    failedAuth: { perMinute: 60, burst: 20 },
    listingCacheTtlSeconds: 900,
    alarms: {
      period: Duration.minutes(5),
      evaluationPeriods: 1,
      api5xxRatePercent: 10,
      functionErrors: 5,
      functionThrottles: 5,
      authorizerErrors: 5,
      dynamoThrottles: 10,
      usageWriteFailures: 10,
    },
    feeds: { noncurrentVersionDays: 7, fileDays: 30, staleAlarm: false, reservedConcurrency: 1 },
    reservedConcurrency: { authorizer: 20, listEmptyLegs: 20, getEmptyLeg: 5, listSources: 2, listChanges: 5, watchAdmin: 2, mcp: 2, enquiries: 3, deliverWebhooks: 5, deliverSlowWebhooks: 2 },
    deliveryMaximumConcurrency: 5,
  },
  prod: {
    stage: 'prod',
    allowedKeyEnvironment: 'live',
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
    logLevel: 'INFO',
    logRetention: RetentionDays.THREE_MONTHS,
    throttling: { rateLimit: 1000, burstLimit: 2000 },
    waf: { requestsPerAddress: 30000, windowSeconds: 60 },
    failedAuth: { perMinute: 60, burst: 20 },
    listingCacheTtlSeconds: 900,
    alarms: {
      period: Duration.minutes(5),
      evaluationPeriods: 1,
      api5xxRatePercent: 1,
      functionErrors: 1,
      functionThrottles: 1,
      authorizerErrors: 1,
      dynamoThrottles: 1,
      usageWriteFailures: 1,
    },
    feeds: { noncurrentVersionDays: 90, fileDays: 365, staleAlarm: true, reservedConcurrency: 1 },
    reservedConcurrency: { authorizer: 100, listEmptyLegs: 100, getEmptyLeg: 20, listSources: 5, listChanges: 20, watchAdmin: 10, mcp: 10, enquiries: 10, deliverWebhooks: 20, deliverSlowWebhooks: 2 },
    deliveryMaximumConcurrency: 20,
  },
};

export function stageConfig(stage: Stage): StageConfig {
  return STAGE_CONFIGS[stage];
}
