import { beforeEach, describe, expect, it } from '@jest/globals';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { fixedClock } from '../../../src/clock.js';
import { createDeliveryHandler, type DeliveryDependencies, type DeliveryMessage } from '../../../src/watches/delivery.js';
import type { WebhookPoster } from '../../../src/watches/post.js';

/**
 * The delivery function's batch (src/watches/delivery.ts, createDeliveryHandler) with a mocked
 * DynamoDB and POST: its attempts run at once, and a message whose processing throws is reported
 * alone, the others deleted.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const client = DynamoDBDocumentClient.from(new (await import('@aws-sdk/client-dynamodb')).DynamoDBClient({ region: 'us-east-1' }));
const T0 = Date.parse('2026-11-21T12:00:00Z');

const watchOf = (i: number) => ({
  clientId: 'cli_AAAAAAAAAAAAAAAAAAAA',
  watchId: `wat_${String(i).padStart(20, '0')}`,
  url: 'https://hooks.example.com/x',
  filters: {},
  description: null,
  status: 'active',
  createdAt: '2026-11-21T11:00:00.000Z',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  failingSince: null,
  disabledAt: null,
});

function event(count: number): SQSEvent {
  return {
    Records: Array.from({ length: count }, (_, i) => {
      const m: DeliveryMessage = {
        deliveryId: `msg_${i}`,
        clientId: 'cli_AAAAAAAAAAAAAAAAAAAA',
        watchId: watchOf(i).watchId,
        deliveryKey: `2026-11-21T12:00:00.000Z#msg_${i}`,
        payload: '{}',
        attempts: 0,
        dueAt: T0,
      };
      return { messageId: `m${i}`, body: JSON.stringify(m) } as SQSEvent['Records'][number];
    }),
  };
}

beforeEach(() => {
  ddb.reset();
  ddb.on(UpdateCommand).resolves({});
  ddb.on(GetCommand).callsFake((input: { TableName: string; Key: { watchId: string } }) => {
    if (input.TableName !== 'watches') return {};
    if (input.Key.watchId.endsWith('3')) throw Object.assign(new Error('database unreachable'), { name: 'InternalServerError' });
    return { Item: watchOf(Number(input.Key.watchId.slice(4))) };
  });
});

/** The handler over the mocked table, a public target and a fixed clock, with `over`'s ports. */
const handlerWith = (over: Partial<DeliveryDependencies>) =>
  createDeliveryHandler({
    tables: { client, watchesTableName: 'watches', deliveriesTableName: 'deliveries' },
    queue: { send: () => Promise.resolve() },
    targets: 'public',
    resolver: () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]),
    clock: fixedClock('2026-11-21T12:00:00Z'),
    retryScheduleSeconds: [1],
    disableAfterSeconds: 86_400,
    ...over,
  });

describe('createDeliveryHandler', () => {
  it("runs a batch's attempts at once, and reports only the message whose processing threw", async () => {
    let inFlight = 0;
    let most = 0;
    const post: WebhookPoster = async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 100));
      inFlight--;
      return { status: 204 };
    };
    const handler = handlerWith({ post });
    const result = await handler(event(10));
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm3' }]);
    expect(most).toBe(9);
  });

  it('drops the delivery of a malformed watch item, logs it with its key, counts it, and delivers the others', async () => {
    ddb.on(GetCommand).callsFake((input: { TableName: string; Key: { watchId: string } }) => {
      if (input.TableName !== 'watches') return {};
      const i = Number(input.Key.watchId.slice(4));
      return { Item: i === 2 ? { ...watchOf(i), status: 'paused' } : watchOf(i) };
    });
    const delivered: string[] = [];
    const lines: string[] = [];
    const handler = handlerWith({
      post: (_url, _address, headers) => {
        delivered.push(headers['webhook-id']!);
        return Promise.resolve({ status: 204 });
      },
      stage: 'prod',
      emit: (line) => lines.push(line),
    });
    const result = await handler(event(4));
    expect(result.batchItemFailures).toEqual([]);
    expect(delivered.sort()).toEqual(['msg_0', 'msg_1', 'msg_3']);
    const dropped = ddb.commandCalls(UpdateCommand).filter((c) => c.args[0].input.Key?.watchId === watchOf(2).watchId);
    expect(dropped.map((c) => c.args[0].input.ExpressionAttributeValues)).toEqual([{ ':v0': 'dropped', ':v1': null }]);
    expect(lines).toHaveLength(1);
    const metric = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(metric).toMatchObject({ Stage: 'prod', MalformedWatchItems: 1 });
  });
});
