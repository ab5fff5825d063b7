import { afterAll, beforeEach, describe, expect, it } from '@jest/globals';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { encodeManifest, type SnapshotManifest } from '../../src/legs/snapshot.js';
import { createBuildSnapshotHandler } from '../../src/legs/snapshot-schedule.js';

/**
 * The scheduled snapshot build (src/legs/snapshot-schedule.ts): every run builds from the index and
 * publishes unless a large load marked the snapshot stale meanwhile. DynamoDB is mocked: the
 * manifest and the journal head are what each case puts there.
 */
const TABLE = 'legs-test';
const ddb = mockClient(DynamoDBDocumentClient);
const client = createDocumentClient({ endpoint: 'http://127.0.0.1:9', region: 'local', maxAttempts: 1 });

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
const MINUTE = 60_000;
const HEAD_VERSION = 7;
/** What the listing index holds: two entries in the long bucket, nothing elsewhere. */
const LONG_ENTRIES = [
  { ls: '2026-06-20#L1', lf: 'f1' },
  { ls: '2026-06-21#L2', lf: 'f2' },
];

function manifest(over: Partial<SnapshotManifest> = {}): SnapshotManifest {
  return {
    token: 'token-1',
    stale: false,
    builtAt: NOW - 30 * MINUTE,
    watermark: NOW - 31 * MINUTE,
    journalVersion: HEAD_VERSION,
    firstMonth: '2026-05',
    lastMonth: '2026-10',
    buckets: {},
    retired: [],
    ...over,
  };
}

/** The table: the manifest (or none) and the journal head at `version`; the index as LONG_ENTRIES; writes accepted. */
function table(stored: SnapshotManifest | undefined, version = HEAD_VERSION): void {
  ddb.on(GetCommand, { Key: { id: '~snapshot' } }).resolves(stored ? { Item: encodeManifest(stored) } : {});
  ddb.on(GetCommand, { Key: { id: '~journal' } }).resolves({ Item: { id: '~journal', v: version, r: '[]' } });
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

describe('build-snapshot: every run builds', () => {
  it.each([
    ['a manifest at the journal version', manifest(), HEAD_VERSION],
    ['the journal moved', manifest(), HEAD_VERSION + 1],
    ['the manifest is stale', manifest({ stale: true }), HEAD_VERSION],
    ['there is no manifest', undefined, HEAD_VERSION],
  ])('with %s: reads the index, writes the parts and a manifest at the head version', async (_case, stored, version) => {
    table(stored, version);
    const { lines, result } = run();
    const report = await result;
    expect(report).toMatchObject({ published: true, entries: LONG_ENTRIES.length, partsWritten: 1 });
    expect(ddb.commandCalls(QueryCommand).length).toBeGreaterThan(0);
    const puts = ddb.commandCalls(PutCommand).map((c) => c.args[0].input.Item!);
    expect(puts).toHaveLength(1);
    expect(puts[0]).toMatchObject({ id: '~snapshot', st: false, jv: version, bt: NOW });
    const parts = ddb.commandCalls(BatchWriteCommand).flatMap((c) => c.args[0].input.RequestItems![TABLE]!);
    expect(parts.map((r) => String(r.PutRequest?.Item?.id))).toEqual([expect.stringMatching(/^~snapshot#long#[0-9a-f]+#0$/)]);
    expect(lines).toHaveLength(1);
    expect(metricsOf(lines[0]!)).toMatchObject({ Stage: 'sandbox', SnapshotBuilt: 1, SnapshotEntries: LONG_ENTRIES.length, SnapshotPartsWritten: 1, SnapshotPartsDeleted: 0 });
  });

  it('does not publish when the manifest changed during the build (a large load marked it stale): SnapshotBuilt 0', async () => {
    table(manifest());
    ddb.on(PutCommand).rejects(Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' }));
    const { lines, result } = run();
    const report = await result;
    expect(report).toMatchObject({ published: false });
    expect(metricsOf(lines[0]!)).toMatchObject({ SnapshotBuilt: 0 });
  });

  it('fails the invocation when a read fails (the function Errors the stack alarms on), and emits no metric', async () => {
    table(manifest(), HEAD_VERSION + 1);
    ddb.on(QueryCommand).rejects(new Error('index unavailable'));
    const { lines, result } = run();
    await expect(result).rejects.toThrow('index unavailable');
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(lines).toEqual([]);
  });
});
