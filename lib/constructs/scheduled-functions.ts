import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Stage } from '../../src/config.js';
import { constructIdOf, FUNCTIONS, SCHEDULED_FUNCTION_NAMES, type FunctionName, type FunctionSpec } from '../../src/routes.js';
import type { LogLevel } from '../stage-config.js';
import { ServiceFunction } from './service-function.js';

export interface ScheduledFunctionsProps {
  readonly stage: Stage;
  readonly logLevel: LogLevel;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  readonly samLocal: boolean;
  readonly legsTable: ITable;
}

/**
 * The functions of src/routes.ts with `invokedBy: 'schedule'` (the legs' retirement: docs/deploy.md,
 * "History and retention"): each with its grants and an EventBridge rule invoking it every
 * `scheduleMinutes`. Their Errors and Throttles alarms are made by Operations, like the API's.
 */
export class ScheduledFunctions extends Construct {
  readonly functions: Partial<Record<FunctionName, ServiceFunction>> = {};
  readonly rules: Partial<Record<FunctionName, Rule>> = {};

  constructor(scope: Construct, id: string, props: ScheduledFunctionsProps) {
    super(scope, id);
    for (const name of SCHEDULED_FUNCTION_NAMES) {
      const spec: FunctionSpec = FUNCTIONS[name];
      if (spec.scheduleMinutes === undefined) throw new Error(`${name}: a scheduled function needs scheduleMinutes (src/routes.ts)`);
      const fn = new ServiceFunction(this, constructIdOf(name), {
        name,
        stage: props.stage,
        logLevel: props.logLevel,
        logRetention: props.logRetention,
        removalPolicy: props.removalPolicy,
        samLocal: props.samLocal,
      }).grant(spec.access, { legs: props.legsTable });
      this.functions[name] = fn;
      this.rules[name] = new Rule(this, `${constructIdOf(name)}Schedule`, {
        description: `${spec.description} (every ${spec.scheduleMinutes} minutes)`,
        schedule: Schedule.rate(Duration.minutes(spec.scheduleMinutes)),
        // One attempt more at most: the next run does whatever a failed one left.
        targets: [new LambdaFunction(fn.function, { retryAttempts: 1, maxEventAge: Duration.minutes(spec.scheduleMinutes) })],
      });
    }
  }
}
