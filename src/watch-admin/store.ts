import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { writtenIf } from '../aws/dynamodb.js';
import { DELIVERIES_BY_ID_INDEX } from '../tables.js';
import { bumpVersion, getDelivery, type DeliveryRecord, type WatchRecord, type WatchTables } from '../watches/index.js';

/**
 * The owner's changes to a watch and its deliveries (src/tables.ts WATCHES_TABLE,
 * WATCH_DELIVERIES_TABLE): conditional updates of the item as it was read, so a change made
 * meanwhile (another request, the delivery worker) is never overwritten.
 */
export type WatchChange = Partial<Pick<WatchRecord, 'url' | 'filters' | 'description' | 'include' | 'status' | 'disabledAt' | 'failingSince'>>;

/** Sets `fields` on the watch; false when it is gone. The matchers index the watches again. */
export async function updateWatch(t: WatchTables, watch: WatchRecord, fields: WatchChange): Promise<boolean> {
  const entries = Object.entries(fields);
  if (entries.length === 0) return true;
  const written = await writtenIf(() =>
    t.client.send(
      new UpdateCommand({
        TableName: t.watchesTableName,
        Key: { clientId: watch.clientId, watchId: watch.watchId },
        UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(watchId)',
        ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
      }),
    ),
  );
  if (!written) return false;
  await bumpVersion(t, watch);
  return true;
}

/**
 * Replaces the signing secret of the watch as read (`watch.secret`); false when it is gone or its
 * secret changed meanwhile (a rotation at the same instant).
 */
export async function replaceSecret(t: WatchTables, watch: WatchRecord, secret: string, previousExpiresAt: string): Promise<boolean> {
  return writtenIf(() =>
    t.client.send(
      new UpdateCommand({
        TableName: t.watchesTableName,
        Key: { clientId: watch.clientId, watchId: watch.watchId },
        UpdateExpression: 'SET secret = :new, previousSecret = :old, previousSecretExpiresAt = :until',
        ConditionExpression: 'attribute_exists(watchId) AND secret = :old',
        ExpressionAttributeValues: { ':new': secret, ':old': watch.secret, ':until': previousExpiresAt },
      }),
    ),
  );
}

/**
 * A delivery of the watch by its id (`webhook-id`), among the deliveries kept: its key from the
 * `byDeliveryId` index (keys only), then the item by that key, strongly consistent.
 */
export async function findDelivery(t: WatchTables, watchId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
  const out = await t.client.send(
    new QueryCommand({
      TableName: t.deliveriesTableName,
      IndexName: DELIVERIES_BY_ID_INDEX.indexName,
      KeyConditionExpression: 'id = :id',
      ExpressionAttributeValues: { ':id': deliveryId },
    }),
  );
  // An id names one event of one watch; another watch's delivery is not this watch's.
  const key = out.Items?.find((item) => item.watchId === watchId);
  return typeof key?.deliveryKey === 'string' ? getDelivery(t, watchId, key.deliveryKey) : undefined;
}

/**
 * Adds a replay to the delivery's history: one attempt more, its instant and status; a 2xx makes it
 * `delivered` (a pending retry then finds nothing to do). The delivery as it is after, or undefined when gone.
 */
export async function recordReplay(
  t: WatchTables,
  d: Pick<DeliveryRecord, 'watchId' | 'deliveryKey'>,
  attempt: { at: string; responseCode: number | null; delivered: boolean },
): Promise<DeliveryRecord | undefined> {
  const delivered = attempt.delivered ? ', #status = :delivered, nextAttemptAt = :null' : '';
  try {
    const out = await t.client.send(
      new UpdateCommand({
        TableName: t.deliveriesTableName,
        Key: { watchId: d.watchId, deliveryKey: d.deliveryKey },
        UpdateExpression: `ADD attempts :one SET lastAttemptAt = :at, responseCode = :code${delivered}`,
        ConditionExpression: 'attribute_exists(deliveryKey)',
        ExpressionAttributeNames: attempt.delivered ? { '#status': 'status' } : undefined,
        ExpressionAttributeValues: {
          ':one': 1,
          ':at': attempt.at,
          ':code': attempt.responseCode,
          ...(attempt.delivered ? { ':delivered': 'delivered', ':null': null } : {}),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as DeliveryRecord | undefined;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return undefined;
    throw err;
  }
}
