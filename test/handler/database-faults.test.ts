import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { DeadlineError, withDeadline } from '../../src/aws/deadline.js';
import { mapError } from '../../src/http/envelope.js';
import { createAuthorizerHandler } from '../../src/keys/authorizer-handler.js';
import { REVOCATION_BOUND_MS } from '../../src/keys/authorizer.js';
import { generateKey, hashKey } from '../../src/keys/format.js';
import { KEYS_VERSION_HASH } from '../../src/keys/version.js';
import { lambdaContext as localLambdaContext } from '../../local/lambda-context.js';
import { DATABASE_DEADLINE_MS, FUNCTION_DYNAMODB_BUDGET } from '../../src/time-budget.js';
import { authorizerEvent, listEvent } from '../support/events.js';
import { buildAuthorizerHandler, buildListHandler, createFunctionClient, testConfig } from '../support/handlers.js';
import { startStalledPeer, type StalledPeer } from '../support/stalled-peer.js';
import { startStallableDynamoDb } from '../support/stallable-dynamodb.js';

/**
 * Database faults against a real TCP peer, not a mocked error: the functions' own DynamoDB client
 * (src/aws/function-clients.ts), the real authorizer and the real list handler (built by their
 * factories), pointed at a socket
 * on 127.0.0.1 that accepts and never answers, then at a port that refuses connections. Every
 * answer must be SERVICE_UNAVAILABLE well within 5 s; the upper bounds are generous for a loaded
 * machine but far below a hang, the lower bounds show that a timeout really was waited for.
 */
const UPPER_MS = 4_500;

type Authorizer = ReturnType<typeof buildAuthorizerHandler>;
type List = ReturnType<typeof buildListHandler>['handler'];

let peer: StalledPeer;
let authorize: Authorizer;
let list: List;
let functionClient: ReturnType<typeof createFunctionClient>;

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

function body(result: APIGatewayProxyStructuredResultV2): { code: string; data: unknown; traceId: string } {
  return JSON.parse(result.body ?? '') as { code: string; data: unknown; traceId: string };
}

beforeAll(async () => {
  peer = await startStalledPeer();
  // The functions' own client (their time budget), built from a configuration, as the handler
  // files build it.
  const config = testConfig({ DYNAMODB_ENDPOINT: peer.endpoint, STAGE: 'sandbox' });
  functionClient = createFunctionClient(config);
  authorize = buildAuthorizerHandler({ config, client: functionClient });
  list = buildListHandler({ config, client: functionClient }).handler;
});

afterAll(async () => {
  await peer.close();
  functionClient.destroy();
});

