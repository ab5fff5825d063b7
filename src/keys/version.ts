import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The keys version: one item in the keys table (keyHash `~version`, which no SHA-256 hex hash can
 * be, and no `ttl`), whose number `v` every key command bumps after it changed a key (create, rotate,
 * revoke). The authorizer reads it at most once a second and, when it moved, forgets every key it
 * cached, so a revocation or a rotation takes effect within about a second (src/keys/authorizer.ts).
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
