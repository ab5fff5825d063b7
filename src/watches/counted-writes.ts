import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { backoffDelay, sleep } from '../aws/backoff.js';
import { bumpVersion, countWatches, WatchLimitReached, type WatchRecord, type WatchTables } from './store.js';

/**
 * A client's count of watches: an item of its own (`~count#<client>`), changed in the transaction
 * that creates or deletes a watch, so that concurrent creations never pass the limit.
 */
const countKey = (clientId: string) => ({ clientId: `~count#${clientId}`, watchId: '~count' });
/** Attempts at a transaction that other writers of the same count keep cancelling. */
const COUNT_ATTEMPTS = 40;

/** The client's count; the item is made from what the table holds on its first create or delete since counts exist. */
async function ensureCount(t: WatchTables, clientId: string): Promise<number> {
  const out = await t.client.send(new GetCommand({ TableName: t.watchesTableName, Key: countKey(clientId), ConsistentRead: true }));
  if (typeof out.Item?.n === 'number') return out.Item.n;
  // No create or delete of this client passes without the item: the count read is stable.
  const n = await countWatches(t, clientId);
  try {
    await t.client.send(new PutCommand({ TableName: t.watchesTableName, Item: { ...countKey(clientId), n }, ConditionExpression: 'attribute_not_exists(watchId)' }));
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
  return n;
}

/**
 * Runs a transaction whose first item is the count's update: 'refused' when that item's condition
 * failed, 'missing' when the second's did; cancelled by a concurrent writer, it is tried again.
 */
async function countedTransaction(
  t: WatchTables,
  items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>,
  refusedBefore: () => Promise<boolean> = () => Promise.resolve(false),
): Promise<'done' | 'refused' | 'missing'> {
  for (let attempt = 1; ; attempt++) {
    // After a cancellation, a count read again may say at once what the transaction would.
    if (attempt > 1 && (await refusedBefore())) return 'refused';
    try {
      await t.client.send(new TransactWriteCommand({ TransactItems: items }));
      return 'done';
    } catch (err) {
      const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
      if (reasons[0]?.Code === 'ConditionalCheckFailed') return 'refused';
      if (reasons[1]?.Code === 'ConditionalCheckFailed') return 'missing';
      const conflict = (err as Error).name === 'TransactionConflictException' || reasons.some((r) => r.Code === 'TransactionConflict');
      if (!conflict || attempt >= COUNT_ATTEMPTS) throw err;
      await sleep(backoffDelay(Math.min(attempt - 1, 6), 10, 500));
    }
  }
}

/** Stores a new watch unless the client already has `maxPerClient` (WatchLimitReached), also under concurrent creations. */
export async function putWatch(t: WatchTables, watch: WatchRecord, maxPerClient: number): Promise<void> {
  const full = async () => (await ensureCount(t, watch.clientId)) >= maxPerClient;
  if (await full()) throw new WatchLimitReached(`at most ${maxPerClient} watches per client`);
  const outcome = await countedTransaction(
    t,
    [
    {
      Update: {
        TableName: t.watchesTableName,
        Key: countKey(watch.clientId),
        UpdateExpression: 'ADD n :one',
        ConditionExpression: 'n < :max',
        ExpressionAttributeValues: { ':one': 1, ':max': maxPerClient },
      },
    },
    { Put: { TableName: t.watchesTableName, Item: watch, ConditionExpression: 'attribute_not_exists(watchId)' } },
    ],
    full,
  );
  if (outcome === 'refused') throw new WatchLimitReached(`at most ${maxPerClient} watches per client`);
  if (outcome === 'missing') throw new Error(`watch ${watch.watchId} exists already`);
  await bumpVersion(t, watch);
}

/** Deletes a watch; false when the client has none with this id. */
export async function deleteWatch(t: WatchTables, clientId: string, watchId: string): Promise<boolean> {
  await ensureCount(t, clientId);
  const outcome = await countedTransaction(t, [
    { Update: { TableName: t.watchesTableName, Key: countKey(clientId), UpdateExpression: 'ADD n :minus', ExpressionAttributeValues: { ':minus': -1 } } },
    { Delete: { TableName: t.watchesTableName, Key: { clientId, watchId }, ConditionExpression: 'attribute_exists(watchId)' } },
  ]);
  if (outcome === 'missing') return false;
  await bumpVersion(t, { clientId, watchId });
  return true;
}

