// @dateIndependent: grace periods are held between the clock read before and after the command: spans, not dates.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { runInProcess, runScript, type CommandRun } from '../../support/commands.js';
import { keysCommand } from '../../../cli/keys-command.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { freePort } from '../../../local/dynamodb-local.js';
import { getKeyByHash, getKeyById } from '../../../src/keys/store.js';
import { addUsage } from '../../../src/keys/limits/usage.js';
import { utcDay } from '../../../src/keys/limits/bucket.js';
import { testNow } from '../../support/clock.js';

/**
 * `npm run keys` on this file's own tables: its command in this process (runInProcess: the same
 * environment, output and exit status), and as a child process (tsx cli/keys.ts) where the process is the point.
 */
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const KEY = /^elk_(test|live)_[0-9A-Za-z]{38}$/;
const DAY = 86_400_000;

type Run = CommandRun;

let t: TestTables;
const clearKeys: string[] = [];

const tablesEnv = () => ({ AWS_REGION: 'us-east-1', DYNAMODB_ENDPOINT: t.endpoint, KEYS_TABLE_NAME: t.keysTableName, LEGS_TABLE_NAME: t.legsTableName });

async function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const r = await runInProcess(keysCommand, args, { ...tablesEnv(), ...env });
  for (const m of r.stdout.matchAll(/elk_(?:test|live)_[0-9A-Za-z]{38}/g)) clearKeys.push(m[0]);
  return r;
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

interface JsonKey {
  keyId: string;
  clientId: string;
  key: string;
  environment: string;
  scopes: string[];
  name: string | null;
}

function parseJsonKey(r: Run): JsonKey {
  expect(r.code).toBe(0);
  expect(lines(r.stdout)).toHaveLength(1);
  return JSON.parse(r.stdout) as JsonKey;
}

// A child process takes about 1-2 s on this machine.
jest.setTimeout(60_000);

beforeAll(async () => {
  t = await createTestTables();
});
afterAll(async () => t.drop());

