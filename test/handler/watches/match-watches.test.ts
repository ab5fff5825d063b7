import { beforeEach, describe, expect, it } from '@jest/globals';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient, GetCommand, ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { airportReference, AirportIndex } from '../../../src/airports/reference.js';
import { createChangeConsumerHandler } from '../../../src/changes/handlers.js';
import { createChangeLogStore, HEAD_ID } from '../../../src/changes/store.js';
import { fixedClock } from '../../../src/clock.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import type { ListingTransition } from '../../../src/changes/index.js';
import { listedRecord } from '../../../src/kernel/listed.js';
import { cachedRates, createRatesStore, RATES_ID } from '../../../src/rates/index.js';
import type { DeliveryMessage } from '../../../src/watches/delivery.js';
import { createMatchHandler } from '../../../src/watches/match/handler.js';
import { createTransitionMatcher } from '../../../src/watches/match/transitions.js';
import type { QueuedMessage } from '../../../src/watches/queue.js';
import { testDocumentClient } from '../../support/handlers.js';
import { storedLeg } from '../../support/legs.js';

/**
 * The matcher apart from the change consumer (functions/match-watches/handler.ts), DynamoDB mocked:
 * the consumer writes each leg's state with the record the log gave; the state's stream record is
 * the matcher's transition, with the log's `changedAt`. A batch read again (a retry, at another
 * instant) makes the same deliveries, queued again only while never attempted, in batch requests.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const FIRST = Date.parse('2026-11-25T10:00:05Z');
const RETRY = FIRST + 90_000;
const LEG = toStorageItem(storedLeg({ id: 'EL-1', startDate: '2026-12-01', endDate: '2026-12-03', price: 10 }));
type Image = NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];
const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true }) as Image;
const WATCH = { clientId: 'cli_AAAAAAAAAAAAAAAAAAAA', watchId: 'wch_1', filters: {}, status: 'active' };

let states: Record<string, unknown>[];
let deliveries: Map<string, Record<string, unknown>>;
let writes: number;

beforeEach(() => {
  ddb.reset();
  states = [];
  deliveries = new Map();
  writes = 0;
  ddb.on(GetCommand, { TableName: 'legs' }).resolves({ Item: { id: HEAD_ID, q: 7 } });
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { watchId?: string; deliveryKey?: string }[] }> }) => {
    const keys = input.RequestItems.deliveries?.Keys;
    if (keys === undefined) return Promise.resolve({ Responses: { legs: states } });
    return Promise.resolve({ Responses: { deliveries: keys.map((k) => deliveries.get(`${k.watchId}|${k.deliveryKey}`)).filter(Boolean) } });
  });
  ddb.on(TransactWriteCommand).callsFake((input: { TransactItems: { Put?: { Item?: Record<string, unknown> } }[] }) => {
    for (const t of input.TransactItems) if (String(t.Put?.Item?.id).startsWith('~feed#')) states.push(t.Put!.Item!);
    return Promise.resolve({});
  });
  ddb.on(GetCommand, { TableName: 'watches' }).resolves({ Item: { clientId: '~version', watchId: '~version', version: 1 } });
  ddb.on(ScanCommand, { TableName: 'watches' }).resolves({ Items: [WATCH] });
  ddb.on(GetCommand, { TableName: 'keys' }).resolves({ Item: { keyHash: '~version', v: 1 } });
  ddb.on(ScanCommand, { TableName: 'keys' }).resolves({ Items: [{ keyId: 'key_AAAAAAAAAAAAAAAAAAAA', clientId: WATCH.clientId, status: 'active' }] });
  ddb.on(BatchWriteCommand).callsFake((input: { RequestItems: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> }) => {
    writes++;
    for (const r of input.RequestItems.deliveries ?? []) deliveries.set(`${String(r.PutRequest.Item.watchId)}|${String(r.PutRequest.Item.deliveryKey)}`, r.PutRequest.Item);
    return Promise.resolve({});
  });
});

/** The state records of what the change consumer committed at `now`. */
async function consume(now: number, record: DynamoDBRecord): Promise<DynamoDBStreamEvent> {
  const before = states.length;
  await createChangeConsumerHandler({ store: createChangeLogStore(testDocumentClient(), 'legs'), clock: fixedClock(now), stage: 'prod', emit: () => undefined })({ Records: [record] });
  return {
    Records: states.slice(before).map((s, i) => ({
      eventName: 'INSERT',
      dynamodb: { ApproximateCreationDateTime: now / 1000, Keys: { id: { S: String(s.id) } }, SequenceNumber: `9${i}`, NewImage: image(s) },
    })),
  };
}

