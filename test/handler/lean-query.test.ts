import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { withDeadline } from '../../src/aws/deadline.js';
import { LeanQueryCommand } from '../../src/aws/lean-query.js';
import { isUnavailable } from '../../src/aws/unavailable.js';
import { FUNCTION_DYNAMODB_BUDGET } from '../../src/time-budget.js';
import { startCapturingPeer, type Captured, type CapturingPeer } from '../support/capturing-peer.js';
import { startStalledPeer } from '../support/stalled-peer.js';
import { withEnv } from '../support/environment.js';

/**
 * LeanQueryCommand with the functions' real client against a local HTTP peer that answers as
 * DynamoDB does (scripted answers, one per request): what it sends (the same JSON the SDK sends,
 * signed), what it gives back, and how it fails and retries, next to the SDK's own QueryCommand.
 */
let peer: CapturingPeer;
let endpoint = '';

beforeAll(async () => {
  peer = await startCapturingPeer();
  endpoint = peer.endpoint;
});

afterAll(() => peer.close());

afterEach(() => peer.reset());

const input: QueryCommandInput = {
  TableName: 'legs',
  IndexName: 'byDepartureBucket',
  KeyConditionExpression: '#b = :b AND #s >= :lo',
  ExpressionAttributeNames: { '#b': 'lb', '#s': 'ls' },
  ExpressionAttributeValues: { ':b': '2027-01', ':lo': '2027-01-05' },
  ProjectionExpression: 'id, #s',
  ExclusiveStartKey: { id: 'EL-7', lb: '2027-01', ls: '2027-01-09#EL-7' },
  ReturnConsumedCapacity: 'TOTAL',
};

const page = JSON.stringify({
  Items: [{ id: { S: 'EL-8' }, ls: { S: '2027-01-10#EL-8' } }],
  Count: 1,
  ScannedCount: 1,
  LastEvaluatedKey: { id: { S: 'EL-8' }, lb: { S: '2027-01' }, ls: { S: '2027-01-10#EL-8' } },
  ConsumedCapacity: { TableName: 'legs', CapacityUnits: 0.5 },
});

/** The access key id and region a request was signed with. */
function signedWith(request: Captured): { accessKeyId: string; region: string } {
  const [, accessKeyId = '', region = ''] = /Credential=([^/]+)\/\d{8}\/([^/]+)\//.exec(String(request.headers.authorization)) ?? [];
  return { accessKeyId, region };
}

const error = (type: string, message = 'no') => JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message });

describe('LeanQueryCommand against an HTTP peer', () => {
  // The functions' client, with their budget, in a region of its own to see in the signature.
  let client: ReturnType<typeof createDocumentClient>;
  beforeAll(() => {
    client = createDocumentClient({ endpoint, region: 'eu-west-1', budget: FUNCTION_DYNAMODB_BUDGET });
  });
  afterAll(() => client.destroy());

  it('sends the same request the SDK sends, signed for DynamoDB in the client region', async () => {
    await client.send(new QueryCommand(input));
    await client.send(new LeanQueryCommand(input, (body) => body));
    const [sdk, lean] = peer.seen;
    expect(JSON.parse(lean!.body.toString())).toEqual(JSON.parse(sdk!.body.toString()));
    for (const name of ['x-amz-target', 'content-type', 'host']) expect(lean!.headers[name]).toBe(sdk!.headers[name]);
    const authorization = /^AWS4-HMAC-SHA256 Credential=\w+\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/.exec(
      String(lean!.headers.authorization),
    );
    expect(authorization?.[1]?.split(';')).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-target', 'content-type']));
  });

  it("carries the Lambda invocation's trace id as the SDK's own request does, and none outside Lambda", async () => {
    const trace = 'Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=1';
    await withEnv({ AWS_LAMBDA_FUNCTION_NAME: 'list-empty-legs', _X_AMZN_TRACE_ID: trace }, async () => {
      await client.send(new QueryCommand(input));
      await client.send(new LeanQueryCommand(input, (body) => body));
    });
    await withEnv({ AWS_LAMBDA_FUNCTION_NAME: undefined, _X_AMZN_TRACE_ID: trace }, () => client.send(new LeanQueryCommand(input, (body) => body)));
    const [sdk, lean, outside] = peer.seen;
    expect(sdk!.headers['x-amzn-trace-id']).toBe(trace);
    expect(lean!.headers['x-amzn-trace-id']).toBe(trace);
    expect(outside!.headers).not.toHaveProperty('x-amzn-trace-id');
  });

  it('hands the body to the reader once and returns what the reader left, unmarshalled', async () => {
    peer.answers = [{ status: 200, body: page }];
    const bodies: string[] = [];
    const out = await client.send(
      new LeanQueryCommand(input, (body) => {
        bodies.push(body);
        return JSON.stringify({ ...(JSON.parse(body) as object), Items: [] });
      }),
    );
    expect(bodies).toEqual([page]);
    expect(out).toMatchObject({
      Items: [],
      Count: 1,
      ScannedCount: 1,
      LastEvaluatedKey: { id: 'EL-8', lb: '2027-01', ls: '2027-01-10#EL-8' },
      ConsumedCapacity: { CapacityUnits: 0.5 },
      $metadata: { httpStatusCode: 200, requestId: 'req-1', attempts: 1 },
    });
    // Items the reader leaves come back as the document client gives them.
    peer.answers = [{ status: 200, body: page }];
    const kept = await client.send(new LeanQueryCommand(input, (body) => body));
    expect(kept.Items).toEqual([{ id: 'EL-8', ls: '2027-01-10#EL-8' }]);
  });

  it('raises an error response as the SDK does (name, fault, status), once, without calling the reader', async () => {
    peer.answers = [{ status: 400, body: error('ResourceNotFoundException', 'Requested resource not found') }];
    const sdkError = await client.send(new QueryCommand(input)).catch((e: unknown) => e);
    peer.answers = [{ status: 400, body: error('ResourceNotFoundException', 'Requested resource not found') }];
    let reads = 0;
    const leanError = await client.send(new LeanQueryCommand(input, (body) => (reads++, body))).catch((e: unknown) => e);
    expect(reads).toBe(0);
    expect(peer.seen).toHaveLength(2);
    for (const e of [sdkError, leanError]) {
      expect(e).toMatchObject({
        name: 'ResourceNotFoundException',
        message: 'Requested resource not found',
        $fault: 'client',
        $metadata: { httpStatusCode: 400, attempts: 1 },
      });
    }
    expect(isUnavailable(leanError)).toBe(false);
  });

  it('retries what the SDK retries: a server error, then succeeds', async () => {
    peer.answers = [{ status: 500, body: error('InternalServerError') }, { status: 200, body: page }];
    let reads = 0;
    const out = await client.send(new LeanQueryCommand(input, (body) => (reads++, body)));
    expect(peer.seen).toHaveLength(2);
    expect(reads).toBe(1);
    expect(out.$metadata.attempts).toBe(2);
  });

  it.each([
    {
      what: 'throttling',
      answer: { status: 400, body: error('ProvisionedThroughputExceededException', 'slow down') },
      raised: { name: 'ProvisionedThroughputExceededException', $fault: 'client' },
    },
    {
      what: "a gateway's page that is not JSON (a server error)",
      answer: { status: 502, body: '<html>bad gateway</html>' },
      raised: { $fault: 'server', $metadata: { httpStatusCode: 502 } },
    },
  ])('retries $what up to the budget attempts, then raises an error the envelope answers 503 for', async ({ answer, raised }) => {
    peer.answers = Array.from({ length: 5 }, () => answer);
    const e = await client.send(new LeanQueryCommand(input, (body) => body)).catch((err: unknown) => err);
    expect(peer.seen).toHaveLength(FUNCTION_DYNAMODB_BUDGET.maxAttempts);
    expect(e).toMatchObject({ ...raised, $metadata: { ...raised.$metadata, attempts: FUNCTION_DYNAMODB_BUDGET.maxAttempts } });
    expect(isUnavailable(e)).toBe(true);
  });
});

