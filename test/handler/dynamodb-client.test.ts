import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { withDeadline } from '../../src/aws/deadline.js';
import { isUnavailable } from '../../src/aws/unavailable.js';
import { FUNCTION_DYNAMODB_BUDGET } from '../../src/time-budget.js';
import { startCapturingPeer, type Captured, type CapturingPeer } from '../support/capturing-peer.js';
import { startStalledPeer } from '../support/stalled-peer.js';
import { withEnv } from '../support/environment.js';

/**
 * The functions' client (src/aws/dynamodb.ts) with the SDK's own QueryCommand against a local HTTP
 * peer that answers as DynamoDB does (scripted answers, one per request): how it signs, retries
 * within the time budget (src/time-budget.ts) and fails.
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

describe('the functions\' client against an HTTP peer', () => {
  // The functions' client, with their budget, in a region of its own to see in the signature.
  let client: ReturnType<typeof createDocumentClient>;
  beforeAll(() => {
    client = createDocumentClient({ endpoint, region: 'eu-west-1', budget: FUNCTION_DYNAMODB_BUDGET });
  });
  afterAll(() => client.destroy());

  it('signs for DynamoDB in the client region and reads the page as the document client does', async () => {
    peer.answers = [{ status: 200, body: page }];
    const out = await client.send(new QueryCommand(input));
    const authorization = /^AWS4-HMAC-SHA256 Credential=\w+\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/.exec(
      String(peer.seen[0]!.headers.authorization),
    );
    expect(authorization?.[1]?.split(';')).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-target', 'content-type']));
    expect(out).toMatchObject({
      Items: [{ id: 'EL-8', ls: '2027-01-10#EL-8' }],
      Count: 1,
      LastEvaluatedKey: { id: 'EL-8', lb: '2027-01', ls: '2027-01-10#EL-8' },
      $metadata: { httpStatusCode: 200, attempts: 1 },
    });
  });

  it('raises a client error once, as one the envelope does not answer 503 for', async () => {
    peer.answers = [{ status: 400, body: error('ResourceNotFoundException', 'Requested resource not found') }];
    const e = await client.send(new QueryCommand(input)).catch((err: unknown) => err);
    expect(peer.seen).toHaveLength(1);
    expect(e).toMatchObject({ name: 'ResourceNotFoundException', $fault: 'client', $metadata: { httpStatusCode: 400, attempts: 1 } });
    expect(isUnavailable(e)).toBe(false);
  });

  it('retries a server error, then succeeds', async () => {
    peer.answers = [{ status: 500, body: error('InternalServerError') }, { status: 200, body: page }];
    const out = await client.send(new QueryCommand(input));
    expect(peer.seen).toHaveLength(2);
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
      raised: { $metadata: { httpStatusCode: 502 } },
    },
  ])('retries $what up to the budget attempts, then raises an error the envelope answers 503 for', async ({ answer, raised }) => {
    peer.answers = Array.from({ length: 5 }, () => answer);
    const e = await client.send(new QueryCommand(input)).catch((err: unknown) => err);
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

describe('the functions\' client against a peer that never answers', () => {
  it('times out per attempt (TimeoutError) and stops at the budget, or at the invocation deadline', async () => {
    const peer = await startStalledPeer();
    const client = createDocumentClient({ endpoint: peer.endpoint, region: 'local', budget: FUNCTION_DYNAMODB_BUDGET });
    try {
      const { maxAttempts, requestTimeoutMs, maxBackoffMs } = FUNCTION_DYNAMODB_BUDGET;
      let started = performance.now();
      const e = await client.send(new QueryCommand(input)).catch((err: unknown) => err);
      let ms = performance.now() - started;
      expect(e).toMatchObject({ name: 'TimeoutError', $metadata: { attempts: maxAttempts } });
      expect(ms).toBeGreaterThanOrEqual(maxAttempts * requestTimeoutMs - 50);
      expect(ms).toBeLessThan(maxAttempts * requestTimeoutMs + (maxAttempts - 1) * maxBackoffMs + 2_500);
      expect(isUnavailable(e)).toBe(true);

      started = performance.now();
      const aborted = await withDeadline(200, () => client.send(new QueryCommand(input))).catch((err: unknown) => err);
      ms = performance.now() - started;
      expect(isUnavailable(aborted)).toBe(true);
      expect(ms).toBeLessThan(requestTimeoutMs);
    } finally {
      client.destroy();
      await peer.close();
    }
  });
});
