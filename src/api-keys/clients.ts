import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CLIENT_ITEM_PREFIX, KEYS_BY_CLIENT_INDEX } from '../tables.js';
import { getKeyById, iso, toKeyRecord, type KeyRecord } from '../keys/index.js';
import { CLIENT_ID_PREFIX_LENGTH } from './rules.js';
import type { Keyring, RingSide } from './keyring.js';

/**
 * A client's item (`client#<clientId>`): the scopes the operator approved for it (absent: those its
 * keys hold, docs/api-keys.md "Approved scopes") and `rev`, its change counter (src/api-keys/history.ts).
 */
export interface ClientState {
  approvedScopes: string[] | undefined;
  revision: number;
  /** Its keys that authenticate (src/api-keys/keyring.ts); undefined: an item from before keyrings. */
  keyring: Keyring | undefined;
}

function ringSide(value: unknown): RingSide | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { active, grace } = value as { active?: unknown; grace?: unknown };
  if (typeof active !== 'number' || typeof grace !== 'object' || grace === null) return undefined;
  const entries = Object.entries(grace as Record<string, unknown>);
  return entries.every(([, until]) => typeof until === 'string') ? { active, grace: Object.fromEntries(entries) as Record<string, string> } : undefined;
}

function keyringOf(value: unknown): Keyring | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const live = ringSide((value as { live?: unknown }).live);
  const test = ringSide((value as { test?: unknown }).test);
  return live && test ? { live, test } : undefined;
}

export async function readClient(client: DynamoDBDocumentClient, tableName: string, clientId: string): Promise<ClientState> {
  const out = await client.send(new GetCommand({ TableName: tableName, Key: { keyHash: CLIENT_ITEM_PREFIX + clientId }, ConsistentRead: true }));
  const scopes: unknown = out.Item?.approvedScopes;
  const rev: unknown = out.Item?.rev;
  return {
    approvedScopes: Array.isArray(scopes) || scopes instanceof Set ? [...(scopes as Iterable<string>)].sort() : undefined,
    revision: typeof rev === 'number' ? rev : 0,
    keyring: keyringOf(out.Item?.keyring),
  };
}

/**
 * Sets the client's approved scopes (the command's `approve`) and moves its revision: a change checked
 * against the approvals before (a create through the API) then fails its transaction and is checked again.
 */
export async function setApprovedScopes(client: DynamoDBDocumentClient, tableName: string, clientId: string, scopes: readonly string[], now: number): Promise<void> {
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { keyHash: CLIENT_ITEM_PREFIX + clientId },
      UpdateExpression: 'SET approvedScopes = :scopes, approvedAt = :at ADD rev :one',
      ExpressionAttributeValues: { ':scopes': [...scopes], ':at': iso(now), ':one': 1 },
    }),
  );
}

/**
 * The client's keys, oldest first: those of the `byClient` index (an index read: a change of the
 * last second may be missing) and a key made before clients existed, whose client is derived from its id.
 */
/** Every item of the `byClient` index under `partition` (a client id, or its history's name), oldest first. */
export async function queryByClient(client: DynamoDBDocumentClient, tableName: string, partition: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: KEYS_BY_CLIENT_INDEX.indexName,
        KeyConditionExpression: 'clientId = :c',
        ExpressionAttributeValues: { ':c': partition },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

export async function clientKeys(client: DynamoDBDocumentClient, tableName: string, clientId: string): Promise<KeyRecord[]> {
  const keys = (await queryByClient(client, tableName, clientId)).map(toKeyRecord);
  const legacy = await getKeyById(client, tableName, `key_${clientId.slice(CLIENT_ID_PREFIX_LENGTH)}`);
  if (legacy && legacy.clientId === undefined) keys.unshift(legacy);
  return keys;
}
