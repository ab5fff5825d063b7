import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { constructIdOf, FUNCTIONS, SCHEDULED_FUNCTION_NAMES, type FunctionName, type FunctionSpec } from '../../src/function-table.js';
import { RATES_METRICS, SWEEP_METRICS } from '../../src/metrics.js';
import { ECB_DAILY_URL } from '../../src/config.js';
import { ENV, ServiceFunction, type ServiceFunctionProps } from './service-function.js';

/** What every function of the stack shares (the stack's `common`), and the legs table. */
export interface ScheduledFunctionsProps extends Pick<ServiceFunctionProps, 'stage' | 'logLevel' | 'logRetention' | 'removalPolicy'> {
  readonly samLocal: boolean;
  readonly legsTable: ITable;
  /** The rates fetch's address (RATES_URL; the CDK context `ratesUrl`); undefined: the ECB's daily file. */
  readonly ratesUrl?: string;
  /** The rates' age alarm's name prefix (the stack's name). */
  readonly alarmNamePrefix: string;
}

/** The rates in force are older than this many whole days: the rates alarm (docs/rates.md, "On AWS"). */
export const RATES_MAX_AGE_DAYS = 4;

/**
 * The functions of src/routes.ts with `invokedBy: 'schedule'` (the legs' retirement, the listing
 * snapshot's build, the rates fetch: docs/deploy.md): each with its grants and an EventBridge rule
 * invoking it every `scheduleMinutes` or at `scheduleCron`. Their Errors and Throttles alarms are
 * made by Operations, like the API's; the rates' age alarm here.
 */
export class ScheduledFunctions extends Construct {
  readonly functions: Partial<Record<FunctionName, ServiceFunction>> = {};
  readonly rules: Partial<Record<FunctionName, Rule>> = {};
  /** In ALARM once the rates in force are older than RATES_MAX_AGE_DAYS (or no fetch ran for a day). */
  readonly ratesStaleAlarm: Alarm;
  /** A registered source is stale (docs/sources.md, "Stale sources"): its legs are out of the listing. */
  readonly sourcesStaleAlarm: Alarm;

  constructor(scope: Construct, id: string, props: ScheduledFunctionsProps) {
    super(scope, id);
    for (const name of SCHEDULED_FUNCTION_NAMES) {
      const spec: FunctionSpec = FUNCTIONS[name];
      const { legsTable: _table, ratesUrl, alarmNamePrefix: _prefix, ...common } = props;
      const environment = spec.environment.includes('RATES_URL') ? { [ENV.ratesUrl]: ratesUrl ?? ECB_DAILY_URL } : undefined;
      const fn = new ServiceFunction(this, constructIdOf(name), { ...common, name, ...(environment ? { environment } : {}) }).grant(spec.access, { legs: props.legsTable });
      this.functions[name] = fn;
      const cron = spec.scheduleCron;
      if (spec.scheduleMinutes === undefined && cron === undefined) throw new Error(`${name}: a scheduled function needs scheduleMinutes or scheduleCron (src/function-table.ts)`);
      this.rules[name] = new Rule(this, `${constructIdOf(name)}Schedule`, {
        description: cron
          ? `${spec.description} (cron ${cron.minute} ${cron.hour} ? * ${cron.weekDay} *, UTC)`
          : `${spec.description} (every ${spec.scheduleMinutes === 1 ? 'minute' : `${spec.scheduleMinutes} minutes`})`,
        schedule: cron ? Schedule.cron({ minute: cron.minute, hour: cron.hour, weekDay: cron.weekDay }) : Schedule.rate(Duration.minutes(spec.scheduleMinutes!)),
        // One attempt more at most: the next run does whatever a failed one left.
        targets: [new LambdaFunction(fn.function, { retryAttempts: 1, maxEventAge: Duration.minutes(cron ? 30 : spec.scheduleMinutes!) })],
      });
    }
    const m = RATES_METRICS;
    this.ratesStaleAlarm = new Alarm(this, 'RatesStale', {
      alarmName: `${props.alarmNamePrefix}-RatesStale`,
      alarmDescription: `The reference rates in force are older than ${RATES_MAX_AGE_DAYS} days: the scheduled fetch has failed since (its logs say why; docs/rates.md)`,
      metric: new Metric({ namespace: m.namespace, metricName: m.ageDays, dimensionsMap: { [m.dimension]: props.stage }, statistic: 'Maximum', period: Duration.hours(6) }),
      threshold: RATES_MAX_AGE_DAYS,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      // No run on weekends: no data is no news (the function's Errors alarm covers runs that fail).
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const w = SWEEP_METRICS;
    this.sourcesStaleAlarm = new Alarm(this, 'SourcesStale', {
      alarmName: `${props.alarmNamePrefix}-SourcesStale`,
      alarmDescription: `A registered source is stale: its last load is older than its --stale-after, and its legs are out of the listing (the ${w.sourceStale} metric names it, dimension ${w.source}; docs/sources.md)`,
      metric: new Metric({ namespace: w.namespace, metricName: w.staleSources, dimensionsMap: { [w.dimension]: props.stage }, statistic: 'Maximum', period: Duration.minutes(5) }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      // The sweep runs every minute: no data is a sweep that fails, which its Errors alarm covers.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
