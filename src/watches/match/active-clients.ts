import { paginateScan, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../clock.js';
import { createVersionFollower } from '../../kernel/version-follower.js';
import { clientIdOf, keyState, readKeysVersion } from '../../keys/index.js';

/**
 * Which clients may receive pushes (docs/watches.md, "A client without a key"): those with a key
 * that authenticates now (active, or rotated and in its grace). Read from the keys table (a Scan of
 * four attributes, never a hash) when the keys version moved, at most every `intervalMs`; a grace
 * that ends is seen at its instant without a read.
 */
export interface ActiveClients {
  /** Whether `clientId` has a key that authenticates at `now`. */
  has(clientId: string, now: number): boolean;
}

const STATUSES = ['active', 'rotated', 'revoked'] as const;
const KEY_PROJECTION = { ProjectionExpression: 'keyId, clientId, #status, graceUntil', ExpressionAttributeNames: { '#status': 'status' } } as const;

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

export function createActiveClients(deps: { client: DynamoDBDocumentClient; keysTableName: string; clock: Clock; intervalMs: number }): () => Promise<ActiveClients> {
  let until = new Map<string, number>();
  const version = createVersionFollower({
    clock: deps.clock,
    intervalMs: deps.intervalMs,
    read: () => readKeysVersion(deps.client, deps.keysTableName),
    onMove: async () => {
      const items: Record<string, unknown>[] = [];
      for await (const page of paginateScan({ client: deps.client }, { TableName: deps.keysTableName, ...KEY_PROJECTION })) items.push(...(page.Items ?? []));
      until = keyedUntil(items, deps.clock());
    },
  });
  const view: ActiveClients = { has: (clientId, now) => (until.get(clientId) ?? 0) > now };
  return async () => {
    await (version.poll() ?? version.inFlight());
    return view;
  };
}
