import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KEYS_BY_ID_INDEX } from '../tables.js';
import { isKeyId } from './format.js';
import { toKeyRecord, type KeyRecord } from './record.js';

/** Key records read by their hash (the authorizer) or their public id; their writes are src/api-keys/store.ts. */

/** The key whose hash is `keyHash`, or undefined. A strongly consistent read: a new key works at once. */
export async function getKeyByHash(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyHash: string,
): Promise<KeyRecord | undefined> {
  const out = await client.send(new GetCommand({ TableName: tableName, Key: { keyHash }, ConsistentRead: true }));
  return out.Item ? toKeyRecord(out.Item) : undefined;
}

/** The key with public id `keyId` (index `byKeyId`), or undefined. */
export async function getKeyById(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
): Promise<KeyRecord | undefined> {
  if (!isKeyId(keyId)) return undefined;
  const out = await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: KEYS_BY_ID_INDEX.indexName,
      KeyConditionExpression: 'keyId = :id',
      ExpressionAttributeValues: { ':id': keyId },
    }),
  );
  const item = out.Items?.[0];
  return item ? toKeyRecord(item) : undefined;
}