describe('npm run keys (on DynamoDB Local)', () => {
  it('runs as a process: its output and exit status, 0 and 2', async () => {
    const created = await runScript('keys', ['create', '--env', 'test', '--scopes', 'empty_leg:read', '--json'], tablesEnv());
    for (const m of created.stdout.matchAll(/elk_(?:test|live)_[0-9A-Za-z]{38}/g)) clearKeys.push(m[0]);
    const key = parseJsonKey(created);
    expect(await getKeyById(t.client, t.keysTableName, key.keyId)).toMatchObject({ keyId: key.keyId, status: 'active' });
    const bad = await runScript('keys', ['list', '--bogus'], tablesEnv());
    expect(bad.code).toBe(2);
    expect(lines(bad.stderr)).toEqual([expect.stringContaining('--bogus')]);
    expect(bad.stdout).toBe('');
  });

  it('create prints the key once in text, stores only its hash', async () => {
    const r = await run(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--name', 'Partner A']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const keyLines = lines(r.stdout).filter((l) => KEY.test(l));
    expect(keyLines).toHaveLength(1);
    const key = keyLines[0]!;
    expect(key.startsWith('elk_test_')).toBe(true);
    const keyId = /key_[0-9A-Za-z]{20}/.exec(r.stdout)?.[0];
    const stored = await getKeyByHash(t.client, t.keysTableName, sha256(key));
    expect(stored).toMatchObject({ keyId, name: 'Partner A', environment: 'test', scopes: ['empty_leg:read'], status: 'active' });
  });

  it('create --json prints one JSON object on one line', async () => {
    const out = parseJsonKey(await run(['create', '--env', 'test', '--scopes', 'empty_leg:read,other:read', '--json']));
    expect(Object.keys(out).sort()).toEqual(['clientId', 'environment', 'key', 'keyId', 'name', 'scopes']);
    expect(out.clientId).toMatch(/^cli_[0-9A-Za-z]{20}$/);
    expect(out).toMatchObject({ environment: 'test', scopes: ['empty_leg:read', 'other:read'], name: null });
    expect(out.key).toMatch(KEY);
    expect(await getKeyByHash(t.client, t.keysTableName, sha256(out.key))).toMatchObject({ keyId: out.keyId });
  });

  it('create makes a new client unless --client names one; rotation keeps it; list shows it', async () => {
    const first = parseJsonKey(await run(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--json']));
    const other = parseJsonKey(await run(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--json']));
    expect(other.clientId).not.toBe(first.clientId);
    const second = parseJsonKey(await run(['create', '--env', 'test', '--scopes', 'watch:read', '--client', first.clientId, '--json']));
    expect(second.clientId).toBe(first.clientId);
    const rotated = parseJsonKey(await run(['rotate', second.keyId, '--json']));
    expect(rotated.clientId).toBe(first.clientId);
    expect((await getKeyById(t.client, t.keysTableName, rotated.keyId))?.clientId).toBe(first.clientId);
    const listed = JSON.parse((await run(['list', '--json'])).stdout) as { keyId: string; clientId: string }[];
    const clientOf = new Map(listed.map((k) => [k.keyId, k.clientId]));
    expect([first, second, rotated].map((k) => clientOf.get(k.keyId))).toEqual([first.clientId, first.clientId, first.clientId]);
    const table = await run(['list']);
    expect(table.stdout).toMatch(/KEY ID\s+CLIENT\s+ENV/);
    expect(table.stdout).toContain(`${rotated.keyId}  ${first.clientId}`);
    const unknown = await run(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--client', 'cli_AAAAAAAAAAAAAAAAAAAA']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No client with id cli_AAAAAAAAAAAAAAAAAAAA/);
    const malformed = await run(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--client', 'acme']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/--client/);
  });

  it('creates a live key locally with a warning on stderr', async () => {
    const r = await run(['create', '--env', 'live', '--scopes', 'empty_leg:read', '--json']);
    const out = parseJsonKey(r);
    expect(out.key.startsWith('elk_live_')).toBe(true);
    expect(r.stderr).toMatch(/^Warning: .*live key/);
  });

  it('rotate: new key printed, old key in grace for 7 days; rotating it again exits 1', async () => {
    const created = parseJsonKey(await run(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--name', 'R', '--json']));
    const before = testNow();
    const r = await run(['rotate', created.keyId]);
    expect(r.code).toBe(0);
    const newKey = lines(r.stdout).find((l) => KEY.test(l))!;
    expect(newKey).toBeDefined();
    expect(newKey).not.toBe(created.key);
    expect(await getKeyByHash(t.client, t.keysTableName, sha256(newKey))).toMatchObject({ name: 'R', scopes: ['empty_leg:read'], status: 'active' });
    const old = await getKeyById(t.client, t.keysTableName, created.keyId);
    expect(old?.status).toBe('rotated');
    const grace = Date.parse(old!.graceUntil!);
    expect(grace).toBeGreaterThanOrEqual(before + 7 * DAY);
    expect(grace).toBeLessThanOrEqual(testNow() + 7 * DAY);

    const again = await run(['rotate', created.keyId]);
    expect(again.code).toBe(1);
    expect(lines(again.stderr)).toHaveLength(1);
    expect(again.stderr).toMatch(/already rotated/);
    expect(again.stdout).toBe('');
  });

  it('rotate --grace 0 --json expires the old key at once; --grace 30m sets 30 minutes', async () => {
    const a = parseJsonKey(await run(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--json']));
    const out = parseJsonKey(await run(['rotate', a.keyId, '--grace', '0', '--json']));
    expect(Object.keys(out).sort()).toEqual(['clientId', 'environment', 'key', 'keyId', 'name', 'scopes']);
    expect(out.clientId).toMatch(/^cli_[0-9A-Za-z]{20}$/);
    expect(out.keyId).not.toBe(a.keyId);
    expect(out.scopes).toEqual(['empty_leg:read']);
    const old = await getKeyById(t.client, t.keysTableName, a.keyId);
    expect(Date.parse(old!.graceUntil!)).toBeLessThanOrEqual(testNow());

    const b = parseJsonKey(await run(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--json']));
    const before = testNow();
    parseJsonKey(await run(['rotate', b.keyId, '--grace', '30m', '--json']));
    const grace = Date.parse((await getKeyById(t.client, t.keysTableName, b.keyId))!.graceUntil!);
    expect(grace).toBeGreaterThanOrEqual(before + 30 * 60_000);
    expect(grace).toBeLessThanOrEqual(testNow() + 30 * 60_000);
  });

  it('revoke: at once; revoking again or rotating a revoked key exits 1', async () => {
    const a = parseJsonKey(await run(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--json']));
    const r = await run(['revoke', a.keyId]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(a.keyId);
    expect((await getKeyById(t.client, t.keysTableName, a.keyId))?.status).toBe('revoked');
    for (const args of [['revoke', a.keyId], ['rotate', a.keyId]]) {
      const refused = await run(args);
      expect(refused.code).toBe(1);
      expect(lines(refused.stderr)).toHaveLength(1);
      expect(refused.stderr).toMatch(/revoked/);
    }
  });

  it('list shows every key, without secrets or hashes, in text and --json', async () => {
    // Key items only: the keys version (src/keys/version.ts) shares the table.
    const items = ((await t.client.send(new ScanCommand({ TableName: t.keysTableName }))).Items ?? []).filter((i) => typeof i.keyId === 'string');
    expect(items.length).toBeGreaterThanOrEqual(8);
    const text = await run(['list']);
    expect(text.code).toBe(0);
    const json = await run(['list', '--json']);
    expect(json.code).toBe(0);
    expect(lines(json.stdout)).toHaveLength(1);
    const list = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(new Set(list.map((k) => k.keyId))).toEqual(new Set(items.map((i) => String(i.keyId))));
    const statuses = new Set(list.map((k) => k.status));
    expect(statuses).toEqual(new Set(['active', 'rotated', 'expired', 'revoked']));
    for (const k of list) expect(k).not.toHaveProperty('key');
    for (const out of [text.stdout, json.stdout]) {
      for (const item of items) {
        expect(out).toContain(String(item.keyId));
        expect(out).not.toContain(String(item.keyHash));
        expect(out).not.toContain(String(item.keyHash).slice(0, 16));
      }
      for (const key of clearKeys) expect(out).not.toContain(key);
      expect(out).not.toMatch(/elk_(test|live)_[0-9A-Za-z]/);
    }
  });

  it.each([
    [['list', '--bogus'], '--bogus'],
    [['create', '--scopes', 'empty_leg:read'], '--env'],
    [['create', '--env', 'prod', '--scopes', 'empty_leg:read'], '--env'],
    [['create', '--env', 'test'], '--scopes'],
    [['create', '--env', 'test', '--scopes', 'EmptyLeg'], '--scopes'],
    [['rotate', 'key_00000000000000000000', '--grace', '7'], '--grace'],
    [['rotate', 'key_00000000000000000000', '--grace', '1w'], '--grace'],
    [['revoke', 'key_00000000000000000000', '--json'], '--json'],
    [['rotate'], 'KEY_ID'],
    [['launch'], 'command'],
    [['list', '--aws'], '--stage'],
  ])('exits 2 with one line naming the flag: %j', async (args, flag) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain(flag);
    expect(r.stdout).toBe('');
  });

  it('exits 2 naming a bad setting', async () => {
    const r = await run(['list'], { KEYS_TABLE_NAME: 'a' });
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual([expect.stringContaining('KEYS_TABLE_NAME')]);
  });

  it('never echoes a key passed where a key id belongs', async () => {
    const key = clearKeys[0]!;
    const r = await run(['revoke', key]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('KEY_ID');
    expect(r.stderr).not.toContain(key);
  });

  it('create --rate --burst sets a limit, limit changes it, list shows it (and the default), usage prints 30 days', async () => {
    const created = parseJsonKey(await run(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--rate', '2.5', '--burst', '5', '--json']));
    const other = parseJsonKey(await run(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--json']));
    const limited = await run(['limit', created.keyId, '--rate', '1', '--burst', '3']);
    expect(limited.code).toBe(0);
    expect(limited.stdout).toContain('1 req/s, burst 3');
    const listed = JSON.parse((await run(['list', '--json'])).stdout) as { keyId: string; rateLimit: unknown }[];
    expect(listed.find((k) => k.keyId === created.keyId)?.rateLimit).toEqual({ rate: 1, burst: 3, default: false });
    expect(listed.find((k) => k.keyId === other.keyId)?.rateLimit).toEqual({ rate: 10, burst: 20, default: true });
    await addUsage(t.client, t.keysTableName, created.keyId, utcDay(testNow()), { served: 41, refused: 7 });
    const usage = JSON.parse((await run(['usage', created.keyId, '--json'])).stdout) as { keyId: string; days: { day: string; served: number; refused: number }[] };
    expect(usage.days).toHaveLength(30);
    expect(usage.days.at(-1)).toEqual({ day: utcDay(testNow()), served: 41, refused: 7 });
    const text = await run(['usage', created.keyId]);
    expect(lines(text.stdout).at(-1)).toMatch(/^total\s+41\s+7$/);
    const bad = await run(['limit', created.keyId, '--rate', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--rate');
  });

  it('exits 1 for an unknown key id', async () => {
    const r = await run(['revoke', 'key_00000000000000000000']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('No key with id key_00000000000000000000');
  });

  it('exits 1 with one line naming the endpoint when DynamoDB Local is not running', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const r = await run(['list'], { DYNAMODB_ENDPOINT: endpoint });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain(endpoint);
    expect(r.stderr).toContain('npm start');
  });

  it('left no clear key in the table', async () => {
    expect(clearKeys.length).toBeGreaterThanOrEqual(8);
    const items = (await t.client.send(new ScanCommand({ TableName: t.keysTableName }))).Items ?? [];
    const dump = JSON.stringify(items, (_k, v: unknown) => (v instanceof Set ? [...(v as Set<unknown>)] : v));
    for (const key of clearKeys) {
      expect(dump).not.toContain(key);
      expect(dump).not.toContain(key.slice(9, 41));
    }
  });
});
