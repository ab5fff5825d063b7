import { afterAll, beforeEach, describe, expect, it } from '@jest/globals';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, type GetCommandInput, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../../src/aws/dynamodb.js';
import { encodeManifest, type SnapshotManifest } from '../../../src/snapshot/snapshot.js';
import { createBuildSnapshotHandler } from '../../../src/snapshot/handler.js';

/**
 * The scheduled snapshot build (src/snapshot/handler.ts): each minute it builds when a build
 * is due, and the manifest's delta starts INDEX_LAG_MS before the build. DynamoDB is mocked: the
 * manifest, the change log's head and its entries' commit instants are what each case puts there.
 */
const TABLE = 'legs-test';
const ddb = mockClient(DynamoDBDocumentClient);
const client = createDocumentClient({ endpoint: 'http://127.0.0.1:9', region: 'local', maxAttempts: 1 });

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
const MINUTE = 60_000;
const HEAD = 1_000;
/** Entry q was committed (HEAD - q) * 10 s before NOW: the last one committed a minute before is HEAD - 7. */
const committedAt = (q: number) => NOW - (HEAD - q) * 10_000;
/** What the listing index holds: two entries in the long bucket, nothing elsewhere. */
const LONG_ENTRIES = [
  { ls: '2026-06-20#L1', lf: 'f1' },
  { ls: '2026-06-21#L2', lf: 'f2' },
];

function manifest(over: Partial<SnapshotManifest> = {}): SnapshotManifest {
  return {
    token: 'token-1',
    builtAt: NOW - 30 * MINUTE,
    logSeq: HEAD,
    firstMonth: '2026-05',
    lastMonth: '2026-10',
    buckets: {},
    retired: [],
    ...over,
  };
}

/** The table: the manifest (or none), the change log at HEAD; the index as LONG_ENTRIES; writes accepted. */
function table(stored: SnapshotManifest | undefined): void {
  ddb.on(GetCommand).callsFake((input: GetCommandInput) => {
    const id = String(input.Key?.id);
    if (id === '~snapshot') return stored ? { Item: encodeManifest(stored) } : {};
    if (id === '~changes') return { Item: { id, q: HEAD, a: committedAt(HEAD) } };
    const q = Number(id.replace('~change#', ''));
    return q >= 1 && q <= HEAD ? { Item: { a: committedAt(q) } } : {};
  });
  ddb.on(QueryCommand).callsFake((input: QueryCommandInput) => ({
    Items: input.ExpressionAttributeValues?.[':b'] === 'long' ? LONG_ENTRIES : [],
  }));
  ddb.on(BatchWriteCommand).resolves({ UnprocessedItems: {} });
  ddb.on(PutCommand).resolves({});
}

function run() {
  const lines: string[] = [];
  const handler = createBuildSnapshotHandler({ client, legsTableName: TABLE, stage: 'sandbox', now: () => NOW, emit: (l) => lines.push(l) });
  return { lines, result: handler() };
}

const metricsOf = (line: string) => JSON.parse(line) as Record<string, unknown>;

beforeEach(() => {
  ddb.reset();
});
afterAll(() => {
  ddb.restore();
});

describe('build-snapshot: builds when one is due', () => {
  it.each([
    ['a manifest 15 minutes old', manifest({ builtAt: NOW - 15 * MINUTE })],
    ['a delta of more than 500 entries', manifest({ builtAt: NOW - 2 * MINUTE, logSeq: HEAD - 501 })],
    ['no manifest', undefined],
  ])('with %s: reads the index, writes the parts and a manifest whose delta starts a minute back', async (_case, stored) => {
    table(stored);
    const { lines, result } = run();
    const report = await result;
    expect(report).toMatchObject({ due: true, published: true, entries: LONG_ENTRIES.length, partsWritten: 1 });
    expect(ddb.commandCalls(QueryCommand).length).toBeGreaterThan(0);
    const puts = ddb.commandCalls(PutCommand).map((c) => c.args[0].input.Item!);
    expect(puts).toHaveLength(1);
    expect(puts[0]).toMatchObject({ id: '~snapshot', lq: HEAD - 7, bt: NOW });
    const parts = ddb.commandCalls(BatchWriteCommand).flatMap((c) => c.args[0].input.RequestItems![TABLE]!);
    expect(parts.map((r) => String(r.PutRequest?.Item?.id))).toEqual([expect.stringMatching(/^~snapshot#long#[0-9a-f]+#0$/)]);
    expect(lines).toHaveLength(1);
    expect(metricsOf(lines[0]!)).toMatchObject({ Stage: 'sandbox', SnapshotBuilt: 1, SnapshotEntries: LONG_ENTRIES.length, SnapshotPartsWritten: 1, SnapshotPartsDeleted: 0 });
  });

  it('with a recent manifest and a short delta: reads two items, builds nothing, emits nothing', async () => {
    table(manifest({ builtAt: NOW - 2 * MINUTE, logSeq: HEAD - 500 }));
    const { lines, result } = run();
    expect(await result).toMatchObject({ due: false, published: false });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(2);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(lines).toEqual([]);
  });

  it('does not publish when another build published during this one: SnapshotBuilt 0', async () => {
    table(manifest());
    ddb.on(PutCommand).rejects(Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' }));
    const { lines, result } = run();
    const report = await result;
    expect(report).toMatchObject({ published: false });
    expect(metricsOf(lines[0]!)).toMatchObject({ SnapshotBuilt: 0 });
  });

  it('fails the invocation when a read fails (the function Errors the stack alarms on), and emits no metric', async () => {
    table(manifest());
    ddb.on(QueryCommand).rejects(new Error('index unavailable'));
    const { lines, result } = run();
    await expect(result).rejects.toThrow('index unavailable');
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(lines).toEqual([]);
  });
});
