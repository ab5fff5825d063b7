import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { bumpKeysVersionItem } from '../keys/index.js';
import { KeyStoreError } from './rules.js';
import { clientRevision, historyPut, type Actor, type HistoryEntry } from './history.js';
import { clientKeys, readClient, type ClientState } from './clients.js';
import { applyRingChange, authenticating, emptyRing, ringOf, type Keyring, type RingChange } from './keyring.js';

/** One key change's transaction (src/api-keys/store.ts): the client's item read before, then every item written at once. */
/** Who makes a change (its history entry) and, through the API, the client revision its checks read. */
export interface ChangeOptions {
  actor?: Actor;
  seenRevision?: number;
  /** Refuse the change (`limit`) when the client would then hold more keys that authenticate in the key's environment. */
  keyCap?: number;
}

/** The client's item as the change found it (read strongly), and its keyring. */
export interface ClientBefore {
  clientId: string;
  state: ClientState;
  ring: Keyring;
}

const concurrent = (keyId: string) => new KeyStoreError('concurrent', `Key ${keyId} or its client was changed by another request at the same time; try again`);

/**
 * The client's item before a change; the change is conditional on its revision. An item from before
 * keyrings gets one from the client's keys (the `byClient` index): once, its first change writes it.
 */
export async function clientBefore(client: DynamoDBDocumentClient, tableName: string, clientId: string, keyId: string, options: ChangeOptions, now: number, isNew = false): Promise<ClientBefore> {
  const state: ClientState = isNew ? { approvedScopes: undefined, revision: 0, keyring: undefined } : await readClient(client, tableName, clientId);
  if (options.seenRevision !== undefined && state.revision !== options.seenRevision) throw concurrent(keyId);
  const ring = state.keyring ?? (isNew ? emptyRing() : ringOf(await clientKeys(client, tableName, clientId), now));
  return { clientId, state, ring };
}

/** A change's transaction: its own items, its history entry, the client's revision and keyring, and the keys version. */
export async function writeChange(
  client: DynamoDBDocumentClient,
  tableName: string,
  items: object[],
  entry: HistoryEntry,
  before: ClientBefore,
  change: RingChange,
  options: ChangeOptions,
): Promise<void> {
  const now = Date.parse(entry.at);
  const ring = applyRingChange(before.ring, change, now);
  if (options.keyCap !== undefined && change.action !== 'revoke' && authenticating(ring, change.environment, now) > options.keyCap) {
    throw new KeyStoreError(
      'limit',
      `This client has ${options.keyCap} keys that authenticate (active or in grace) in this environment, the most it may have; revoke one first${change.action === 'rotate' ? ', or rotate with a grace of 0' : ''}`,
    );
  }
  try {
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          ...(items as never[]),
          historyPut(tableName, entry),
          clientRevision(tableName, before.clientId, before.state.revision, ring),
          // The keys version, in the same transaction: authorizers see the change within a second.
          bumpKeysVersionItem(tableName),
        ],
      }),
    );
  } catch (err) {
    if (err instanceof TransactionCanceledException) throw concurrent(entry.keyId);
    throw err;
  }
}

