import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { AwsEnvironment } from '../config.js';

/**
 * The one place that constructs DynamoDB Streams clients. Only the local stream poller
 * (local/stream-poller.ts: `npm start` and the tests feed the change consumer from DynamoDB Local's
 * stream) uses one; on AWS the event source mapping reads the stream and invokes the function.
 */
export function createStreamsClient(options: { endpoint: string } & Partial<AwsEnvironment>): DynamoDBStreamsClient {
  const local = !options.credentialsInEnvironment;
  return new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: options.region ?? 'us-east-1',
    maxAttempts: 3,
    ...(local ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
}
