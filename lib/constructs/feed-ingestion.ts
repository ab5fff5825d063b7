import { Aws, Duration, Fn, RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { incidentAlarm, notifyTopic } from './alarms.js';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPermission, type CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FEEDS_BUCKET_ENV, type Stage } from '../../src/config.js';
import { INCOMING_PREFIX, REPORTS_PREFIX } from '../../src/feeds/keys.js';
import { FEED_METRICS } from '../../src/feeds/metrics.js';
import { FUNCTIONS } from '../../src/function-table.js';
import { acknowledge } from '../nag.js';
import type { LogLevel } from '../stage-config.js';
import { ServiceFunction } from './service-function.js';

/** What differs per stage for feed ingestion (lib/stage-config.ts). */
export interface FeedIngestionSettings {
  /** Days a replaced or deleted feed file (a noncurrent version) is kept. */
  readonly noncurrentVersionDays: number;
  /** Days a file under incoming/ or reports/ is kept (then it becomes a noncurrent version). */
  readonly fileDays: number;
  /** Alarm when no feed loaded for 24 hours. */
  readonly staleAlarm: boolean;
  /** Reserved concurrency of the ingest function (1: feeds load one at a time); undefined: none. */
  readonly reservedConcurrency: number | undefined;
}

export interface FeedIngestionProps {
  readonly stage: Stage;
  readonly logLevel: LogLevel;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  readonly samLocal: boolean;
  readonly legsTable: ITable;
  readonly alarmTopic: ITopic;
  readonly alarmNamePrefix: string;
  readonly settings: FeedIngestionSettings;
}

/** Retries of a failed ingest invocation (Lambda's asynchronous retries), and the failure queue's retention. */
export const INGEST_RETRY_ATTEMPTS = 2;
export const INGEST_FAILURE_RETENTION_DAYS = 14;

/** Stable logical id of the ingest function (sam local, events/env.json), from src/routes.ts. */
export const INGEST_FUNCTION_LOGICAL_ID = FUNCTIONS.ingestFeed.logicalId;

/**
 * The feeds bucket and its ingest function (docs/deploy.md, "Feeds"). A file put under `incoming/`
 * (upsert) or `incoming/sync/` (sync) invokes the function through an S3 event notification; it
 * writes `reports/<name>.json`. The bucket is encrypted (SSE-S3), private, versioned, TLS only, with
 * server access logs and lifecycle rules; it is always retained (feeds are the operators' data).
 *
 * The bucket has a name derived from the stage, account and region, so that the notification, the
 * permission that lets S3 invoke the function and the function's grants can all name it without a
 * reference cycle, and without the custom resource that `Bucket.addEventNotification` deploys.
 */
export class FeedIngestion extends Construct {
  readonly bucket: Bucket;
  readonly accessLogs: Bucket;
  readonly bucketName: string;
  readonly ingest: ServiceFunction;
  /** Where S3 events whose invocation failed every attempt go (the ingest's on-failure destination). */
  readonly failures: Queue;
  readonly alarms: Record<string, Alarm> = {};

