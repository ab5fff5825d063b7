// @dateIndependent: its legs are whole days from the tests' clock; the command reads the same clock (CLOCK_AT).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { syncStateId } from '../../../src/feeds/sync-order.js';
import { scanLegItems } from '../../../src/loading/table-scan.js';
import { runInProcess, type CommandRun } from '../../support/commands.js';
import { legsLoadCommand } from '../../../cli/legs-load-command.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { testNow } from '../../support/clock.js';

/** `npm run legs:load -- FILE --sync ...` against the test DynamoDB Local, its command in this process (runInProcess). */
const TIMEOUT = 90_000;
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
const day = (n: number) => new Date(testNow() + n * 86_400_000).toISOString().slice(0, 10);

function record(id: string, source?: string, n = 1): Record<string, unknown> {
  return { id, startDate: day(n), endDate: day(n + 1), depCityName: 'Paris', depCountryCode: 'FR', arrCityName: 'Nice', ...(source ? { source } : {}) };
}
const ndjson = (records: readonly Record<string, unknown>[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

describe('npm run legs:load -- FILE --sync', () => {
  let t: TestTables;
  let dir: string;
  const env = () => ({ DYNAMODB_ENDPOINT: t.endpoint, LEGS_TABLE_NAME: t.legsTableName, KEYS_TABLE_NAME: t.keysTableName });
  const run = (args: string[]): Promise<CommandRun> => runInProcess(legsLoadCommand, args, env(), { inherit: true });
  const file = (name: string, records: readonly Record<string, unknown>[]) => {
    const path = join(dir, name);
    writeFileSync(path, ndjson(records));
    return path;
  };
  const items = async () => new Map((await scanLegItems(t.client, t.legsTableName)).map((i) => [i.id as string, i]));

  const acme = Array.from({ length: 10 }, (_, i) => record(`ACME-${i}`, 'acme', i + 1));
  const jetco = Array.from({ length: 4 }, (_, i) => record(`JET-${i}`, 'jetco', i + 1));

  beforeAll(async () => {
    t = await createTestTables();
    dir = mkdtempSync(join(tmpdir(), 'legs-sync-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.drop();
  });

  it(
    'syncs a feed, refuses its truncated copy (dry run and real), and unlists with --force',
    async () => {
      const full = file('full.ndjson', [...acme, ...jetco]);
      const ranFrom = testNow();
      const first = await run([full, '--sync']);
      const ranTo = testNow();
      expect([first.code, lines(first.stderr)]).toEqual([0, []]);
      // Each source's last applied sync is now this one, as stored when it ran (src/feeds/sync-order.ts).
      for (const source of ['acme', 'jetco']) {
        const { Item } = await t.client.send(new GetCommand({ TableName: t.legsTableName, Key: { id: syncStateId(source) }, ConsistentRead: true }));
        expect(Item).toMatchObject({ source, file: 'legs:load full.ndjson', versionId: null, sequencer: null });
        expect(Item!.storedAt as number).toBeGreaterThanOrEqual(ranFrom);
        expect(Item!.storedAt as number).toBeLessThanOrEqual(ranTo);
      }
      expect(lines(first.stdout)).toEqual([
        'source acme: 10 new, 0 changed, 0 unchanged, 0 to unlist (0 legs in the listing, 0 of them absent from the file)',
        'source jetco: 4 new, 0 changed, 0 unchanged, 0 to unlist (0 legs in the listing, 0 of them absent from the file)',
        `Synced sources acme, jetco into ${t.legsTableName}: wrote 14 legs, unlisted 0, 0 unchanged`,
      ]);

      const truncated = file('truncated.ndjson', acme.slice(0, 3));
      const before = await items();
      for (const extra of [['--dry-run'], []]) {
        const r = await run([truncated, '--sync', ...extra]);
        expect(r.code).toBe(1);
        expect(lines(r.stdout)).toEqual(['source acme: 0 new, 0 changed, 3 unchanged, 7 to unlist (10 legs in the listing, 7 of them absent from the file)']);
        const err = lines(r.stderr);
        expect(err[0]).toBe('refused: source acme would lose 7 of its 10 legs in the listing (more than half): a truncated feed?');
        expect(err[1]).toMatch(extra.length ? /^Dry run: nothing was written to .*; this sync would be refused/ : /^Nothing was written to .*give --force/);
        expect(await items()).toEqual(before);
      }

      const dry = await run([truncated, '--sync', '--force', '--dry-run']);
      expect(dry.code).toBe(0);
      expect(lines(dry.stdout).at(-1)).toBe(`Dry run: nothing was written to ${t.legsTableName} (the sync would write 0 legs and unlist 7 legs)`);
      expect(await items()).toEqual(before);

      const forced = await run([truncated, '--sync', '--force']);
      expect(forced.code).toBe(0);
      expect(lines(forced.stdout).at(-1)).toBe(`Synced source acme into ${t.legsTableName}: wrote 0 legs, unlisted 7, 3 unchanged`);
      const after = await items();
      expect(after.size).toBe(14);
      expect([...after.values()].filter((i) => i.listed === false).map((i) => i.id).sort()).toEqual(acme.slice(3).map((r) => r.id).sort());
      for (const r of jetco) expect(after.get(r.id as string)).toEqual(before.get(r.id as string));
    },
    TIMEOUT,
  );

  it(
    '--source NAME: records without a source get it, a record of another source is refused; an empty file retires a source with --force',
    async () => {
      const mixed = file('mixed.ndjson', [record('S-1'), record('S-2', 'other')]);
      const refused = await run([mixed, '--sync', '--source', 'solo']);
      expect(refused.code).toBe(1);
      expect(lines(refused.stderr)[0]).toBe('line 2: source: must be "solo", the source this file is loaded for, got "other"');

      const plain = file('plain.ndjson', [record('S-1'), record('S-2')]);
      const ok = await run([plain, '--sync', '--source', 'solo']);
      expect(ok.code).toBe(0);
      expect((await items()).get('S-1')!.source).toBe('solo');

      const empty = file('empty.ndjson', []);
      const guard = await run([empty, '--sync', '--source', 'solo']);
      expect(guard.code).toBe(1);
      const retired = await run([empty, '--sync', '--source', 'solo', '--force']);
      expect(lines(retired.stdout)).toEqual([
        'source solo: 0 new, 0 changed, 0 unchanged, 2 to unlist (2 legs in the listing, 2 of them absent from the file)',
        `Synced source solo into ${t.legsTableName}: wrote 0 legs, unlisted 2, 0 unchanged`,
      ]);
    },
    TIMEOUT,
  );

  it(
    'exits 2 with one line on flags that do not go together or a bad source',
    async () => {
      const path = file('one.ndjson', [record('X-1')]);
      const cases: [string[], RegExp][] = [
        [[path, '--force'], /^Invalid setting --force: only applies with --sync$/],
        [[path, '--sync', '--skip-invalid'], /^Invalid setting --skip-invalid: cannot be combined with --sync/],
        [[path, '--source', 'Not A Slug'], /^Invalid setting --source: 'Not A Slug' must be a source slug/],
      ];
      for (const [args, message] of cases) {
        const r = await run(args);
        expect([args, r.code, lines(r.stderr)]).toEqual([args, 2, [expect.stringMatching(message)]]);
      }
    },
    TIMEOUT,
  );
});
