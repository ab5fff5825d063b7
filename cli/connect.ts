import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../src/aws/dynamodb.js';
import { resolveStageTables } from './stage-tables.js';
import type { Config, Stage } from '../src/config.js';
import { ensureTables } from '../local/dynamodb-local.js';

/**
 * Where the commands (`keys`, `legs:load`) find their tables: DynamoDB Local by default (the tables
 * are created when missing), or a deployed stage with `--aws --stage S`. A failure is an Error
 * whose message is the one line the command prints.
 */
export interface CommandTables {
  client: DynamoDBDocumentClient;
  legsTableName: string;
  keysTableName: string;
  /** The DynamoDB Local endpoint; undefined on AWS. */
  localEndpoint: string | undefined;
}

/** One line, whatever the SDK put in its message. */
export function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message || err.name : String(err);
  return text.replace(/\s+/g, ' ').trim();
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN']);

/** True when `err` says the endpoint did not answer (as opposed to an answer that is an error). */
export function isConnectionError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code && CONNECTION_CODES.has(code)) return true;
    if (e.name === 'TimeoutError' || e.name === 'RequestTimeout') return true;
    if (e instanceof AggregateError && e.errors.some((inner) => isConnectionError(inner))) return true;
    e = e.cause;
  }
  return false;
}

export async function openLocalTables(config: Config): Promise<CommandTables> {
  const endpoint = config.dynamodbEndpoint ?? `http://127.0.0.1:${config.dynamodbPort}`;
  const client = createDocumentClient({ endpoint, region: 'local', maxAttempts: 2 });
  try {
    await ensureTables(client, config);
  } catch (err) {
    client.destroy();
    if (isConnectionError(err)) {
      throw new Error(`DynamoDB Local is not reachable at ${endpoint}: start it with \`npm start\` (or set DYNAMODB_ENDPOINT)`);
    }
    throw new Error(`DynamoDB at ${endpoint}: ${oneLine(err)}`);
  }
  return { client, legsTableName: config.legsTableName, keysTableName: config.keysTableName, localEndpoint: endpoint };
}

export async function openStageTables(stage: Stage): Promise<CommandTables> {
  let tables: { legsTableName: string; keysTableName: string };
  try {
    tables = await resolveStageTables(stage);
  } catch (err) {
    throw new Error(`AWS (stage ${stage}): ${oneLine(err)}`);
  }
  return { client: createDocumentClient({ endpoint: undefined }), ...tables, localEndpoint: undefined };
}
