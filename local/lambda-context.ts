import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/**
 * The Lambda invocation context as the runtime gives it, for running handlers outside Lambda (the
 * local server, the benchmark, tests): a fresh UUID request id per invocation, a 10 s deadline.
 */
export function lambdaContext(functionName: string, timeoutMs = 10_000): Context {
  const deadline = performance.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - performance.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
