import { beforeEach, describe, expect, it } from '@jest/globals';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient, GetCommand, ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { AirportIndex } from '../../../src/airports/reference.js';
import { createChangeConsumerHandler } from '../../../src/changes/handlers.js';
import { createChangeLogStore, HEAD_ID } from '../../../src/changes/store.js';
import { fixedClock } from '../../../src/clock.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { cachedFacts, cachedRegistry, createSourcesStore } from '../../../src/sources/index.js';
import { SOURCES_ID } from '../../../src/sources/store.js';
import type { DeliveryMessage } from '../../../src/watches/delivery.js';
import { createMatchHandler } from '../../../src/watches/match/handler.js';
import { createTransitionMatcher } from '../../../src/watches/match/transitions.js';
import type { QueuedMessage } from '../../../src/watches/queue.js';
import { testDocumentClient } from '../../support/handlers.js';
import { storedLeg } from '../../support/legs.js';

/**
 * Watches filtering by `source`, `kind` and `verifiedOnly` (docs/api.md, "Watches"), through the
 * change consumer and the matcher as the functions build them, DynamoDB mocked: the leg's source
 * travels in the log's state item, the kinds and verification come from the registry item `~sources`.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const NOW = Date.parse('2026-11-25T10:00:05Z');
const LONG_AGO = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3_600_000;
type Image = NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];
const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true }) as Image;
const CLIENT = 'cli_AAAAAAAAAAAAAAAAAAAA';
const WATCHES: Record<string, Record<string, string>> = {
  all: {},
  acme: { source: 'acme-air' },
  others: { source: 'resell-co,default' },
  operators: { kind: 'operator' },
  brokers: { kind: 'broker' },
  verified: { verifiedOnly: 'true' },
  anyVerified: { verifiedOnly: 'false' },
  verifiedBrokers: { kind: 'broker', verifiedOnly: 'true' },
  fresh: { maxAgeHours: '3' },
};
const settings = (kind: string, verified: boolean) => ({ name: null, kind, verified, verifiedAt: verified ? NOW : null, staleAfterMinutes: null, staleAfterSetAt: null });

let states: Record<string, unknown>[];
let registry: Record<string, unknown>;

beforeEach(() => {
  ddb.reset();
  states = [];
  registry = { id: SOURCES_ID, rev: 2, 's.acme-air': settings('operator', true), 's.resell-co': settings('broker', false) };
  ddb.on(GetCommand, { TableName: 'legs' }).resolves({ Item: { id: HEAD_ID, q: 7 } });
  ddb.on(GetCommand, { TableName: 'legs', Key: { id: SOURCES_ID } }).callsFake(() => Promise.resolve({ Item: registry }));
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, unknown> }) =>
    Promise.resolve(input.RequestItems.deliveries === undefined ? { Responses: { legs: states } } : { Responses: { deliveries: [] } }),
  );
  ddb.on(TransactWriteCommand).callsFake((input: { TransactItems: { Put?: { Item?: Record<string, unknown> } }[] }) => {
    for (const t of input.TransactItems) if (String(t.Put?.Item?.id).startsWith('~feed#')) states.push(t.Put!.Item!);
    return Promise.resolve({});
  });
  ddb.on(GetCommand, { TableName: 'watches' }).resolves({ Item: { clientId: '~version', watchId: '~version', version: 1 } });
  ddb.on(ScanCommand, { TableName: 'watches' }).resolves({ Items: Object.entries(WATCHES).map(([watchId, filters]) => ({ clientId: CLIENT, watchId, filters, status: 'active' })) });
  ddb.on(BatchWriteCommand).resolves({});
});

/** The state records of what the change consumer committed for `record`. */
async function consume(record: DynamoDBRecord): Promise<DynamoDBStreamEvent> {
  const before = states.length;
  await createChangeConsumerHandler({ store: createChangeLogStore(testDocumentClient(), 'legs'), clock: fixedClock(NOW), stage: 'prod', emit: () => undefined })({ Records: [record] });
  return {
    Records: states.slice(before).map((s, i) => ({
      eventName: 'INSERT',
      dynamodb: { ApproximateCreationDateTime: NOW / 1000, Keys: { id: { S: String(s.id) } }, SequenceNumber: `9${i}`, NewImage: image(s) },
    })),
  };
}

