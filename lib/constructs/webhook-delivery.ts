import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { ComparisonOperator, type Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { incidentAlarm, notifyTopic } from './alarms.js';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Stage } from '../../src/config.js';
import { FUNCTIONS } from '../../src/function-table.js';
import { acknowledge } from '../nag.js';
import type { LogLevel } from '../stage-config.js';
import { ENV, ServiceFunction } from './service-function.js';

export interface WebhookDeliveryProps {
  readonly stage: Stage;
  readonly logLevel: LogLevel;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  readonly samLocal: boolean;
  readonly watchesTable: ITable;
  readonly deliveriesTable: ITable;
  /** Which clients have a key (`keys:clients`): a client without one gets no delivery. */
  readonly keysTable: ITable;
  /** The enquiries' events ride the shared queue: their receivers' secrets (src/enquiries/events/). */
  readonly enquiriesTable: ITable;
  readonly legsTable: ITable;
  readonly alarmNamePrefix: string;
  /** The delivery function's reserved concurrency: its ceiling (docs/deploy.md, "Concurrency"). */
  readonly reservedConcurrency: number;
  /** The queue's event source's `maximumConcurrency` (2-1000): at most `reservedConcurrency`, so SQS never meets a throttled function. */
  readonly maximumConcurrency: number;
  /** The slow lane's function's reserved concurrency, also its queue's `maximumConcurrency` (2, SQS's least). */
  readonly slowLaneConcurrency: number;
}

/** Receives after which a message that keeps failing (not a failed attempt: a failing worker) is dead-lettered. */
export const MAX_RECEIVES = 5;

/**
 * The webhook queue (docs/watches.md, "On AWS"): SQS between matching and delivery, its dead-letter
 * queue with an alarm, and the delivery function on it (batches of 10, failures reported per message).
 * Retries are new messages delayed by the schedule (at most 15 minutes each, in hops beyond).
 */
export class WebhookDelivery extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly deliver: ServiceFunction;
  readonly deadLetterAlarm: Alarm;
  readonly errorsAlarm: Alarm;
  /** The slow lane (docs/watches.md, "The slow lane"): its queue, dead letters, capped function and alarms. */
  readonly slowQueue: Queue;
  readonly slowDeadLetters: Queue;
  readonly deliverSlow: ServiceFunction;
  readonly slowAlarms: Alarm[];

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    if (props.maximumConcurrency < 2 || props.maximumConcurrency > props.reservedConcurrency) {
      throw new Error(`${this.node.path}: maximumConcurrency ${props.maximumConcurrency} must be 2 to the delivery function's reserved concurrency, ${props.reservedConcurrency}`);
    }
    if (props.slowLaneConcurrency < 2) throw new Error(`${this.node.path}: slowLaneConcurrency ${props.slowLaneConcurrency} must be at least 2 (SQS's least maximumConcurrency)`);
    [this.queue, this.deadLetters] = this.queueWithDeadLetters('', props.removalPolicy);
    [this.slowQueue, this.slowDeadLetters] = this.queueWithDeadLetters('Slow', props.removalPolicy);

    this.deliver = new ServiceFunction(this, 'DeliverWebhooks', {
      name: 'deliverWebhooks',
      stage: props.stage,
      logLevel: props.logLevel,
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      samLocal: props.samLocal,
      reservedConcurrency: props.reservedConcurrency,
      environment: { [ENV.webhookQueueUrl]: this.queue.queueUrl, [ENV.webhookSlowQueueUrl]: this.slowQueue.queueUrl },
    }).grant(FUNCTIONS.deliverWebhooks.access, { watches: props.watchesTable, deliveries: props.deliveriesTable, keys: props.keysTable, enquiries: props.enquiriesTable, legs: props.legsTable });
    // The retries: new messages on the same queue; a slow watch's deliveries: forwarded to the slow lane's.
    this.queue.grantSendMessages(this.deliver.function);
    this.slowQueue.grantSendMessages(this.deliver.function);
    this.deliver.function.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: props.maximumConcurrency }));

    this.deliverSlow = new ServiceFunction(this, 'DeliverSlowWebhooks', {
      name: 'deliverSlowWebhooks',
      stage: props.stage,
      logLevel: props.logLevel,
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      samLocal: props.samLocal,
      reservedConcurrency: props.slowLaneConcurrency,
      environment: { [ENV.webhookSlowQueueUrl]: this.slowQueue.queueUrl },
    }).grant(FUNCTIONS.deliverSlowWebhooks.access, { watches: props.watchesTable, deliveries: props.deliveriesTable, keys: props.keysTable });
    this.slowQueue.grantSendMessages(this.deliverSlow.function);
    this.deliverSlow.function.addEventSource(new SqsEventSource(this.slowQueue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: props.slowLaneConcurrency }));

    this.deadLetterAlarm = incidentAlarm(this, 'DeadLettersAlarm', {
      alarmName: `${props.alarmNamePrefix}-WebhookDeadLetters`,
      alarmDescription: 'A webhook message failed to be processed 5 times (the worker, not the receiver, failed): see docs/watches.md, "Dead letters"',
      metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    this.errorsAlarm = incidentAlarm(this, 'DeliverFunctionErrors', {
      alarmName: `${props.alarmNamePrefix}-DeliverWebhooksErrors`,
      alarmDescription: 'The webhook delivery function failed (not a receiver: the function itself)',
      metric: this.deliver.function.metricErrors({ period: Duration.minutes(5) }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    this.slowAlarms = [
      incidentAlarm(this, 'SlowDeadLettersAlarm', {
        alarmName: `${props.alarmNamePrefix}-WebhookSlowDeadLetters`,
        alarmDescription: 'A slow-lane webhook message failed to be processed 5 times (the worker, not the receiver, failed): see docs/watches.md, "The slow lane"',
        metric: this.slowDeadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      }),
      incidentAlarm(this, 'DeliverSlowFunctionErrors', {
        alarmName: `${props.alarmNamePrefix}-DeliverSlowWebhooksErrors`,
        alarmDescription: 'The slow lane\'s delivery function failed (not a receiver: the function itself)',
        metric: this.deliverSlow.function.metricErrors({ period: Duration.minutes(5) }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      }),
    ];
  }

  /** A lane's queue (`''` the shared, `'Slow'`) and its dead-letter queue (14 days). */
  private queueWithDeadLetters(prefix: '' | 'Slow', removalPolicy: RemovalPolicy): [Queue, Queue] {
    const deadLetters = new Queue(this, `${prefix}DeadLetters`, { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14), removalPolicy });
    acknowledge(deadLetters, { id: 'AwsSolutions-SQS3', reason: `This is the dead-letter queue of the webhook${prefix === '' ? '' : ' slow lane'} queue; it has none of its own.` });
    const queue = new Queue(this, `${prefix}Queue`, {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the function's timeout, as Lambda's SQS event source asks.
      visibilityTimeout: Duration.seconds(6 * FUNCTIONS.deliverWebhooks.timeoutSeconds),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: MAX_RECEIVES },
      removalPolicy,
    });
    return [queue, deadLetters];
  }

  /** The alarms notify `topic` (the alarm topic, made after the change consumer that sends to this queue). */
  alarmTo(topic: ITopic): this {
    notifyTopic(topic, this.deadLetterAlarm, this.errorsAlarm, ...this.slowAlarms);
    return this;
  }
}
