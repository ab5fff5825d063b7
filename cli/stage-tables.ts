import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { Stage } from '../src/config.js';
import { STACK_OUTPUTS, stackName } from '../src/deployment.js';

/**
 * For the commands' `--aws --stage S`: the table names of a deployed stage, read from the outputs
 * of the CloudFormation stack `EmptyLegs-<stage>` (outputs `LegsTableName`, `KeysTableName`).
 */
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
