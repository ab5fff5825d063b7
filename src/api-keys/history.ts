import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KeyEnvironment } from '../auth/verdict.js';
import { CLIENT_ITEM_PREFIX, HISTORY_PREFIX } from '../tables.js';
import { queryByClient } from './clients.js';
import { epochSeconds, randomBase62 } from '../keys/index.js';
import { DAY_MS } from './grace.js';
import { keyedUntilOf, type Keyring } from './keyring.js';

/** A history item's life: DynamoDB TTL removes it a year after its change (docs/api-keys.md, "History"). */
export const HISTORY_RETENTION_MS = 365 * DAY_MS;

/**
 * A client's key history: one item per change (create, rotate, revoke), by the API (the acting key's
 * id) or the command, written in the change's own transaction; never a secret (docs/api-keys.md, "History").
 */
export type Actor = { via: 'command' } | { via: 'api'; keyId: string };
export const BY_COMMAND: Actor = { via: 'command' };
export type KeyAction = 'create' | 'rotate' | 'revoke';

export interface HistoryEntry {
  at: string;
  action: KeyAction;
  keyId: string;
  clientId: string;
  environment: KeyEnvironment;
  via: Actor['via'];
  /** The key that made the change through the API; null for the command. */
  actorKeyId: string | null;
  /** rotate: the new key and the end of the old one's grace. */
  successorKeyId?: string;
  graceUntil?: string;
}

export function historyEntry(
  action: KeyAction,
  key: { keyId: string; clientId: string; environment: KeyEnvironment },
  actor: Actor,
  at: string,
  extra: Pick<HistoryEntry, 'successorKeyId' | 'graceUntil'> = {},
): HistoryEntry {
  return { at, action, keyId: key.keyId, clientId: key.clientId, environment: key.environment, via: actor.via, actorKeyId: actor.via === 'api' ? actor.keyId : null, ...extra };
}

const withoutKeyId = ({ keyId: _keyId, ...rest }: HistoryEntry) => rest;

/** The history item's Put, one item of the change's TransactWriteItems. */
export function historyPut(tableName: string, entry: HistoryEntry) {
  return {
    Put: {
      TableName: tableName,
      // `changedKeyId`, not `keyId`: a history item stays out of the `byKeyId` index.
      Item: {
        ...withoutKeyId(entry),
        changedKeyId: entry.keyId,
        keyHash: `${HISTORY_PREFIX}${entry.clientId}#${entry.at}#${randomBase62(8)}`,
        clientId: HISTORY_PREFIX + entry.clientId,
        createdAt: entry.at,
        ttl: epochSeconds(Date.parse(entry.at) + HISTORY_RETENTION_MS),
      },
      ConditionExpression: 'attribute_not_exists(keyHash)',
    },
  };
}

/**
 * The client's change counter (`client#<clientId>`, attribute `rev`), one item of every change's
 * transaction: with `seen`, the change is refused when another one came in between (checks made on
 * the client's keys, such as the last write key, hold). With `ring`, its keyring and `keyedUntil` are set.
 */
export function clientRevision(tableName: string, clientId: string, seen?: number, ring?: Keyring) {
  const values = { ':one': 1, ...(ring ? { ':ring': ring, ':until': keyedUntilOf(ring) } : {}) };
  return {
    Update: {
      TableName: tableName,
      Key: { keyHash: CLIENT_ITEM_PREFIX + clientId },
      UpdateExpression: ring ? 'ADD rev :one SET keyring = :ring, keyedUntil = :until' : 'ADD rev :one',
      ...(seen === undefined
        ? { ExpressionAttributeValues: values }
        : seen === 0
          ? { ConditionExpression: 'attribute_not_exists(rev)', ExpressionAttributeValues: values }
          : { ConditionExpression: 'rev = :seen', ExpressionAttributeValues: { ...values, ':seen': seen } }),
    },
  };
}

/** The client's history, oldest first. */
export async function readHistory(client: DynamoDBDocumentClient, tableName: string, clientId: string): Promise<HistoryEntry[]> {
  return (await queryByClient(client, tableName, HISTORY_PREFIX + clientId)).map((item) => {
    const { keyHash: _k, createdAt: _c, changedKeyId, ...rest } = item as Omit<HistoryEntry, 'keyId'> & { keyHash: string; createdAt: string; changedKeyId: string };
    return { ...rest, keyId: changedKeyId, clientId };
  });
}
