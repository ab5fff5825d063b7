import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { notifyTopic } from './alarms.js';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { TableDefinition } from '../../src/tables.js';
import type { AlarmThresholds } from '../stage-config.js';
import { RATE_LIMIT_METRICS, RETIRE_METRICS } from '../../src/metrics.js';

export interface MonitoredFunction {
  /** Alarm name part, e.g. `ListFunction`. */
  readonly name: string;
  readonly function: IFunction;
  /** Threshold of the function's Errors alarm. */
  readonly errorThreshold: number;
  /** Alarm name of the Errors alarm (default `<name>Errors`). */
  readonly errorsAlarmName?: string;
}

export interface MonitoredTable {
  readonly name: string;
  readonly table: Table;
  readonly definition: TableDefinition;
}

export interface OperationsProps {
  /** Prefix of every alarm name (the stack name). */
  readonly alarmNamePrefix: string;
  readonly thresholds: AlarmThresholds;
  readonly api: HttpApi;
  readonly functions: readonly MonitoredFunction[];
  readonly tables: readonly MonitoredTable[];
  readonly removalPolicy: RemovalPolicy;
  /** The stage: the dimension of the authorizer's usage-write metric. */
  readonly stage: string;
}

/**
 * The alarms of docs/deploy.md ("Alarms") and the SNS topic they notify. The topic is encrypted with
 * a customer-managed KMS key (rotation on) because CloudWatch cannot publish to a topic encrypted
 * with the AWS-managed `aws/sns` key: its key policy cannot be changed to let CloudWatch use it.
 */
export class Operations extends Construct {
  readonly topic: Topic;
  readonly key: Key;
  /** Every alarm, by its id (`Api5xxRate`, `ListFunctionErrors`, ...). */
  readonly alarms: Record<string, Alarm> = {};

  private readonly props: OperationsProps;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    this.props = props;
    const t = props.thresholds;

    this.key = new Key(this, 'AlarmTopicKey', {
      description: `Encrypts the alarm topic of ${props.alarmNamePrefix}`,
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
      pendingWindow: Duration.days(7),
    });
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToUseTheKey',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: `${props.alarmNamePrefix} alarms`,
      masterKey: this.key,
      enforceSSL: true,
    });

    // API: share of 5xx answers among all requests, in percent.
    const api = props.api;
    this.add(
      'Api5xxRate',
      new MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: {
          errors: api.metricServerError({ statistic: 'Sum', period: t.period }),
          requests: api.metricCount({ statistic: 'Sum', period: t.period }),
        },
        period: t.period,
        label: 'API 5xx rate (%)',
      }),
      t.api5xxRatePercent,
      ComparisonOperator.GREATER_THAN_THRESHOLD,
      'More than the threshold percentage of API requests ended in a 5xx (INTERNAL_ERROR, SERVICE_UNAVAILABLE or a gateway/integration failure).',
    );

    for (const f of props.functions) {
      this.add(
        f.errorsAlarmName ?? `${f.name}Errors`,
        f.function.metricErrors({ statistic: 'Sum', period: t.period }),
        f.errorThreshold,
        ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        `Invocations of ${f.name} failed (uncaught error, time-out or crash).`,
      );
      this.add(
        `${f.name}Throttles`,
        f.function.metricThrottles({ statistic: 'Sum', period: t.period }),
        t.functionThrottles,
        ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        `Invocations of ${f.name} were throttled (account or reserved concurrency reached).`,
      );
    }

    for (const tb of props.tables) {
      this.add(
        `${tb.name}Throttles`,
        this.tableThrottleEvents(tb),
        t.dynamoThrottles,
        ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        `Requests to the ${tb.name} DynamoDB table or its indexes were throttled.`,
      );
    }

    // The authorizer's failed writes of the usage counters (EMF, src/metrics.ts): rate limits are
    // then each container's local share, fail open.
    const m = RATE_LIMIT_METRICS;
    this.add(
      m.writeFailures,
      new Metric({ namespace: m.namespace, metricName: m.writeFailures, dimensionsMap: { [m.dimension]: props.stage }, statistic: 'Sum', period: t.period }),
      t.usageWriteFailures,
      ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      "The authorizer could not write the per-key usage counters: each container enforces only its last known share of a key's rate limit (fail open).",
    );

    // The legs' retirement (src/retirement/retire-legs.ts) left due legs behind in every hourly run for
    // six hours: more legs expire than a run's bound, or runs keep failing half way.
    const r = RETIRE_METRICS;
    this.add(
      r.behind,
      new Metric({ namespace: r.namespace, metricName: r.behind, dimensionsMap: { [r.dimension]: props.stage }, statistic: 'Minimum', period: Duration.hours(1) }),
      1,
      ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      'Every run of the legs retirement for six hours left due legs for the next one: expired legs stay in the listing index (they are never shown) and in the table longer than their retention.',
      { evaluationPeriods: 6, datapointsToAlarm: 6 },
    );
  }

  /** Read and write throttle events of the table and read throttle events of each of its indexes. */
  private tableThrottleEvents(tb: MonitoredTable): IMetric {
    const period = this.props.thresholds.period;
    const metric = (metricName: string, indexName?: string) =>
      new Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: {
          TableName: tb.table.tableName,
          ...(indexName ? { GlobalSecondaryIndexName: indexName } : {}),
        },
        statistic: 'Sum',
        period,
      });
    const usingMetrics: Record<string, IMetric> = {
      tableReads: metric('ReadThrottleEvents'),
      tableWrites: metric('WriteThrottleEvents'),
    };
    tb.definition.indexes.forEach((ix, i) => {
      usingMetrics[`index${i}Reads`] = metric('ReadThrottleEvents', ix.indexName);
    });
    return new MathExpression({
      expression: Object.keys(usingMetrics)
        .map((k) => `FILL(${k}, 0)`)
        .join(' + '),
      usingMetrics,
      period,
      label: `${tb.name} throttle events`,
    });
  }

  private add(
    id: string,
    metric: IMetric,
    threshold: number,
    comparisonOperator: ComparisonOperator,
    description: string,
    /** Default: the stage's evaluation periods, every one breaching. */
    periods?: { evaluationPeriods: number; datapointsToAlarm: number },
  ): void {
    const alarm = new Alarm(this, id, {
      alarmName: `${this.props.alarmNamePrefix}-${id}`,
      alarmDescription: `${description} See docs/deploy.md, section Alarms.`,
      metric,
      threshold,
      evaluationPeriods: periods?.evaluationPeriods ?? this.props.thresholds.evaluationPeriods,
      ...(periods ? { datapointsToAlarm: periods.datapointsToAlarm } : {}),
      comparisonOperator,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    notifyTopic(this.topic, alarm);
    this.alarms[id] = alarm;
  }
}
