import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { constructIdOf, FUNCTIONS, SCHEDULED_FUNCTION_NAMES, type FunctionName, type FunctionSpec } from '../../src/function-table.js';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.js';

/** What every function of the stack shares (the stack's `common`), and the legs table. */
export interface ScheduledFunctionsProps extends Pick<ServiceFunctionProps, 'stage' | 'logLevel' | 'logRetention' | 'removalPolicy'> {
  readonly samLocal: boolean;
  readonly legsTable: ITable;
}

/**
 * The functions of src/routes.ts with `invokedBy: 'schedule'` (the legs' retirement and the listing
 * snapshot's build: docs/deploy.md, "History and retention" and "The listing snapshot"): each with
 * its grants and an EventBridge rule invoking it every `scheduleMinutes`. Their Errors and Throttles
 * alarms are made by Operations, like the API's.
 */
export class ScheduledFunctions extends Construct {
  readonly functions: Partial<Record<FunctionName, ServiceFunction>> = {};
  readonly rules: Partial<Record<FunctionName, Rule>> = {};

  constructor(scope: Construct, id: string, props: ScheduledFunctionsProps) {
    super(scope, id);
    for (const name of SCHEDULED_FUNCTION_NAMES) {
      const spec: FunctionSpec = FUNCTIONS[name];
      if (spec.scheduleMinutes === undefined) throw new Error(`${name}: a scheduled function needs scheduleMinutes (src/routes.ts)`);
      const { legsTable: _table, ...common } = props;
      const fn = new ServiceFunction(this, constructIdOf(name), { ...common, name }).grant(spec.access, { legs: props.legsTable });
      this.functions[name] = fn;
      this.rules[name] = new Rule(this, `${constructIdOf(name)}Schedule`, {
        description: `${spec.description} (every ${spec.scheduleMinutes === 1 ? 'minute' : `${spec.scheduleMinutes} minutes`})`,
        schedule: Schedule.rate(Duration.minutes(spec.scheduleMinutes)),
        // One attempt more at most: the next run does whatever a failed one left.
        targets: [new LambdaFunction(fn.function, { retryAttempts: 1, maxEventAge: Duration.minutes(spec.scheduleMinutes) })],
      });
    }
  }
}
