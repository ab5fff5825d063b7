import { Alarm, TreatMissingData, type ComparisonOperator, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

export interface IncidentAlarmProps {
  readonly alarmName: string;
  readonly alarmDescription: string;
  readonly metric: IMetric;
  readonly threshold: number;
  readonly comparisonOperator: ComparisonOperator;
}

/** An alarm on a single period past `threshold`, missing data not breaching: a failure that happened. */
export function incidentAlarm(scope: Construct, id: string, props: IncidentAlarmProps): Alarm {
  return new Alarm(scope, id, { ...props, evaluationPeriods: 1, treatMissingData: TreatMissingData.NOT_BREACHING });
}

/** Sends the ALARM and OK transitions of `alarms` to `topic`. */
export function notifyTopic(topic: ITopic, ...alarms: Alarm[]): void {
  const action = new SnsAction(topic);
  for (const alarm of alarms) {
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
  }
}
