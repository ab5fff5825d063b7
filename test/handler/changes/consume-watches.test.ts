import { beforeEach, describe, expect, it } from '@jest/globals';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { DynamoDBRecord } from 'aws-lambda';
import { airportReference, AirportIndex } from '../../../src/airports/reference.js';
import { createChangeConsumerHandler } from '../../../src/changes/handlers.js';
import { createChangeLogStore, HEAD_ID } from '../../../src/changes/store.js';
import { fixedClock } from '../../../src/clock.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import type { DeliveryMessage } from '../../../src/watches/delivery.js';
import { createTransitionMatcher } from '../../../src/watches/match-transitions.js';
import type { QueuedMessage } from '../../../src/watches/queue.js';
import { testDocumentClient } from '../../support/handlers.js';
import { storedLeg } from '../../support/legs.js';

/**
 * The stream consumer with the watches' matcher as functions/consume-changes/handler.ts builds it,
 * DynamoDB mocked: a batch retried later (another instant) makes the same deliveries (same
 * `webhook-id`, same delivery record key, same `timestamp`), because the matcher keys them by the
 * stream record's sequence number and the log gives the retried records their first `changedAt`.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const FIRST = Date.parse('2026-11-25T10:00:05Z');
const RETRY = FIRST + 90_000;
const LEG = toStorageItem(storedLeg({ id: 'EL-1', startDate: '2026-12-01', endDate: '2026-12-03', price: 10 }));
const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true }) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];
const EVENT = {
  Records: [
    {
      eventName: 'INSERT',
      dynamodb: { ApproximateCreationDateTime: FIRST / 1000 - 1, Keys: { id: { S: 'EL-1' } }, SequenceNumber: '4200', NewImage: image(LEG) },
    } satisfies DynamoDBRecord,
  ],
};
const WATCH = {
  clientId: 'cli_AAAAAAAAAAAAAAAAAAAA',
  watchId: 'wch_1',
  url: 'https://hooks.example.com/in',
  filters: {},
  description: null,
  status: 'active',
  createdAt: '2026-11-20T00:00:00.000Z',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  failingSince: null,
  disabledAt: null,
};

function consumerAt(now: number, sent: QueuedMessage[], failFirstSend = false, airports: () => AirportIndex = () => new AirportIndex([])) {
  let fail = failFirstSend;
  const client = testDocumentClient();
  return createChangeConsumerHandler({
    store: createChangeLogStore(client, 'legs'),
    clock: fixedClock(now),
    stage: 'prod',
    emit: () => undefined,
    subscribers: [
      createTransitionMatcher({
        tables: { client, watchesTableName: 'watches', deliveriesTableName: 'deliveries' },
        queue: {
          send(messages) {
            if (fail) {
              fail = false;
              return Promise.reject(new Error('SQS unavailable'));
            }
            sent.push(...messages);
            return Promise.resolve();
          },
        },
        airports,
        clock: fixedClock(now),
      }),
    ],
  });
}

let states: Record<string, unknown>[];
let deliveries: Map<string, Record<string, unknown>>;

beforeEach(() => {
  ddb.reset();
  states = [];
  deliveries = new Map();
  ddb.on(GetCommand, { TableName: 'legs' }).resolves({ Item: { id: HEAD_ID, q: 7 } });
  ddb.on(BatchGetCommand).callsFake(() => Promise.resolve({ Responses: { legs: states } }));
  ddb.on(TransactWriteCommand).callsFake((input: { TransactItems: { Put?: { Item?: Record<string, unknown> } }[] }) => {
    for (const t of input.TransactItems) if (String(t.Put?.Item?.id).startsWith('~feed#')) states.push(t.Put!.Item!);
    return Promise.resolve({});
  });
  ddb.on(GetCommand, { TableName: 'watches' }).resolves({ Item: { clientId: '~version', watchId: '~version', version: 1 } });
  ddb.on(ScanCommand, { TableName: 'watches' }).resolves({ Items: [WATCH] });
  ddb.on(PutCommand, { TableName: 'deliveries' }).callsFake((input: { Item: Record<string, unknown> }) => {
    const key = `${String(input.Item.watchId)}|${String(input.Item.deliveryKey)}`;
    if (deliveries.has(key)) return Promise.reject(new ConditionalCheckFailedException({ message: 'exists', $metadata: {} }));
    deliveries.set(key, input.Item);
    return Promise.resolve({});
  });
  ddb.on(GetCommand, { TableName: 'deliveries' }).callsFake((input: { Key: { watchId: string; deliveryKey: string } }) =>
    Promise.resolve({ Item: deliveries.get(`${input.Key.watchId}|${input.Key.deliveryKey}`) }),
  );
});

describe('the change consumer feeds the watches matcher', () => {
  it('gives the matcher the stream record sequence number as changeId; a retried batch makes the same delivery, queued again only while never attempted', async () => {
    const sent: QueuedMessage[] = [];
    // The first try: the log is written, then queuing fails: the batch throws and is retried later.
    await expect(consumerAt(FIRST, sent, true)(EVENT)).rejects.toThrow('SQS unavailable');
    expect(deliveries.size).toBe(1);
    await consumerAt(RETRY, sent)(EVENT);
    // The retry (90 s later) stores nothing new and queues the delivery stored by the first try.
    expect(deliveries.size).toBe(1);
    expect(sent).toHaveLength(1);
    const message = JSON.parse(sent[0]!.body) as DeliveryMessage;
    const [stored] = [...deliveries.values()];
    expect(message.deliveryId).toBe(stored!.id);
    expect(message.deliveryKey).toBe(stored!.deliveryKey);
    expect(JSON.parse(message.payload)).toMatchObject({ type: 'empty_leg.listed', timestamp: new Date(FIRST).toISOString(), data: { watchId: 'wch_1', id: 'EL-1' } });

    // Delivered once: a third read of the batch queues nothing more, under the same id.
    deliveries.set([...deliveries.keys()][0]!, { ...stored, attempts: 1, status: 'delivered' });
    await consumerAt(RETRY + 60_000, sent)(EVENT);
    expect(sent).toHaveLength(1);
    expect(deliveries.size).toBe(1);
  });

  it('the webhook id follows the change (sequence number), not the instant the batch was read', async () => {
    const a: QueuedMessage[] = [];
    const b: QueuedMessage[] = [];
    await consumerAt(FIRST, a)(EVENT);
    // Another change of the same leg (a new sequence number) is a new delivery.
    const next = { Records: [{ ...EVENT.Records[0]!, dynamodb: { ...EVENT.Records[0]!.dynamodb, SequenceNumber: '4300', OldImage: image(LEG), NewImage: image({ ...LEG, price: 12 }) } }] };
    await consumerAt(RETRY, b)(next);
    const idOf = (m: QueuedMessage[]) => (JSON.parse(m[0]!.body) as DeliveryMessage).deliveryId;
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
    expect(idOf(a)).not.toBe(idOf(b));
    expect(JSON.parse((JSON.parse(b[0]!.body) as DeliveryMessage).payload)).toMatchObject({ type: 'empty_leg.updated', timestamp: new Date(RETRY).toISOString() });
  });

  it("delivers a leg that serves a watch's trip (and its other filters), and none for a leg that does not", async () => {
    const filters = { tripFrom: 'LFPB', tripTo: 'LIRA', maxDetourPct: '10', depCountryCode: 'us', arrContinent: 'AS' };
    ddb.on(ScanCommand, { TableName: 'watches' }).resolves({ Items: [{ ...WATCH, filters }] });
    const insert = (id: string, sequence: string, dep: string, arr: string, depCountryCode: string) => ({
      eventName: 'INSERT' as const,
      dynamodb: {
        ApproximateCreationDateTime: FIRST / 1000 - 1,
        Keys: { id: { S: id } },
        SequenceNumber: sequence,
        NewImage: image(toStorageItem(storedLeg({ id, startDate: '2026-12-01', endDate: '2026-12-03', depAirportIcao: dep, arrAirportIcao: arr, depCountryCode }))),
      },
    });
    const sent: QueuedMessage[] = [];
    await consumerAt(FIRST, sent, false, airportReference)({
      Records: [
        // Teterboro to Tel Aviv passes Paris and Rome: 85 km more (0.9 %).
        insert('EL-SERVES', '4400', 'KTEB', 'LLBG', 'US'),
        // Farnborough to Dublin does not; Teterboro to Tel Aviv from another country fails the country filter.
        insert('EL-AWAY', '4401', 'EGLF', 'EIDW', 'US'),
        insert('EL-ELSEWHERE', '4402', 'KTEB', 'LLBG', 'CA'),
      ],
    });
    const delivered = sent.map((m) => (JSON.parse((JSON.parse(m.body) as DeliveryMessage).payload) as { type: string; data: { id: string; leg: object } }));
    expect(delivered.map((d) => [d.type, d.data.id])).toEqual([['empty_leg.listed', 'EL-SERVES']]);
    // The event's leg is the leg as the listing shows it, without a trip search's detour.
    expect(delivered[0]!.data.leg).not.toHaveProperty('detour');
  });
});

