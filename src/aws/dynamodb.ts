import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The one place that constructs DynamoDB clients: keep-alive, time-outs, retries, marshalling.
 * The functions' own client is created once per container, at module scope, in
 * src/aws/function-clients.ts; commands, the local server and tests call `createDocumentClient`.
 */
export interface DynamoDbClientOptions {
  /** Endpoint; undefined means real AWS. */
  endpoint: string | undefined;
  region?: string;
  maxAttempts?: number;
}

export function createDocumentClient(options: DynamoDbClientOptions): DynamoDBDocumentClient {
  const local = options.endpoint !== undefined && !process.env.AWS_ACCESS_KEY_ID;
  const client = new DynamoDBClient({
    endpoint: options.endpoint,
    region: options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
    maxAttempts: options.maxAttempts ?? 3,
    // DynamoDB Local accepts any credentials; real AWS uses the environment's.
    ...(local ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    requestHandler: {
      connectionTimeout: 1_000,
      requestTimeout: 3_000,
      httpAgent: { keepAlive: true },
      httpsAgent: { keepAlive: true },
    },
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
    unmarshallOptions: { wrapNumbers: false },
  });
}
