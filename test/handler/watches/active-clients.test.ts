import { afterEach, describe, expect, it } from '@jest/globals';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createKey, revokeKey, rotateKey } from '../../../src/api-keys/store.js';
import { createActiveClients } from '../../../src/watches/match/active-clients.js';

/**
 * No whole-table work from one client's action (issue 40, point 4): a key change and what the delivery
 * worker and the matcher then read of the keys table are counted on a mocked client: no Scan, one
 * client's item. A failed read backs off, and what was read before serves meanwhile.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const TABLE = 'api-keys';
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const CLIENT = 'cli_AAAAAAAAAAAAAAAAAAAA';
const KEY = {
  keyHash: 'a'.repeat(64),
  keyId: 'key_BBBBBBBBBBBBBBBBBBBB',
  clientId: CLIENT,
  environment: 'test',
  scopes: ['empty_leg:read'],
  status: 'active',
  createdAt: new Date(T0).toISOString(),
};
const RING = { live: { active: 0, grace: {} }, test: { active: 1, grace: {} } };

afterEach(() => {
  ddb.reset();
});

describe('a key change, then the readers of which clients have a key', () => {
  it('read one client item each and never Scan the keys table', async () => {
    ddb.on(GetCommand).callsFake((input: { Key: { keyHash: string } }) =>
      input.Key.keyHash === `client#${CLIENT}` ? { Item: { keyHash: `client#${CLIENT}`, rev: 3, keyring: RING } } : { Item: KEY },
    );
    ddb.on(QueryCommand).resolves({ Items: [KEY] });
    ddb.on(TransactWriteCommand).resolves({});
    ddb.on(BatchGetCommand).resolves({ Responses: { [TABLE]: [{ keyHash: `client#${CLIENT}`, keyedUntil: Number.MAX_SAFE_INTEGER }] } });

    await createKey(client, TABLE, { environment: 'test', scopes: ['empty_leg:read'], clientId: CLIENT, now: T0 });
    await rotateKey(client, TABLE, KEY.keyId, { now: T0 + 1 });
    await revokeKey(client, TABLE, KEY.keyId, { now: T0 + 2 });
    // The delivery worker's reader (1 s) and the matcher's (every batch).
    for (const intervalMs of [1_000, 0]) {
      const clients = createActiveClients({ client, keysTableName: TABLE, clock: () => T0 + 3, intervalMs });
      expect((await clients([CLIENT])).has(CLIENT, T0 + 3)).toBe(true);
    }

    expect(ddb.commandCalls(ScanCommand)).toHaveLength(0);
    // Each change wrote one transaction whose client item carries the ring; each reader read one client item.
    const writes = ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!);
    expect(writes).toHaveLength(3);
    for (const items of writes) expect(JSON.stringify(items)).toContain('keyedUntil');
    const reads = ddb.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems![TABLE]!.Keys);
    expect(reads).toEqual([[{ keyHash: `client#${CLIENT}` }], [{ keyHash: `client#${CLIENT}` }]]);
  });

  it('a failed read backs off: the last answer serves, no read until the back-off ends, a client never read is refused without a read', async () => {
    let now = T0;
    const clients = createActiveClients({ client, keysTableName: TABLE, clock: () => now, intervalMs: 1_000 });
    ddb.on(BatchGetCommand).resolvesOnce({ Responses: { [TABLE]: [{ keyHash: `client#${CLIENT}`, keyedUntil: Number.MAX_SAFE_INTEGER }] } }).rejects(new Error('throttled'));
    expect((await clients([CLIENT])).has(CLIENT, now)).toBe(true);

    now += 1_500;
    // The read fails: the answer read before serves.
    expect((await clients([CLIENT])).has(CLIENT, now)).toBe(true);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(2);
    now += 500;
    expect((await clients([CLIENT])).has(CLIENT, now)).toBe(true);
    await expect(clients(['cli_CCCCCCCCCCCCCCCCCCCC'])).rejects.toThrow(/retrying/);
    // Within the back-off: no read at all.
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(2);

    now += 1_000;
    ddb.on(BatchGetCommand).resolves({ Responses: { [TABLE]: [{ keyHash: `client#${CLIENT}`, keyedUntil: 0 }] } });
    expect((await clients([CLIENT])).has(CLIENT, now)).toBe(false);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(3);
  });
});
