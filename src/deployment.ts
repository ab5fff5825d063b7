import type { Stage } from './config.js';

/**
 * Names that tie a deployed stage to the tools that use it: the CloudFormation stack of a stage and
 * the outputs the commands' `--aws --stage S` read the table names from (cli/stage-tables.ts).
 */
export const STACK_OUTPUTS = {
  apiUrl: 'ApiUrl',
  legsTableName: 'LegsTableName',
  keysTableName: 'KeysTableName',
} as const;

export function stackName(stage: Stage): string {
  return `EmptyLegs-${stage}`;
}

/** The stage's web ACL stack, in us-east-1 (lib/constructs/edge.ts). */
export function edgeStackName(stage: Stage): string {
  return `${stackName(stage)}-Edge`;
}
