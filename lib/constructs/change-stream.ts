import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { ComparisonOperator, type Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { incidentAlarm, notifyTopic } from './alarms.js';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition, type CfnEventSourceMapping } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption, type IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { constructIdOf, FUNCTIONS, STREAM_FUNCTION_NAMES, type FunctionName, type FunctionSpec } from '../../src/function-table.js';
import { LOG_STATE_ID_PREFIX } from '../../src/changes/log-stream.js';
import { acknowledge } from '../nag.js';
import { ENV, ServiceFunction, type ServiceFunctionProps } from './service-function.js';

export interface ChangeStreamProps extends Pick<ServiceFunctionProps, 'stage' | 'logLevel' | 'logRetention' | 'removalPolicy'> {
  readonly samLocal: boolean;
  readonly legsTable: ITable;
  /** Which clients have a key: the matcher reads it (`keys:clients`). */
  readonly keysTable: ITable;
  /** The watches' tables and the webhook queue: the matcher reads and writes them (`watches:match`). */
  readonly watchesTable: ITable;
  readonly deliveriesTable: ITable;
  /** The enquiries a withdrawn leg expires (the consumer's subscriber, src/enquiries/). */
  readonly enquiriesTable: ITable;
  readonly webhookQueue: IQueue;
  readonly alarmNamePrefix: string;
}

/** What the event source mapping does with a batch (docs/deploy.md, "The change log"). */
export const STREAM_MAPPING = {
  batchSize: 100,
  /** Retries of a failing batch, each half of it on its own after the first failure. */
  retryAttempts: 4,
  /** A record older than this goes to the on-failure queue (the stream keeps records 24 hours). */
  maxRecordAgeHours: 6,
  /** How long the on-failure queue keeps what it was sent. */
  failureRetentionDays: 14,
} as const;

/**
 * Each reader of the legs table's stream (src/function-table.ts `invokedBy: 'stream'`) apart: its
 * on-failure queue and the alarm on it, and what its mapping reads. The change consumer reads every
 * record; the watches' matcher only the change log's state records (a filter of the mapping, so it
 * is not invoked for the legs' own writes), with batches run two at a time per shard (a leg's
 * records stay in order). Neither waits for the other.
 */
export const STREAM_READERS = {
  consumeChanges: {
    failuresId: 'ConsumerFailures',
    alarmId: 'ConsumerFailed',
    alarmName: 'ChangeConsumerFailed',
    parallelizationFactor: 1,
    keyPrefix: undefined,
    lost: 'its changes are missing from the change feed until replayed',
  },
  matchWatches: {
    failuresId: 'MatcherFailures',
    alarmId: 'MatcherFailed',
    alarmName: 'WatchMatcherFailed',
    parallelizationFactor: 2,
    keyPrefix: LOG_STATE_ID_PREFIX,
    lost: 'the watches got no delivery of its changes until replayed',
  },
} as const satisfies Partial<Record<FunctionName, unknown>>;

/**
 * The legs table's stream readers (src/function-table.ts `invokedBy: 'stream'`: the change log's
 * consumer, src/changes/; the watches' matcher, src/watches/match/): each its function and event
 * source mapping (from the oldest record kept, one batch per shard at a time, a failing batch
 * bisected and retried a bounded number of times, then its description sent to an SQS on-failure
 * queue of its own, so a shard is never blocked for ever), and an alarm on a message in that queue.
 * Their Errors and Throttles alarms are made by Operations.
 */
export class ChangeStream extends Construct {
  readonly functions: Partial<Record<FunctionName, ServiceFunction>> = {};
  readonly failures: Partial<Record<FunctionName, Queue>> = {};
  readonly failureAlarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ChangeStreamProps & { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    const names = Object.keys(STREAM_READERS) as (keyof typeof STREAM_READERS)[];
    if ([...names].sort().join() !== [...STREAM_FUNCTION_NAMES].sort().join()) throw new Error(`STREAM_READERS (${names.join(', ')}) differ from the stream functions of src/function-table.ts`);
    for (const name of names) {
      const reader: (typeof STREAM_READERS)[keyof typeof STREAM_READERS] = STREAM_READERS[name];
      const spec: FunctionSpec = FUNCTIONS[name];
      const failures = new Queue(this, reader.failuresId, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(STREAM_MAPPING.failureRetentionDays),
        removalPolicy: props.removalPolicy,
      });
      acknowledge(failures, {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself the on-failure destination of a reader of the legs table stream: it holds the descriptions of stream batches that failed every retry, for an operator to replay (docs/deploy.md); a queue behind it would hold nothing.',
      });
      const { legsTable: _table, keysTable: _k, watchesTable: _w, deliveriesTable: _d, enquiriesTable: _e, webhookQueue: _q, alarmNamePrefix: _prefix, ...common } = props;
      const matches = spec.environment.includes('WEBHOOK_QUEUE_URL');
      const environment: Record<string, string> = matches ? { [ENV.webhookQueueUrl]: props.webhookQueue.queueUrl } : {};
      const fn = new ServiceFunction(this, constructIdOf(name), { ...common, name, environment }).grant(spec.access, {
        legs: props.legsTable,
        keys: props.keysTable,
        watches: props.watchesTable,
        deliveries: props.deliveriesTable,
        enquiries: props.enquiriesTable,
      });
      // The matcher's deliveries (SendMessage on the webhook queue only).
      if (matches) props.webhookQueue.grantSendMessages(fn.function);
      fn.function.addEventSource(
        new DynamoEventSource(props.legsTable, {
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: STREAM_MAPPING.batchSize,
          bisectBatchOnError: true,
          retryAttempts: STREAM_MAPPING.retryAttempts,
          maxRecordAge: Duration.hours(STREAM_MAPPING.maxRecordAgeHours),
          parallelizationFactor: reader.parallelizationFactor,
          onFailure: new SqsDlq(failures),
          ...(reader.keyPrefix === undefined
            ? {}
            : { filters: [FilterCriteria.filter({ eventName: FilterRule.or('INSERT', 'MODIFY'), dynamodb: { Keys: { id: { S: [{ prefix: reader.keyPrefix }] } } } })] }),
        }),
      );
      acknowledge(fn.role, {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'dynamodb:ListStreams, which the event source mapping of the legs table stream needs, has no resource-level permission; every other stream action is granted on the legs table stream only.',
      });
      this.functions[name] = fn;
      this.failures[name] = failures;
      this.failureAlarms.push(
        incidentAlarm(this, reader.alarmId, {
          alarmName: `${props.alarmNamePrefix}-${reader.alarmName}`,
          alarmDescription: `A batch of the legs table stream failed every retry of ${spec.logicalId} and was sent to its on-failure queue: ${reader.lost}. See docs/deploy.md, section The change log.`,
          metric: failures.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: Duration.minutes(5) }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        }),
      );
    }
  }

  /** The on-failure alarms notify `topic` (the alarm topic, made after the functions it watches). */
  alarmTo(topic: ITopic): this {
    for (const alarm of this.failureAlarms) notifyTopic(topic, alarm);
    return this;
  }

  /** The mapping of a function (tests, docs). */
  static mappingOf(fn: ServiceFunction): CfnEventSourceMapping | undefined {
    return fn.function.node.findAll().find((c): c is CfnEventSourceMapping => c.constructor.name === 'CfnEventSourceMapping');
  }
}
