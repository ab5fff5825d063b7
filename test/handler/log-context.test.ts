import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { lambdaContext } from '../../local/lambda-context.js';
import { generateKey } from '../../src/keys/format.js';
import { createNotFoundHandler } from '../../src/http/not-found.js';
import { logger } from '../../src/logger.js';
import { authorizerEvent, listEvent } from '../support/events.js';
import { buildAuthorizerHandler, buildListHandler } from '../support/handlers.js';

/**
 * The Lambda context in the functions' log lines (Powertools' injectLambdaContext on the HTTP
 * functions' middy chain, logger.addContext in the authorizer), next to the request's trace id and
 * API Gateway's request id, with keys redacted. The lines are the logger's real output.
 */
const ddb = mockClient(DynamoDBDocumentClient);

type Line = Record<string, unknown>;

async function captureLines(run: () => Promise<unknown>): Promise<Line[]> {
  const chunks: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  };
  jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  // Tests run with POWERTOOLS_LOG_LEVEL=SILENT; injectLambdaContext puts a warm container back to
  // that initial level at each invocation (its debug sampling refresh), so keep INFO for this one.
  jest.spyOn(logger, 'refreshSampleRateCalculation').mockImplementation(() => undefined);
  const level = logger.getLevelName();
  logger.setLogLevel('INFO');
  try {
    await run();
  } finally {
    logger.setLogLevel(level);
    jest.restoreAllMocks();
  }
  return chunks
    .join('')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);
}

beforeEach(() => {
  ddb.reset();
  ddb.on(QueryCommand).resolves({ Items: [] });
  ddb.on(BatchGetCommand).resolves({ Responses: {} });
  ddb.on(GetCommand).resolves({});
});
afterEach(() => {
  jest.restoreAllMocks();
});

describe('Lambda context in the logs', () => {
  it('the list function: every line has the function, its request id as trace id, and the API request id', async () => {
    const { handler } = buildListHandler();
    const context = lambdaContext('list-empty-legs');
    const event = listEvent({ size: '3' });
    const lines = await captureLines(() => handler(event, context));
    expect(lines.map((l) => l.message)).toEqual(['request', 'response']);
    for (const line of lines) {
      expect(line).toMatchObject({
        function_name: 'list-empty-legs',
        function_arn: context.invokedFunctionArn,
        function_request_id: context.awsRequestId,
        traceId: context.awsRequestId,
        apiRequestId: event.requestContext.requestId,
      });
      expect(typeof line.cold_start).toBe('boolean');
    }
  });

  it('the request keys of one invocation do not leak into the next', async () => {
    const { handler } = buildListHandler();
    const first = lambdaContext('list-empty-legs');
    const second = lambdaContext('list-empty-legs');
    await captureLines(() => handler(listEvent({ size: '3' }), first));
    const lines = await captureLines(() => handler(listEvent(undefined, null), second));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatchObject({ traceId: second.awsRequestId, function_request_id: second.awsRequestId });
      expect(line).not.toHaveProperty('keyId');
    }
  });

  it('the not-found function logs its own context', async () => {
    const context = lambdaContext('not-found');
    const event = listEvent(undefined, null);
    const lines = await captureLines(() => createNotFoundHandler()(event, context));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatchObject({ function_name: 'not-found', traceId: context.awsRequestId });
  });

  it('the authorizer: the function, the trace id and the API request id, and never the key', async () => {
    const authorize = buildAuthorizerHandler();
    const context = lambdaContext('authorizer');
    const key = generateKey('test');
    const event = authorizerEvent(key);
    const lines = await captureLines(() => authorize(event, context));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatchObject({
        function_name: 'authorizer',
        function_request_id: context.awsRequestId,
        traceId: context.awsRequestId,
        apiRequestId: event.requestContext.requestId,
      });
    }
    expect(JSON.stringify(lines)).not.toContain(key.slice(9));
  });
});
