import { SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { AwsEnvironment } from '../config.js';

/** The one factory of SQS clients (the webhook queue): short timeouts that really end a stalled call. */
export function createSqsClient(aws: AwsEnvironment): SQSClient {
  return new SQSClient({
    region: aws.region,
    maxAttempts: 3,
    requestHandler: new NodeHttpHandler({ connectionTimeout: 2_000, requestTimeout: 5_000, throwOnRequestTimeout: true }),
  });
}
