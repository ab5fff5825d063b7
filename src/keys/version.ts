import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The keys version: the keys table's item `~version` (never a key's hash; no `ttl`), whose `v` every
 * key command bumps after it changed a key; the authorizer empties its key caches when it moved
 * (docs/api-keys.md, "What the authorizer caches, and for how long").
 */
export const KEYS_VERSION_HASH = '~version';

/** Adds one to the keys version (creating the item at 1). */
export async function bumpKeysVersion(client: DynamoDBDocumentClient, tableName: string): Promise<void> {
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { keyHash: KEYS_VERSION_HASH },
      UpdateExpression: 'ADD v :one',
      ExpressionAttributeValues: { ':one': 1 },
    }),
  );
}

/** The keys version (0 before any bump). A strongly consistent read: a revocation is seen at once. */
export async function readKeysVersion(client: DynamoDBDocumentClient, tableName: string): Promise<number> {
  const out = await client.send(new GetCommand({ TableName: tableName, Key: { keyHash: KEYS_VERSION_HASH }, ConsistentRead: true }));
  const v: unknown = out.Item?.v;
  return typeof v === 'number' ? v : 0;
}

/** The same update as one item of a TransactWriteItems (used where a key change is a transaction). */
export function bumpKeysVersionItem(tableName: string) {
  return {
    Update: {
      TableName: tableName,
      Key: { keyHash: KEYS_VERSION_HASH },
      UpdateExpression: 'ADD v :one',
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}
