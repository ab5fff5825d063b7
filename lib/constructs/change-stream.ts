import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { ComparisonOperator, type Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { incidentAlarm, notifyTopic } from './alarms.js';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { StartingPosition, type CfnEventSourceMapping } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption, type IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { constructIdOf, FUNCTIONS, STREAM_FUNCTION_NAMES, type FunctionName, type FunctionSpec } from '../../src/function-table.js';
import { acknowledge } from '../nag.js';
import { ENV, ServiceFunction, type ServiceFunctionProps } from './service-function.js';

export interface ChangeStreamProps extends Pick<ServiceFunctionProps, 'stage' | 'logLevel' | 'logRetention' | 'removalPolicy'> {
  readonly samLocal: boolean;
  readonly legsTable: ITable;
  /** The watches' tables and the webhook queue: the consumer's matcher reads and writes them (`watches:match`). */
  readonly watchesTable: ITable;
  readonly deliveriesTable: ITable;
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
 * The legs table's stream consumer (src/routes.ts `invokedBy: 'stream'`, src/changes/): its function
 * and event source mapping (from the oldest record kept, one batch per shard at a time, a failing
 * batch bisected and retried a bounded number of times, then its description sent to an SQS
 * on-failure queue, so a shard is never blocked for ever), the queue, and an alarm on a message in
 * it. The function's Errors and Throttles alarms are made by Operations.
 */
export class ChangeStream extends Construct {
  readonly functions: Partial<Record<FunctionName, ServiceFunction>> = {};
  readonly failures: Queue;
  readonly failureAlarm: Alarm;

  constructor(scope: Construct, id: string, props: ChangeStreamProps & { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.failures = new Queue(this, 'ConsumerFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(STREAM_MAPPING.failureRetentionDays),
      removalPolicy: props.removalPolicy,
    });
    acknowledge(this.failures, {
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the on-failure destination of the change consumer: it holds the descriptions of stream batches that failed every retry, for an operator to replay (docs/deploy.md); a queue behind it would hold nothing.',
    });
    for (const name of STREAM_FUNCTION_NAMES) {
      const spec: FunctionSpec = FUNCTIONS[name];
      const { legsTable: _table, watchesTable: _w, deliveriesTable: _d, webhookQueue: _q, alarmNamePrefix: _prefix, ...common } = props;
      const matches = spec.environment.includes('WEBHOOK_QUEUE_URL');
      const environment: Record<string, string> = matches ? { [ENV.webhookQueueUrl]: props.webhookQueue.queueUrl } : {};
      const fn = new ServiceFunction(this, constructIdOf(name), { ...common, name, environment }).grant(spec.access, {
        legs: props.legsTable,
        watches: props.watchesTable,
        deliveries: props.deliveriesTable,
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
          parallelizationFactor: 1,
          onFailure: new SqsDlq(this.failures),
        }),
      );
      acknowledge(fn.role, {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'dynamodb:ListStreams, which the event source mapping of the legs table stream needs, has no resource-level permission; every other stream action is granted on the legs table stream only.',
      });
      this.functions[name] = fn;
    }
    this.failureAlarm = incidentAlarm(this, 'ConsumerFailed', {
      alarmName: `${props.alarmNamePrefix}-ChangeConsumerFailed`,
      alarmDescription:
        'A batch of the legs table stream failed every retry of the change consumer and was sent to the on-failure queue: its changes are missing from the change feed until replayed. See docs/deploy.md, section The change log.',
      metric: this.failures.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: Duration.minutes(5) }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
  }

  /** The on-failure alarm notifies `topic` (the alarm topic, made after the functions it watches). */
  alarmTo(topic: ITopic): this {
    notifyTopic(topic, this.failureAlarm);
    return this;
  }

  /** The mapping of a function (tests, docs). */
  static mappingOf(fn: ServiceFunction): CfnEventSourceMapping | undefined {
    return fn.function.node.findAll().find((c): c is CfnEventSourceMapping => c.constructor.name === 'CfnEventSourceMapping');
  }
}
