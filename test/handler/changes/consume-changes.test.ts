import { beforeEach, describe, expect, it } from '@jest/globals';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { DynamoDBRecord } from 'aws-lambda';
import { createChangeConsumerHandler } from '../../../src/changes/handlers.js';
import { createChangeLogStore, HEAD_ID } from '../../../src/changes/store.js';
import type { ListingTransition } from '../../../src/changes/transition.js';
import { fixedClock } from '../../../src/clock.js';
import { toApiRecord } from '../../../src/kernel/model.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { testDocumentClient } from '../../support/handlers.js';
import { storedLeg } from '../../support/legs.js';

/** The stream consumer as functions/consume-changes/handler.ts builds it, DynamoDB mocked: a Lambda DynamoDB stream event in, the log's transaction out. */
const ddb = mockClient(DynamoDBDocumentClient);
const NOW = Date.parse('2026-11-25T10:00:05Z');
const LEG = toStorageItem(storedLeg({ id: 'EL-1', startDate: '2026-12-01', endDate: '2026-12-03', price: 10 }));
const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true }) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];
const record = (seq: string, id: string, oldItem?: Record<string, unknown>, newItem?: Record<string, unknown>): DynamoDBRecord => ({
  eventName: oldItem ? (newItem ? 'MODIFY' : 'REMOVE') : 'INSERT',
  dynamodb: {
    ApproximateCreationDateTime: NOW / 1000 - 2,
    Keys: { id: { S: id } },
    SequenceNumber: seq,
    ...(oldItem ? { OldImage: image(oldItem) } : {}),
    ...(newItem ? { NewImage: image(newItem) } : {}),
  },
});

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand, { Key: { id: HEAD_ID } }).resolves({ Item: { id: HEAD_ID, q: 7 } });
  ddb.on(BatchGetCommand).resolves({ Responses: { legs: [] } });
  ddb.on(TransactWriteCommand).resolves({});
});

describe('the change consumer', () => {
  it('turns a batch into one transaction: entries numbered after the head, the states, the head, each conditioned; subscribers get the transitions; one EMF line', async () => {
    const lines: string[] = [];
    const seen: ListingTransition[] = [];
    const handler = createChangeConsumerHandler({
      store: createChangeLogStore(testDocumentClient(), 'legs'),
      clock: fixedClock(NOW),
      stage: 'prod',
      emit: (l) => lines.push(l),
      subscribers: [(t) => Promise.resolve(void seen.push(...t))],
    });
    await handler({
      Records: [
        record('100', 'EL-1', undefined, LEG),
        record('101', '~journal', undefined, { id: '~journal', v: 3 }),
        record('102', 'EL-1', LEG, { ...LEG, price: 12 }),
      ],
    });
    const tx = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(tx.map((t) => String(t.Put?.Item?.id ?? t.Update?.Key?.id))).toEqual(['~change#8', '~change#9', '~feed#EL-1', '~changes#p0', HEAD_ID]);
    // The index page holds both entries' index changes (what the listing's caches read).
    expect(tx[3]!.Update!.ExpressionAttributeValues).toMatchObject({ ':c8': ['EL-1', expect.any(String), expect.any(String), expect.any(String)], ':c9': ['EL-1', expect.any(String), expect.any(String), expect.any(String)] });
    expect(tx[0]!.Put).toMatchObject({ Item: { q: 8, k: 'l', l: 'EL-1', a: NOW }, ConditionExpression: 'attribute_not_exists(id)' });
    expect(JSON.parse(String(tx[1]!.Put!.Item!.r))).toEqual(toApiRecord({ ...LEG, price: 12 }));
    expect(tx[2]!.Put).toMatchObject({ Item: { n: '102' }, ConditionExpression: 'attribute_not_exists(id)' });
    expect(tx[4]!.Put).toMatchObject({ Item: { q: 9 }, ConditionExpression: 'q = :q', ExpressionAttributeValues: { ':q': 7 } });
    expect(ddb.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems).toEqual({ legs: { Keys: [{ id: '~feed#EL-1' }], ConsistentRead: true } });
    expect(seen.map((t) => [t.id, t.before?.price ?? null, t.after?.price ?? null])).toEqual([
      ['EL-1', null, 10],
      ['EL-1', 10, 12],
    ]);
    const emf = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(emf).toMatchObject({ Stage: 'prod', ChangeLogEntries: 2, ListingTransitions: 2, ChangeLagMs: 2000 });
  });

  it('a record already applied adds nothing; a transaction lost to another writer is retried on fresh states, then the batch fails', async () => {
    const handler = createChangeConsumerHandler({ store: createChangeLogStore(testDocumentClient(), 'legs'), clock: fixedClock(NOW), stage: 'prod', emit: () => undefined });
    ddb.on(BatchGetCommand).resolves({ Responses: { legs: [{ id: '~feed#EL-1', n: '100', d: 'x' }] } });
    await handler({ Records: [record('100', 'EL-1', undefined, LEG)] });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);

    ddb.on(BatchGetCommand).resolves({ Responses: { legs: [] } });
    ddb.on(TransactWriteCommand).rejects(Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException' }));
    await expect(handler({ Records: [record('200', 'EL-2', undefined, { ...LEG, id: 'EL-2' })] })).rejects.toThrow('conflict');
    expect(ddb.commandCalls(TransactWriteCommand).length).toBe(10);
  }, 30_000);
});