describe('a database that accepts connections and never answers', () => {
  test('a request times out (TimeoutError, not a warning), within its attempts, and maps to SERVICE_UNAVAILABLE', async () => {
    const client = createDocumentClient({ endpoint: peer.endpoint, region: 'local', budget: FUNCTION_DYNAMODB_BUDGET });
    try {
      const before = peer.connections();
      const { value: error, ms } = await timed(() =>
        client.send(new GetCommand({ TableName: 'api-keys', Key: { keyHash: 'x' } })).then(
          () => undefined,
          (err: unknown) => err as Error & { $metadata?: { attempts?: number } },
        ),
      );
      expect(error?.name).toBe('TimeoutError');
      expect(error?.$metadata?.attempts).toBe(FUNCTION_DYNAMODB_BUDGET.maxAttempts);
      expect(peer.connections() - before).toBeGreaterThanOrEqual(1);
      const { maxAttempts, requestTimeoutMs, maxBackoffMs } = FUNCTION_DYNAMODB_BUDGET;
      expect(ms).toBeGreaterThanOrEqual(maxAttempts * requestTimeoutMs - 50);
      expect(ms).toBeLessThan(maxAttempts * requestTimeoutMs + (maxAttempts - 1) * maxBackoffMs + 2_500);
      expect(mapError(error)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    } finally {
      client.destroy();
    }
  });

  test('an invocation deadline aborts the request in flight: the socket is torn down at once', async () => {
    const client = createDocumentClient({ endpoint: peer.endpoint, region: 'local', budget: FUNCTION_DYNAMODB_BUDGET });
    try {
      const closedBefore = peer.closedByClient();
      const { value: error, ms } = await timed(() =>
        withDeadline(200, () => client.send(new GetCommand({ TableName: 'api-keys', Key: { keyHash: 'y' } }))).then(
          () => undefined,
          (err: unknown) => err,
        ),
      );
      expect(error).toBeInstanceOf(DeadlineError);
      expect(ms).toBeLessThan(FUNCTION_DYNAMODB_BUDGET.requestTimeoutMs);
      expect(mapError(error)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      // The aborted request's connection is closed by the client, not left to the request timeout.
      const until = Date.now() + 2_000;
      while (peer.closedByClient() === closedBefore && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(peer.closedByClient()).toBeGreaterThan(closedBefore);
    } finally {
      client.destroy();
    }
  });

  test('the authorizer gives a good key SERVICE_UNAVAILABLE (not API_KEY_INVALID) at its deadline, and does not cache it', async () => {
    const key = generateKey('test');
    for (let i = 0; i < 2; i++) {
      const { value, ms } = await timed(() => authorize(authorizerEvent(key), localLambdaContext('authorizer', 5_000)));
      expect(value.isAuthorized).toBe(true);
      expect(value.context).toMatchObject({ verdict: 'error', errorCode: 'SERVICE_UNAVAILABLE' });
      // It waited for the stalled read: its request timeout or its deadline, whichever comes first.
      expect(ms).toBeGreaterThanOrEqual(Math.min(FUNCTION_DYNAMODB_BUDGET.requestTimeoutMs, DATABASE_DEADLINE_MS.authorizer) - 50);
      expect(ms).toBeLessThan(DATABASE_DEADLINE_MS.authorizer + 1_000);
    }
    expect(authorize.authorizer.cacheSizes()).toEqual({ keys: 0, unknown: 0 });
  });

  test('the authorizer gives up before its Lambda deadline when the invocation has little time left', async () => {
    const { value, ms } = await timed(() => authorize(authorizerEvent(generateKey('test')), localLambdaContext('authorizer', 900)));
    expect(value.context).toMatchObject({ verdict: 'error', errorCode: 'SERVICE_UNAVAILABLE' });
    expect(ms).toBeLessThan(900);
  });

  test('the list function answers 503 SERVICE_UNAVAILABLE in the envelope, several requests at once, none hanging', async () => {
    const { value: results, ms } = await timed(() =>
      Promise.all(
        ['a', 'b', 'c', 'd'].map((city, i) =>
          list(listEvent(i === 0 ? undefined : { depCityName: `${city}${city}` }), localLambdaContext('list-empty-legs')),
        ),
      ),
    );
    for (const result of results) {
      expect(result.statusCode).toBe(503);
      expect(body(result)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', data: null });
      expect(result.body).not.toMatch(/Timeout|socket|127\.0\.0\.1|ETIMEDOUT/);
    }
    expect(ms).toBeGreaterThanOrEqual(FUNCTION_DYNAMODB_BUDGET.requestTimeoutMs - 50);
    expect(ms).toBeLessThan(UPPER_MS);
  });
});

describe('a database that refuses connections', () => {
  beforeAll(async () => {
    await peer.refuse();
  });

  test('the authorizer answers SERVICE_UNAVAILABLE quickly', async () => {
    const { value, ms } = await timed(() => authorize(authorizerEvent(generateKey('test')), localLambdaContext('authorizer', 5_000)));
    expect(value.context).toMatchObject({ verdict: 'error', errorCode: 'SERVICE_UNAVAILABLE' });
    expect(ms).toBeLessThan(UPPER_MS);
  });

  test('the list function answers 503 SERVICE_UNAVAILABLE quickly', async () => {
    const { value: result, ms } = await timed(() => list(listEvent({ depCityName: 'Zurich' }), localLambdaContext('list-empty-legs')));
    expect(result.statusCode).toBe(503);
    expect(body(result)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', data: null });
    expect(ms).toBeLessThan(UPPER_MS);
  });
});

describe('a database that stalls after a key was verified (docs/api-keys.md, "When the database stalls")', () => {
  test('a key verified within the revocation bound is served at once; past the bound, or uncached, SERVICE_UNAVAILABLE at the deadline', async () => {
    const db = await startStallableDynamoDb();
    const client = createFunctionClient(testConfig({ DYNAMODB_ENDPOINT: db.endpoint, STAGE: 'sandbox' }));
    try {
      const T0 = Date.parse('2026-03-01T12:00:00.000Z');
      let clock = T0;
      const key = generateKey('test');
      db.items.set(KEYS_VERSION_HASH, { keyHash: KEYS_VERSION_HASH, v: 3 });
      db.items.set(hashKey(key), {
        keyHash: hashKey(key),
        keyId: 'key_StalledStalled0000',
        environment: 'test',
        scopes: ['empty_leg:read'],
        status: 'active',
        createdAt: new Date(T0 - 86_400_000).toISOString(),
      });
      const authorize = createAuthorizerHandler({ client, tableName: 'api-keys', stage: 'sandbox', now: () => clock });
      const context = () => localLambdaContext('authorizer', 5_000);
      expect((await authorize(authorizerEvent(key), context())).context).toMatchObject({ verdict: 'ok' });

      db.stall();
      // Seconds later, inside the bound: the version read is stalled, the cached verdict is used
      // without waiting for the deadline.
      for (const after of [2_000, 5_000, REVOCATION_BOUND_MS]) {
        clock = T0 + after;
        const { value, ms } = await timed(() => authorize(authorizerEvent(key), context()));
        expect(value.context).toMatchObject({ verdict: 'ok', keyId: 'key_StalledStalled0000' });
        expect(ms).toBeLessThan(DATABASE_DEADLINE_MS.authorizer);
      }
      expect(db.stalledRequests()).toBeGreaterThanOrEqual(1);

      // Past the bound: the key must be read again, the read stalls, 503 at the deadline.
      clock = T0 + REVOCATION_BOUND_MS + 1;
      const late = await timed(() => authorize(authorizerEvent(key), context()));
      expect(late.value.context).toMatchObject({ verdict: 'error', errorCode: 'SERVICE_UNAVAILABLE' });
      expect(late.ms).toBeGreaterThanOrEqual(Math.min(FUNCTION_DYNAMODB_BUDGET.requestTimeoutMs, DATABASE_DEADLINE_MS.authorizer) - 50);
      // A key this container never verified: the same.
      const fresh = await timed(() => authorize(authorizerEvent(generateKey('test')), context()));
      expect(fresh.value.context).toMatchObject({ verdict: 'error', errorCode: 'SERVICE_UNAVAILABLE' });

      // The database back: served again.
      db.resume();
      clock += 5_000;
      expect((await authorize(authorizerEvent(key), context())).context).toMatchObject({ verdict: 'ok' });
    } finally {
      client.destroy();
      await db.close();
    }
  }, 30_000);
});
