import { BatchGetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../clock.js';
import { logger } from '../../logger.js';
import { CLIENT_ITEM_PREFIX, KEYS_BY_CLIENT_INDEX, KEYS_BY_ID_INDEX } from '../../tables.js';
import { clientIdOf, keyState } from '../../keys/index.js';
import { CLIENT_ITEM_ATTRIBUTES } from '../../table-access.js';

/**
 * Which clients may receive pushes (docs/watches.md, "A client without a key"): those with a key that
 * authenticates now (active, or rotated and in its grace). Read per client from its item of the keys
 * table (`client#<clientId>`: `keyedUntil`, which every key change writes in its transaction), at most
 * every `intervalMs` per client; never a scan. A failed read backs off; meanwhile what was read last serves.
 */
export interface ActiveClients {
  /** Whether `clientId` has a key that authenticates at `now`. */
  has(clientId: string, now: number): boolean;
}

const KEY_PROJECTION = { ProjectionExpression: 'keyId, clientId, #status, graceUntil', ExpressionAttributeNames: { '#status': 'status' } } as const;
const BATCH_GET_LIMIT = 100;
const BACKOFF_MIN_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;

const STATUSES = ['active', 'rotated', 'revoked'] as const;

/** Until when each client has a key (Infinity: an active key), from the key items read. */
export function keyedUntil(items: readonly Record<string, unknown>[], now: number): Map<string, number> {
  const until = new Map<string, number>();
  for (const item of items) {
    const status = STATUSES.find((x) => x === item.status);
    if (typeof item.keyId !== 'string' || status === undefined) continue;
    const record = { keyId: item.keyId, status, ...(typeof item.clientId === 'string' ? { clientId: item.clientId } : {}), ...(typeof item.graceUntil === 'string' ? { graceUntil: item.graceUntil } : {}) };
    const state = keyState(record, now);
    const end = state === 'active' ? Number.POSITIVE_INFINITY : state === 'rotated' ? Date.parse(record.graceUntil!) : undefined;
    if (end === undefined) continue;
    const client = clientIdOf(record);
    until.set(client, Math.max(until.get(client) ?? 0, end));
  }
  return until;
}

interface Deps {
  client: DynamoDBDocumentClient;
  keysTableName: string;
  clock: Clock;
  intervalMs: number;
}

/** A client whose item has no `keyedUntil` yet (no key change since keyrings): its keys, by the indexes. */
async function untrackedUntil(deps: Deps, clientId: string, now: number): Promise<number> {
  const query = async (index: string, key: string, value: string) =>
    (await deps.client.send(new QueryCommand({ TableName: deps.keysTableName, IndexName: index, KeyConditionExpression: `${key} = :v`, ExpressionAttributeValues: { ':v': value }, ...KEY_PROJECTION }))).Items ?? [];
  const [own, legacy] = await Promise.all([
    query(KEYS_BY_CLIENT_INDEX.indexName, 'clientId', clientId),
    // A key made before clients: its client is derived from its id.
    query(KEYS_BY_ID_INDEX.indexName, 'keyId', `key_${clientId.slice('cli_'.length)}`),
  ]);
  return keyedUntil([...own, ...legacy], now).get(clientId) ?? 0;
}

async function readUntil(deps: Deps, clientIds: readonly string[], now: number): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const untracked: string[] = [];
  for (let i = 0; i < clientIds.length; i += BATCH_GET_LIMIT) {
    let keys = clientIds.slice(i, i + BATCH_GET_LIMIT).map((c) => ({ keyHash: CLIENT_ITEM_PREFIX + c }));
    for (let attempt = 0; keys.length > 0; attempt++) {
      if (attempt >= 5) throw new Error(`${keys.length} client items could not be read (unprocessed keys)`);
      const out = await deps.client.send(
        new BatchGetCommand({ RequestItems: { [deps.keysTableName]: { Keys: keys, ProjectionExpression: CLIENT_ITEM_ATTRIBUTES.join(', ') } } }),
      );
      for (const item of out.Responses?.[deps.keysTableName] ?? []) {
        if (typeof item.keyedUntil === 'number') found.set(String(item.keyHash).slice(CLIENT_ITEM_PREFIX.length), item.keyedUntil);
      }
      keys = (out.UnprocessedKeys?.[deps.keysTableName]?.Keys ?? []) as { keyHash: string }[];
    }
  }
  for (const c of clientIds) if (!found.has(c)) untracked.push(c);
  await Promise.all(untracked.map(async (c) => found.set(c, await untrackedUntil(deps, c, now))));
  return found;
}

/** `(clientIds) => view`: reads the clients not read within `intervalMs`, then answers for them. */
export function createActiveClients(deps: Deps): (clientIds: Iterable<string>) => Promise<ActiveClients> {
  const known = new Map<string, { until: number; readAt: number }>();
  let backoffMs = 0;
  let retryAt = -Infinity;
  const view: ActiveClients = { has: (clientId, now) => (known.get(clientId)?.until ?? 0) > now };
  return async (clientIds) => {
    const now = deps.clock();
    const due = [...new Set(clientIds)].filter((c) => {
      const entry = known.get(c);
      return entry === undefined || now - entry.readAt >= deps.intervalMs;
    });
    if (due.length === 0) return view;
    // While backing off, what was read before serves; a client never read cannot be answered.
    if (now < retryAt) {
      if (due.some((c) => !known.has(c))) throw new Error(`client keys not read: retrying the keys table in ${retryAt - now} ms`);
      return view;
    }
    try {
      for (const [c, until] of await readUntil(deps, due, now)) known.set(c, { until, readAt: now });
      backoffMs = 0;
    } catch (err) {
      backoffMs = Math.min(BACKOFF_MAX_MS, Math.max(BACKOFF_MIN_MS, backoffMs * 2));
      retryAt = now + backoffMs;
      logger.warn('client keys read failed; backing off', { backoffMs, clients: due.length, error: err as Error });
      if (due.some((c) => !known.has(c))) throw err;
    }
    return view;
  };
}