/** The matcher as functions/match-watches/handler.ts builds it (its registry read through the cache). */
function matcher(sent: QueuedMessage[]) {
  const client = testDocumentClient();
  return createMatchHandler({
    match: createTransitionMatcher({
      tables: { client, watchesTableName: 'watches', deliveriesTableName: 'deliveries' },
      queue: { send: (messages) => Promise.resolve(void sent.push(...messages)) },
      airports: () => new AirportIndex([]),
      clock: fixedClock(NOW),
      sources: cachedFacts(cachedRegistry(createSourcesStore(client, 'legs'), { clock: fixedClock(NOW) })),
      activeClients: () => Promise.resolve({ has: () => true }),
    }),
    clock: fixedClock(NOW),
    stage: 'prod',
    emit: () => undefined,
  });
}

/**
 * The watches that get `empty_leg.listed` for a new leg of `source` (none: loaded without one),
 * confirmed `confirmedAt` (none: long ago; a new leg written without one counts as confirmed by that write).
 */
async function listedTo(source: string | undefined, id: string, confirmedAt: number = LONG_AGO): Promise<string[]> {
  const leg = toStorageItem(storedLeg({ id, startDate: '2026-12-01', endDate: '2026-12-03', ...(source === undefined ? {} : { source }), ...(confirmedAt === undefined ? {} : { confirmedAt }) }));
  const event = await consume({ eventName: 'INSERT', dynamodb: { Keys: { id: { S: id } }, SequenceNumber: `4${id.length}${states.length}`, NewImage: image(leg) } });
  expect(event.Records).toHaveLength(1);
  const sent: QueuedMessage[] = [];
  await matcher(sent)(event);
  return sent
    .map((m) => JSON.parse((JSON.parse(m.body) as DeliveryMessage).payload) as { type: string; data: { watchId: string } })
    .map((p) => {
      expect(p.type).toBe('empty_leg.listed');
      return p.data.watchId;
    })
    .sort();
}

describe('the watches matcher: source, kind, verifiedOnly', () => {
  it("keeps the leg's source (not `default`) and confirmed instant (when known) in the log's state, where the matcher reads them", async () => {
    await listedTo('acme-air', 'EL-1');
    await listedTo(undefined, 'EL-2', NOW - HOUR);
    expect(states.map((s) => [s.id, s.s, s.c])).toEqual([
      ['~feed#EL-1', 'acme-air', LONG_AGO],
      ['~feed#EL-2', undefined, Math.floor((NOW - HOUR) / 1000) * 1000],
    ]);
  });

  it('maxAgeHours: a leg confirmed within the hours, not one confirmed before them or never', async () => {
    expect(await listedTo('acme-air', 'EL-7', NOW - 2 * HOUR)).toContain('fresh');
    expect(await listedTo('acme-air', 'EL-8', NOW - 4 * HOUR)).not.toContain('fresh');
    expect(await listedTo('acme-air', 'EL-9')).not.toContain('fresh');
  });

  it('a registered, verified operator: the watches of its id, its kind and verifiedOnly', async () => {
    expect(await listedTo('acme-air', 'EL-1')).toEqual(['acme', 'all', 'anyVerified', 'operators', 'verified']);
  });

  it('an unverified broker', async () => {
    expect(await listedTo('resell-co', 'EL-3')).toEqual(['all', 'anyVerified', 'brokers', 'others']);
  });

  it('a leg without a source, and a source nobody registered: unknown, unverified', async () => {
    expect(await listedTo(undefined, 'EL-4')).toEqual(['all', 'anyVerified', 'others']);
    expect(await listedTo('jets-4-u', 'EL-5')).toEqual(['all', 'anyVerified']);
  });

  it('follows the registry: a source verified since is judged so by a new container', async () => {
    registry = { ...registry, rev: 3, 's.resell-co': settings('broker', true) };
    expect(await listedTo('resell-co', 'EL-6')).toEqual(['all', 'anyVerified', 'brokers', 'others', 'verified', 'verifiedBrokers']);
  });
});
