// @dateIndependent: exports the demo legs made for today and parses them again at the same today.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { demoLegs } from '../../../local/demo/index.js';
import { parseImportText } from '../../../src/loading/import/index.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { scanLegItems } from '../../../src/loading/table-scan.js';
import { runScript } from '../../support/commands.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { testToday } from '../../support/clock.js';

/** `npm run legs:export`: the table in the import format; exported then loaded, the same table. */
const TIMEOUT = 90_000;
const today = testToday;
const sortById = <T extends Record<string, unknown>>(items: T[]) => [...items].sort((a, b) => String(a.id).localeCompare(String(b.id)));

describe('npm run legs:export', () => {
  let source: TestTables;
  let target: TestTables;
  let dir: string;
  const envFor = (t: TestTables) => ({ DYNAMODB_ENDPOINT: t.endpoint, LEGS_TABLE_NAME: t.legsTableName, KEYS_TABLE_NAME: t.keysTableName });

  beforeAll(async () => {
    [source, target] = await Promise.all([createTestTables(), createTestTables()]);
    dir = mkdtempSync(join(tmpdir(), 'legs-export-'));
    // the demo data set (three sources; listed, unlisted, blocked, expired legs; many zones)
    await writeLegs(source.client, source.legsTableName, demoLegs(today()));
  }, TIMEOUT);
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await Promise.all([source.drop(), target.drop()]);
  });

  it(
    'writes every leg in the import format; loading the export into an empty table gives the same items',
    async () => {
      const exported = await runScript('legs:export', [], envFor(source), { inherit: true, timeoutMs: 60_000 });
      expect(exported.code).toBe(0);
      const original = sortById(await scanLegItems(source.client, source.legsTableName));
      expect(exported.stderr).toBe(`Exported ${original.length} legs from ${source.legsTableName}\n`);
      const lines = exported.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(original.length);
      const first = JSON.parse(lines[0]!) as Record<string, unknown>;
      expect(Object.keys(first).slice(-4)).toEqual(['listed', 'blocked', 'depTimezone', 'source']);

      // the export is a valid import file as it stands
      const parsed = parseImportText(exported.stdout, { today: today() });
      expect(parsed.errors).toEqual([]);
      const file = join(dir, 'legs.ndjson');
      writeFileSync(file, exported.stdout);
      const loaded = await runScript('legs:load', [file], envFor(target), { inherit: true, timeoutMs: 60_000 });
      expect(loaded.code).toBe(0);
      // The same items, but for the instants of their write (the change stamp of an incremental load,
      // the leg's three instants, and the confirmed one at the end of the listing entry `lf`, before
      // its registration after U+001E).
      const withoutConfirmed = (lf: string) => {
        const [fields, registration] = lf.split('\u001e');
        return fields!.split('\u001f').slice(0, 10).join('\u001f') + (registration === undefined ? '' : `\u001e${registration}`);
      };
      const unstamped = (items: Record<string, unknown>[]) =>
        items.map(({ lc: _lc, firstSeenAt: _f, updatedAt: _u, confirmedAt: _c, lf, ...rest }) => (lf === undefined ? rest : { ...rest, lf: withoutConfirmed(lf as string) }));
      expect(unstamped(sortById(await scanLegItems(target.client, target.legsTableName)))).toEqual(unstamped(original));
    },
    TIMEOUT,
  );

  it(
    '--source NAME exports that source only',
    async () => {
      const original = await scanLegItems(source.client, source.legsTableName);
      const sources = [...new Set(original.map((i) => i.source as string))].sort();
      expect(sources.length).toBeGreaterThanOrEqual(2);
      const one = sources[0]!;
      const r = await runScript('legs:export', ['--source', one], envFor(source), { inherit: true, timeoutMs: 60_000 });
      expect(r.code).toBe(0);
      const ids = r.stdout.trimEnd().split('\n').map((l) => (JSON.parse(l) as { id: string; source: string }));
      expect(ids.every((x) => x.source === one)).toBe(true);
      expect(ids.map((x) => x.id)).toEqual(original.filter((i) => i.source === one).map((i) => i.id as string).sort());
    },
    TIMEOUT,
  );
});
