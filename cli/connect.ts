import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../src/aws/dynamodb.js';
import { isUnreachable } from '../src/aws/unavailable.js';
import { CommandError, oneLine } from './command.js';
import { resolveStageTables } from './stage-tables.js';
import { parseStage, readConfig, type AwsEnvironment, type Config, type Stage } from '../src/config.js';
import { ensureTables } from '../local/dynamodb-local.js';

/**
 * Where the commands (`keys`, `legs:load`) find their tables: DynamoDB Local by default (the tables
 * are created when missing), or a deployed stage with `--aws --stage S`. A failure is a
 * CommandError (exit 1) whose message is the one line the command prints.
 */
export interface CommandTables {
  client: DynamoDBDocumentClient;
  legsTableName: string;
  keysTableName: string;
  /** The DynamoDB Local endpoint; undefined on AWS. */
  localEndpoint: string | undefined;
}

export async function openLocalTables(config: Config): Promise<CommandTables> {
  const endpoint = config.dynamodbEndpoint ?? `http://127.0.0.1:${config.dynamodbPort}`;
  const client = createDocumentClient({ endpoint, region: 'local', credentialsInEnvironment: config.aws.credentialsInEnvironment, maxAttempts: 2 });
  try {
    await ensureTables(client, config);
  } catch (err) {
    client.destroy();
    if (isUnreachable(err)) {
      throw CommandError.failure(`DynamoDB Local is not reachable at ${endpoint}: start it with \`npm start\` (or set DYNAMODB_ENDPOINT)`);
    }
    throw CommandError.failure(`DynamoDB at ${endpoint}: ${oneLine(err)}`, err);
  }
  return { client, legsTableName: config.legsTableName, keysTableName: config.keysTableName, localEndpoint: endpoint };
}

/** `aws`: the region and credentials of the environment (`Config.aws`). */
export async function openStageTables(stage: Stage, aws: AwsEnvironment): Promise<CommandTables> {
  let tables: { legsTableName: string; keysTableName: string };
  try {
    tables = await resolveStageTables(stage);
  } catch (err) {
    throw CommandError.failure(`AWS (stage ${stage}): ${oneLine(err)}`, err);
  }
  return { client: createDocumentClient({ ...aws, endpoint: undefined }), ...tables, localEndpoint: undefined };
}

/**
 * The tables a command's `--aws` and `--stage` flags name (`--stage` only with `--aws`: a usage
 * error), with the configuration read from the environment.
 */
export async function openFlaggedTables(flags: { aws?: boolean | undefined; stage?: string | undefined }): Promise<{ config: Config; tables: CommandTables }> {
  if (flags.stage !== undefined && !flags.aws) throw CommandError.usage('--stage', 'only applies with --aws (the local tables have no stage)');
  const config = readConfig(process.env, { defaultToLocal: true });
  const stage = flags.stage !== undefined ? parseStage('--stage', flags.stage) : config.stage;
  try {
    return { config, tables: flags.aws ? await openStageTables(stage, config.aws) : await openLocalTables(config) };
  } catch (err) {
    throw err instanceof CommandError ? err : CommandError.failure(oneLine(err), err);
  }
}
