import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { Stage } from '../config.js';

/**
 * For the commands' `--aws --stage S`: the table names of a deployed stage, read from the outputs
 * of the CloudFormation stack `EmptyLegs-<stage>` (outputs `LegsTableName`, `KeysTableName`).
 */
export const STACK_OUTPUTS = {
  apiUrl: 'ApiUrl',
  legsTableName: 'LegsTableName',
  keysTableName: 'KeysTableName',
} as const;

export function stackName(stage: Stage): string {
  return `EmptyLegs-${stage}`;
}

export async function resolveStageTables(
  stage: Stage,
): Promise<{ legsTableName: string; keysTableName: string }> {
  const cfn = new CloudFormationClient({});
  try {
    const out = await cfn.send(new DescribeStacksCommand({ StackName: stackName(stage) }));
    const outputs = out.Stacks?.[0]?.Outputs ?? [];
    const get = (key: string): string => {
      const value = outputs.find((o) => o.OutputKey === key)?.OutputValue;
      if (!value) throw new Error(`Stack ${stackName(stage)} has no output ${key}: is the stage deployed?`);
      return value;
    };
    return { legsTableName: get(STACK_OUTPUTS.legsTableName), keysTableName: get(STACK_OUTPUTS.keysTableName) };
  } finally {
    cfn.destroy();
  }
}
