// @dateSensitive: runs again at each of the fixed instants of `npm test` (jest.config.js, TEST_INSTANTS).
import { gunzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  APIGatewayRequestAuthorizerEventV2,
} from 'aws-lambda';
import { handler as authorizerHandler } from '../../functions/authorizer/handler.js';
import { handler as listHandler } from '../../functions/list-empty-legs/handler.js';
import { handler as notFoundHandler } from '../../functions/not-found/handler.js';
import { lambdaContext } from '../../local/lambda-context.js';
import { toStorageItem, type StoredLeg } from '../../src/kernel/leg-item.js';
import { testNow } from '../support/clock.js';
import { storedLeg } from '../support/legs.js';

/**
 * The sam local event files (events/*.json) fed to their handlers, so that they stay valid events
 * for the real code. DynamoDB is mocked at the document client.
 */
const ddb = mockClient(DynamoDBDocumentClient);

function readEvent<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../events/${name}`, import.meta.url), 'utf8')) as T;
}

type ListEvent = APIGatewayProxyEventV2 & { requestContext: { authorizer: { lambda: Record<string, unknown> } } };
const listEvent = readEvent<ListEvent>('list-empty-legs.json');
const authorizerEvent = readEvent<APIGatewayRequestAuthorizerEventV2>('authorizer.json');
const notFoundEvent = readEvent<APIGatewayProxyEventV2>('not-found.json');


interface EnvelopeBody {
  code: string;
  message: string;
  data: { records: { id: string; depCityName: string; startDate: string }[]; total: number; page: number; size: number } | null;
  traceId: string;
}

function body(res: APIGatewayProxyStructuredResultV2): EnvelopeBody {
  // The sample event accepts gzip, as browsers and most clients do: the body comes compressed.
  if (res.isBase64Encoded) {
    expect(res.headers?.['content-encoding']).toBe('gzip');
    return JSON.parse(gunzipSync(Buffer.from(String(res.body), 'base64')).toString('utf8')) as EnvelopeBody;
  }
  return JSON.parse(String(res.body)) as EnvelopeBody;
}

const DAY = 86_400_000;
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function leg(id: string, depCityName: string, startInDays: number): StoredLeg {
  const now = testNow();
  return storedLeg({
    id,
    startDate: utcDate(now + startInDays * DAY),
    endDate: utcDate(now + (startInDays + 2) * DAY),
    depCityName,
    arrAirportIcao: 'LFMN',
    arrAirportIata: 'NCE',
    arrCountryName: 'France',
    arrCountryCode: 'FR',
    seatNum: 8,
    price: 9500,
    currency: 'EUR',
  });
}

beforeEach(() => {
  ddb.reset();
});

describe('events/list-empty-legs.json → list handler', () => {
  const legs = [leg('leg-b', 'London', 5), leg('leg-c', 'Paris', 6), leg('leg-a', 'London', 9)];

  beforeEach(() => {
    const items = legs.map(toStorageItem);
    // The change log's head: no entry yet.
    ddb.on(GetCommand).resolves({});
    ddb.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => ({
      Items: items
        .filter((i) => i.lb === input.ExpressionAttributeValues[':b'])
        .sort((a, b) => String(a.ls).localeCompare(String(b.ls)))
        .map((i) => ({ id: i.id, lb: i.lb, ls: i.ls, lf: i.lf })),
    }));
    ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => {
      const [table, request] = Object.entries(input.RequestItems)[0]!;
      return { Responses: { [table]: items.filter((i) => request.Keys.some((k) => k.id === i.id)) } };
    });
  });

  it('answers 200 with the page envelope for the query of the event', async () => {
    const ctx = lambdaContext('list-empty-legs');
    const res = await listHandler(listEvent, ctx);
    const q = listEvent.queryStringParameters!;
    const needle = q.depCityName!.toLowerCase();
    const expected = legs
      .filter((l) => l.depCityName.toLowerCase().includes(needle))
      .sort((a, b) => a.startDate.localeCompare(b.startDate) || a.id.localeCompare(b.id));

    expect(res.statusCode).toBe(200);
    const b = body(res);
    expect(b).toMatchObject({ code: 'OK', message: 'success', traceId: ctx.awsRequestId });
    expect(b.data).toMatchObject({ total: expected.length, page: Number(q.page), size: Number(q.size) });
    expect(b.data!.records.map((r) => r.id)).toEqual(expected.map((l) => l.id));
  });

  it('carries a verified-key authorizer context, as the authorizer produces it', () => {
    expect(listEvent.requestContext.authorizer.lambda).toMatchObject({ verdict: 'ok', environment: 'test' });
    expect(String(listEvent.requestContext.authorizer.lambda.scopes).split(' ')).toContain('empty_leg:read');
  });
});

describe('events/authorizer.json → authorizer handler', () => {
  const key = authorizerEvent.headers?.['x-api-key'] ?? '';
  const keyHash = createHash('sha256').update(key, 'utf8').digest('hex');
  const verified = listEvent.requestContext.authorizer.lambda;

  it('answers isAuthorized: true with a verified verdict for the stored test key', async () => {
    expect(key.startsWith('elk_test_')).toBe(true);
    ddb.on(GetCommand).callsFake((input: { Key: { keyHash: string } }) => ({
      Item:
        input.Key.keyHash === keyHash
          ? {
              keyHash,
              keyId: verified.keyId,
              name: 'sam local',
              environment: 'test',
              scopes: String(verified.scopes).split(' '),
              status: 'active',
              createdAt: '2026-01-01T00:00:00.000Z',
            }
          : undefined,
    }));
    // The usage item (src/keys/limits/usage.ts): the first request of the day, reserved from the key's
    // shared bucket as DynamoDB answers it (ALL_NEW: the bucket's time after this request).
    // An item with no bucket yet refuses the draw form (`tat BETWEEN ...`) and takes the starting one.
    ddb.on(UpdateCommand).callsFake((input: { ExpressionAttributeValues: Record<string, number> }) => {
      const start = input.ExpressionAttributeValues[':start'];
      if (input.ExpressionAttributeValues[':now'] !== undefined && start === undefined) {
        throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {}, Item: marshall({ served: 0, refused: 0 }) });
      }
      return { Attributes: { served: 1, refused: 0, ...(start !== undefined ? { tat: start } : {}) } };
    });

    const res = await authorizerHandler(authorizerEvent);

    expect(res.isAuthorized).toBe(true);
    // The list event's context is exactly what the authorizer hands on for this key.
    expect(res.context).toEqual(verified);
    // One read of the key, beside the read of the keys version (src/keys/version.ts) and of its client's rate limit.
    expect(ddb.commandCalls(GetCommand).filter((c) => c.args[0].input.Key?.keyHash === keyHash)).toHaveLength(1);
    expect(ddb.commandCalls(GetCommand).map((c) => String(c.args[0].input.Key?.keyHash)).sort()).toEqual([keyHash, `client#${String(verified.clientId)}`, '~version'].sort());
  });
});

describe('events/not-found.json → not-found handler', () => {
  it('answers 404 NOT_FOUND in the envelope', async () => {
    const ctx = lambdaContext('not-found');
    const res = await notFoundHandler(notFoundEvent, ctx);
    expect(res.statusCode).toBe(404);
    const b = body(res);
    expect(b).toMatchObject({ code: 'NOT_FOUND', data: null, traceId: ctx.awsRequestId });
    expect(b.message).toContain(notFoundEvent.rawPath);
    expect(res.headers?.['x-trace-id']).toBe(ctx.awsRequestId);
  });
});