describe('createDocumentClient: the region and credentials it is given, never the environment (src/config.ts reads it)', () => {
  it.each([
    [{}, { accessKeyId: 'local', region: 'us-east-1' }],
    [{ region: 'ap-south-1' }, { accessKeyId: 'local', region: 'ap-south-1' }],
    [{ region: 'ap-south-1', credentialsInEnvironment: true }, { accessKeyId: 'from-the-environment', region: 'ap-south-1' }],
  ])('signs with %j: %j', async (given, expected) => {
    await withEnv({ AWS_REGION: 'eu-north-1', AWS_DEFAULT_REGION: 'eu-south-2', AWS_ACCESS_KEY_ID: 'from-the-environment' }, async () => {
      const client = createDocumentClient({ endpoint, ...given });
      try {
        await client.send(new QueryCommand(input));
      } finally {
        client.destroy();
      }
    });
    expect(peer.seen.map(signedWith)).toEqual([expected]);
  });
});

describe('LeanQueryCommand against a peer that never answers', () => {
  it('times out per attempt (TimeoutError) and stops at the budget, or at the invocation deadline', async () => {
    const peer = await startStalledPeer();
    const client = createDocumentClient({ endpoint: peer.endpoint, region: 'local', budget: FUNCTION_DYNAMODB_BUDGET });
    try {
      const { maxAttempts, requestTimeoutMs, maxBackoffMs } = FUNCTION_DYNAMODB_BUDGET;
      let started = performance.now();
      const e = await client.send(new LeanQueryCommand(input, (body) => body)).catch((err: unknown) => err);
      let ms = performance.now() - started;
      expect(e).toMatchObject({ name: 'TimeoutError', $metadata: { attempts: maxAttempts } });
      expect(ms).toBeGreaterThanOrEqual(maxAttempts * requestTimeoutMs - 50);
      expect(ms).toBeLessThan(maxAttempts * requestTimeoutMs + (maxAttempts - 1) * maxBackoffMs + 2_500);
      expect(isUnavailable(e)).toBe(true);

      started = performance.now();
      const aborted = await withDeadline(200, () => client.send(new LeanQueryCommand(input, (body) => body))).catch((err: unknown) => err);
      ms = performance.now() - started;
      expect(isUnavailable(aborted)).toBe(true);
      expect(ms).toBeLessThan(requestTimeoutMs);
    } finally {
      client.destroy();
      await peer.close();
    }
  });
});

describe('LeanQueryCommand with a mocked client', () => {
  it('is a QueryCommand to aws-sdk-client-mock: matched, recorded, answered with its Items', async () => {
    const ddb = mockClient(DynamoDBDocumentClient);
    try {
      ddb.on(QueryCommand).resolves({ Items: [{ id: 'EL-1' }], Count: 1 });
      const client = createDocumentClient({ endpoint, region: 'local' });
      let reads = 0;
      const out = await client.send(new LeanQueryCommand(input, (body) => (reads++, body)));
      expect(out.Items).toEqual([{ id: 'EL-1' }]);
      expect(reads).toBe(0);
      expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toEqual(input);
      expect(peer.seen).toHaveLength(0);
    } finally {
      ddb.restore();
    }
  });
});