function matcherAt(now: number, sent: QueuedMessage[], lines: string[] = [], airports: () => AirportIndex = () => new AirportIndex([])) {
  const client = testDocumentClient();
  return createMatchHandler({
    match: createTransitionMatcher({
      tables: { client, watchesTableName: 'watches', deliveriesTableName: 'deliveries' },
      queue: { send: (messages) => Promise.resolve(void sent.push(...messages)) },
      airports,
      clock: fixedClock(now),
      activeClients: () => Promise.resolve({ has: () => true }),
    }),
    clock: fixedClock(now),
    stage: 'prod',
    emit: (line) => void lines.push(line),
  });
}

const INSERT: DynamoDBRecord = {
  eventName: 'INSERT',
  dynamodb: { ApproximateCreationDateTime: FIRST / 1000 - 1, Keys: { id: { S: 'EL-1' } }, SequenceNumber: '4200', NewImage: image(LEG) },
};

describe('the watches matcher, a consumer of the change log of its own', () => {
  it("matches the log's state records with the log's changedAt; a batch read again makes the same delivery, queued again only while never attempted", async () => {
    const event = await consume(FIRST, INSERT);
    expect(event.Records).toHaveLength(1);
    const sent: QueuedMessage[] = [];
    const lines: string[] = [];
    await matcherAt(FIRST + 2_000, sent, lines)(event);
    expect(deliveries.size).toBe(1);
    expect(sent).toHaveLength(1);
    const message = JSON.parse(sent[0]!.body) as DeliveryMessage;
    expect(JSON.parse(message.payload)).toMatchObject({ type: 'empty_leg.listed', timestamp: new Date(FIRST).toISOString(), data: { watchId: 'wch_1', id: 'EL-1' } });
    expect(JSON.parse(lines[0]!)).toMatchObject({ WatchDeliveries: 1, MalformedWatchItems: 0, WatchEventsWithoutKey: 0 });

    // Read again later, never attempted: the same delivery, stored once, queued again.
    await matcherAt(RETRY, sent)(event);
    expect(deliveries.size).toBe(1);
    expect(sent.map((m) => (JSON.parse(m.body) as DeliveryMessage).deliveryId)).toEqual([message.deliveryId, message.deliveryId]);

    // Delivered: a third read queues nothing.
    const [key, stored] = [...deliveries][0]!;
    deliveries.set(key, { ...stored, attempts: 1, status: 'delivered' });
    await matcherAt(RETRY + 60_000, sent)(event);
    expect(sent).toHaveLength(2);
  });

  it('an update the log gives is `updated`; the old image is what the log gave before', async () => {
    await consume(FIRST, INSERT);
    const update: DynamoDBRecord = { ...INSERT, dynamodb: { ...INSERT.dynamodb, SequenceNumber: '4300', OldImage: image(LEG), NewImage: image({ ...LEG, price: 12 }) } };
    const event = await consume(RETRY, update);
    const prior = states[0]!;
    const sent: QueuedMessage[] = [];
    await matcherAt(RETRY, sent)({ Records: [{ ...event.Records[0]!, eventName: 'MODIFY', dynamodb: { ...event.Records[0]!.dynamodb, OldImage: image(prior) } }] });
    expect(JSON.parse((JSON.parse(sent[0]!.body) as DeliveryMessage).payload)).toMatchObject({ type: 'empty_leg.updated', timestamp: new Date(RETRY).toISOString(), data: { leg: { price: 12 } } });
  });

  it('5,000 deliveries are read in 50 BatchGetItem and written in 200 BatchWriteItem requests', async () => {
    ddb.on(ScanCommand, { TableName: 'watches' }).resolves({ Items: Array.from({ length: 100 }, (_, i) => ({ ...WATCH, watchId: `wch_${i}` })) });
    const records: DynamoDBRecord[] = [];
    for (let i = 0; i < 50; i++) {
      const leg = toStorageItem(storedLeg({ id: `EL-${i}`, startDate: '2026-12-01', endDate: '2026-12-03' }));
      records.push(...(await consume(FIRST, { eventName: 'INSERT', dynamodb: { Keys: { id: { S: `EL-${i}` } }, SequenceNumber: `5${i}`, NewImage: image(leg) } })).Records);
    }
    const sent: QueuedMessage[] = [];
    await matcherAt(FIRST, sent)({ Records: records });
    expect(deliveries.size).toBe(5_000);
    expect(sent).toHaveLength(5_000);
    expect(writes).toBe(200);
    expect(ddb.commandCalls(BatchGetCommand).filter((c) => c.args[0].input.RequestItems?.deliveries !== undefined)).toHaveLength(50);
  });

  it('a state record it cannot read is skipped and counted; the rest is matched', async () => {
    const event = await consume(FIRST, INSERT);
    const bad: DynamoDBRecord = { eventName: 'MODIFY', dynamodb: { Keys: { id: { S: '~feed#EL-9' } }, SequenceNumber: '1', NewImage: image({ id: '~feed#EL-9', n: '1', t: 'x', r: '{not json' }) } };
    const sent: QueuedMessage[] = [];
    const lines: string[] = [];
    await matcherAt(FIRST, sent, lines)({ Records: [bad, ...event.Records] });
    expect(sent).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ MalformedWatchItems: 1, WatchDeliveries: 1 });
  });

  it("delivers a leg that serves a watch's trip (and its other filters), and none for a leg that does not", async () => {
    const filters = { tripFrom: 'LFPB', tripTo: 'LIRA', maxDetourPct: '10', depCountryCode: 'us', arrContinent: 'AS' };
    ddb.on(ScanCommand, { TableName: 'watches' }).resolves({ Items: [{ ...WATCH, filters }] });
    const insert = (id: string, sequence: string, dep: string, arr: string, depCountryCode: string): DynamoDBRecord => ({
      eventName: 'INSERT',
      dynamodb: {
        ApproximateCreationDateTime: FIRST / 1000 - 1,
        Keys: { id: { S: id } },
        SequenceNumber: sequence,
        NewImage: image(toStorageItem(storedLeg({ id, startDate: '2026-12-01', endDate: '2026-12-03', depAirportIcao: dep, arrAirportIcao: arr, depCountryCode }))),
      },
    });
    const records: DynamoDBRecord[] = [];
    // Teterboro to Tel Aviv passes Paris and Rome: 85 km more (0.9 %).
    records.push(...(await consume(FIRST, insert('EL-SERVES', '4400', 'KTEB', 'LLBG', 'US'))).Records);
    // Farnborough to Dublin does not; Teterboro to Tel Aviv from another country fails the country filter.
    records.push(...(await consume(FIRST, insert('EL-AWAY', '4401', 'EGLF', 'EIDW', 'US'))).Records);
    records.push(...(await consume(FIRST, insert('EL-ELSEWHERE', '4402', 'KTEB', 'LLBG', 'CA'))).Records);
    const sent: QueuedMessage[] = [];
    await matcherAt(FIRST, sent, [], airportReference)({ Records: records });
    const delivered = sent.map((m) => JSON.parse((JSON.parse(m.body) as DeliveryMessage).payload) as { type: string; data: { id: string; leg: object } });
    expect(delivered.map((d) => [d.type, d.data.id])).toEqual([['empty_leg.listed', 'EL-SERVES']]);
    // The event's leg is the leg as the listing shows it, without a trip search's detour.
    expect(delivered[0]!.data.leg).not.toHaveProperty('detour');
  });

  it('matches prices with the rates in force, read once a minute at most (not per batch), the index compiled again when they change', async () => {
    ddb.on(ScanCommand, { TableName: 'watches' }).resolves({ Items: [{ ...WATCH, filters: { currency: 'USD', maxPrice: '1000' } }, { ...WATCH, watchId: 'wch_plain' }] });
    let rates = { id: RATES_ID, rateDate: '2026-11-24', rates: { USD: '1.0000' } };
    ddb.on(GetCommand, { TableName: 'legs', Key: { id: RATES_ID } }).callsFake(() => Promise.resolve({ Item: rates }));
    let now = FIRST;
    const client = testDocumentClient();
    const sent: QueuedMessage[] = [];
    const match = createTransitionMatcher({
      tables: { client, watchesTableName: 'watches', deliveriesTableName: 'deliveries' },
      queue: { send: (messages) => Promise.resolve(void sent.push(...messages)) },
      airports: () => new AirportIndex([]),
      clock: () => now,
      rates: cachedRates(createRatesStore(client, 'legs'), { clock: () => now, fresh: true }),
      activeClients: () => Promise.resolve({ has: () => true }),
    });
    // 950 EUR: 950 USD at 1.00, 1,045 USD at 1.10.
    const leg = listedRecord(toStorageItem(storedLeg({ id: 'EL-P', startDate: '2026-12-01', endDate: '2026-12-03', price: 950, currency: 'EUR' })), new Date(FIRST))!;
    let n = 0;
    const change = (after: typeof leg | null, before: typeof leg | null): ListingTransition => ({ id: 'EL-P', changedAt: new Date(now).toISOString(), changeId: String(++n), before, after });
    const bodies = () => sent.splice(0).map((m) => JSON.parse((JSON.parse(m.body) as DeliveryMessage).payload) as { type: string; data: { watchId: string; leg: { convertedPrice?: unknown } | null } });

    await match([change(leg, null)]);
    expect(bodies().map((b) => [b.data.watchId, b.type, b.data.leg?.convertedPrice])).toEqual([
      ['wch_1', 'empty_leg.listed', { amount: 950, currency: 'USD', rateDate: '2026-11-24' }],
      ['wch_plain', 'empty_leg.listed', undefined],
    ]);
    // New rates: a batch within the minute still matches with the old ones, and reads nothing.
    rates = { id: RATES_ID, rateDate: '2026-11-25', rates: { USD: '1.1000' } };
    now += 30_000;
    await match([change({ ...leg, seatNum: 7 }, leg)]);
    expect(bodies().map((b) => [b.data.watchId, b.type])).toEqual([['wch_1', 'empty_leg.updated'], ['wch_plain', 'empty_leg.updated']]);
    const ratesReads = () => ddb.commandCalls(GetCommand).filter((c) => (c.args[0].input.Key as { id?: string }).id === RATES_ID).length;
    expect(ratesReads()).toBe(1);
    // After the minute, the new rates: a change from 900 EUR (990 USD) to 950 EUR (1,045 USD) crosses the cap.
    now += 31_000;
    await match([change({ ...leg, price: 950 }, { ...leg, price: 900 })]);
    expect(ratesReads()).toBe(2);
    expect(bodies().map((b) => [b.data.watchId, b.type])).toEqual([['wch_plain', 'empty_leg.updated'], ['wch_1', 'empty_leg.withdrawn']]);
  });
});
