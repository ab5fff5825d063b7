import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CLIENT_ITEM_PREFIX } from '../../tables.js';
import { bumpKeysVersion } from '../version.js';
import { isRateLimit, type RateLimit } from './rate-limit.js';

/**
 * A client's rate limit, across all its keys (docs/api.md, "Rate limits"): `rateLimit` on the client's
 * item `client#<clientId>` of the keys table, DEFAULT_CLIENT_RATE_LIMIT without one. Set by
 * `npm run keys -- client-limit`, which bumps the keys version (in effect within the revocation bound).
 */
export const DEFAULT_CLIENT_RATE_LIMIT: RateLimit = { rate: 20, burst: 40 };
/** The name of the client's quota policy in the RateLimit-Policy and RateLimit fields. */
export const CLIENT_POLICY_NAME = 'per-client';

/** The client's own limit, or undefined (the default applies). A strongly consistent GetItem of its item. */
export async function readClientRateLimit(client: DynamoDBDocumentClient, tableName: string, clientId: string): Promise<RateLimit | undefined> {
  const out = await client.send(
    new GetCommand({ TableName: tableName, Key: { keyHash: CLIENT_ITEM_PREFIX + clientId }, ProjectionExpression: 'rateLimit', ConsistentRead: true }),
  );
  const limit: unknown = out.Item?.rateLimit;
  return isRateLimit(limit) ? { rate: limit.rate, burst: limit.burst } : undefined;
}

/** Sets the client's own limit (undefined: back to the default), then bumps the keys version. */
export async function setClientRateLimit(client: DynamoDBDocumentClient, tableName: string, clientId: string, limit: RateLimit | undefined): Promise<void> {
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { keyHash: CLIENT_ITEM_PREFIX + clientId },
      ...(limit
        ? { UpdateExpression: 'SET rateLimit = :limit', ExpressionAttributeValues: { ':limit': { rate: limit.rate, burst: limit.burst } } }
        : { UpdateExpression: 'REMOVE rateLimit' }),
    }),
  );
  await bumpKeysVersion(client, tableName);
}