  constructor(scope: Construct, id: string, props: FeedIngestionProps) {
    super(scope, id);
    // Server access logs are delivered under a bucket policy (ACLs stay disabled on both buckets),
    // not through the legacy LogDeliveryWrite ACL.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    const s = props.settings;
    this.bucketName = Fn.join('-', ['empty-legs', props.stage, 'feeds', Aws.ACCOUNT_ID, Aws.REGION]);
    const bucketArn = `arn:${Aws.PARTITION}:s3:::${this.bucketName}`;
    const secure = {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    };

    this.accessLogs = new Bucket(this, 'AccessLogs', {
      ...secure,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(s.fileDays), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    });
    acknowledge(this.accessLogs, {
      id: 'AwsSolutions-S1',
      reason: 'This bucket is the destination of the feeds bucket server access logs; logging access to the log bucket itself would only log the log delivery.',
    });

    this.bucket = new Bucket(this, 'Bucket', {
      ...secure,
      bucketName: this.bucketName,
      versioned: true,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'feeds/',
      lifecycleRules: [
        { noncurrentVersionExpiration: Duration.days(s.noncurrentVersionDays), abortIncompleteMultipartUploadAfter: Duration.days(1) },
        { prefix: INCOMING_PREFIX, expiration: Duration.days(s.fileDays) },
        { prefix: REPORTS_PREFIX, expiration: Duration.days(s.fileDays) },
        { expiredObjectDeleteMarker: true },
      ],
    });

    // Entry, logical id, description, memory, timeout and table access: src/routes.ts.
    this.ingest = new ServiceFunction(this, 'Ingest', {
      name: 'ingestFeed',
      stage: props.stage,
      logLevel: props.logLevel,
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      samLocal: props.samLocal,
      environment: { [FEEDS_BUCKET_ENV]: this.bucketName },
    });
    const fn = this.ingest.function;
    if (s.reservedConcurrency !== undefined) {
      (fn.node.defaultChild as CfnFunction).reservedConcurrentExecutions = s.reservedConcurrency;
    }
    // Least privilege: read feeds (any version) under incoming/, write reports under reports/ (never
    // delete a file), send to its failure queue (below); on the legs table, Scan (what a sync reads),
    // BatchWriteItem (every write of the loader), GetItem and PutItem for each source's last
    // applied sync file (src/feeds/sync-order.ts).
    const role = this.ingest.role;
    role.addToPrincipalPolicy(
      new PolicyStatement({ effect: Effect.ALLOW, actions: ['s3:GetObject', 's3:GetObjectVersion'], resources: [`${bucketArn}/${INCOMING_PREFIX}*`] }),
    );
    role.addToPrincipalPolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['s3:PutObject'], resources: [`${bucketArn}/${REPORTS_PREFIX}*`] }));
    this.ingest.grant(FUNCTIONS.ingestFeed.access, { legs: props.legsTable });
    const nagBucketArn = `arn:<AWS::Partition>:s3:::empty-legs-${props.stage}-feeds-<AWS::AccountId>-<AWS::Region>`;
    for (const prefix of [INCOMING_PREFIX, REPORTS_PREFIX]) {
      acknowledge(role, {
        id: `AwsSolutions-IAM5[Resource::${nagBucketArn}/${prefix}*]`,
        reason:
          'The ingest function reads any feed file under incoming/ and writes any report under reports/ of the feeds bucket: operators choose the object names, so the grant ends in a wildcard limited to that one prefix.',
      });
    }

    // No file lost: an S3 event whose invocation fails (error, time-out, crash) is retried twice,
    // then sent with the error to this queue, kept 14 days (files under incoming/ live longer).
    this.failures = new Queue(this, 'IngestFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(INGEST_FAILURE_RETENTION_DAYS),
      removalPolicy: props.removalPolicy,
    });
    acknowledge(this.failures, {
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the dead-letter destination of the ingest function (its on-failure destination): an operator reads its messages; nothing consumes it that could fail.',
    });
    const failuresArn = this.failures.queueArn;
    role.addToPrincipalPolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['sqs:SendMessage'], resources: [failuresArn] }));
    fn.configureAsyncInvoke({
      retryAttempts: INGEST_RETRY_ATTEMPTS,
      maxEventAge: Duration.hours(6),
      onFailure: { bind: () => ({ destination: failuresArn }) },
    });

    // S3 may invoke the function for this bucket of this account only; the bucket is created after.
    const permission = new CfnPermission(this, 'AllowS3Invoke', {
      action: 'lambda:InvokeFunction',
      functionName: fn.functionArn,
      principal: new ServicePrincipal('s3.amazonaws.com').service,
      sourceAccount: Aws.ACCOUNT_ID,
      sourceArn: bucketArn,
    });
    const cfnBucket = this.bucket.node.defaultChild as CfnBucket;
    cfnBucket.notificationConfiguration = {
      lambdaConfigurations: [
        {
          event: 's3:ObjectCreated:*',
          function: fn.functionArn,
          filter: { s3Key: { rules: [{ name: 'prefix', value: INCOMING_PREFIX }] } },
        },
      ],
    };
    cfnBucket.node.addDependency(permission);

    const metric = (metricName: string, period: Duration) =>
      new Metric({
        namespace: FEED_METRICS.namespace,
        metricName,
        dimensionsMap: { [FEED_METRICS.dimension]: props.stage },
        statistic: 'Sum',
        period,
      });
    const add = (alarmId: string, alarm: Alarm) => {
      notifyTopic(props.alarmTopic, alarm);
      this.alarms[alarmId] = alarm;
    };
    add(
      'FeedRefused',
      incidentAlarm(this, 'FeedRefused', {
        alarmName: `${props.alarmNamePrefix}-FeedRefused`,
        alarmDescription:
          'A feed file was refused (invalid records, unreadable or over a file limit, a sync that would unlist more than half of a source, or a sync file older than the last applied for its source): nothing of it was loaded. Its report is reports/<name>.json in the feeds bucket. See docs/deploy.md, section Feeds.',
        metric: metric(FEED_METRICS.refused, Duration.minutes(5)),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      }),
    );
    add(
      'IngestFunctionErrors',
      incidentAlarm(this, 'IngestFunctionErrors', {
        alarmName: `${props.alarmNamePrefix}-IngestFunctionErrors`,
        alarmDescription:
          'The ingest function failed (S3 or DynamoDB error, time-out, crash); Lambda retries the file twice, and its report says failed. See docs/deploy.md, section Feeds.',
        metric: fn.metricErrors({ statistic: 'Sum', period: Duration.minutes(5) }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      }),
    );
    add(
      'FeedIngestFailed',
      incidentAlarm(this, 'FeedIngestFailed', {
        alarmName: `${props.alarmNamePrefix}-FeedIngestFailed`,
        alarmDescription:
          'A feed file failed to ingest after every retry: its S3 event and the error are in the ingest failure queue, the file is still in the bucket, its report says failed. See docs/deploy.md, section Feeds.',
        metric: this.failures.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: Duration.minutes(5) }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      }),
    );
    if (s.staleAlarm) {
      // 24 hourly periods with no load at all (missing data breaches): the listing goes stale.
      add(
        'NoFeedLoaded24h',
        new Alarm(this, 'NoFeedLoaded24h', {
          alarmName: `${props.alarmNamePrefix}-NoFeedLoaded24h`,
          alarmDescription:
            'No feed file has loaded for 24 hours: the operators feeds stopped arriving or every one was refused. See docs/deploy.md, section Feeds.',
          metric: metric(FEED_METRICS.loaded, Duration.hours(1)),
          threshold: 1,
          evaluationPeriods: 24,
          datapointsToAlarm: 24,
          comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
          treatMissingData: TreatMissingData.BREACHING,
        }),
      );
    }
  }
}
