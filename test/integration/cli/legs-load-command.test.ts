// @dateIndependent: sets CLOCK_AT only to see --aws refuse it; its fixtures are not read against today.
import { airportReference } from '../../../src/airports/reference.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { freePort } from '../../../local/dynamodb-local.js';
import { ROOT, runInProcess, runScript, type CommandRun } from '../../support/commands.js';
import { legsLoadCommand } from '../../../cli/legs-load-command.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';

/**
 * `npm run legs:load` against the test DynamoDB Local: as a child process for a first load, then its
 * command in this process (runInProcess: the same environment, output and exit status).
 */
const fixture = (name: string) => join(ROOT, 'test', 'fixtures', name);
const TIMEOUT = 60_000;

type Run = CommandRun;

function run(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return runInProcess(legsLoadCommand, args, env, { inherit: true });
}

/** The non-blank lines of an output. */
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

async function count(t: TestTables): Promise<number> {
  // Legs only: the service's own items (ids starting with `~`) share the table.
  const out = await t.client.send(
    new ScanCommand({
      TableName: t.legsTableName,
      Select: 'COUNT',
      FilterExpression: 'NOT begins_with(id, :journal)',
      ExpressionAttributeValues: { ':journal': '~' },
    }),
  );
  return out.Count ?? 0;
}

describe('npm run legs:load', () => {
  let t: TestTables;
  let dir: string;
  const envFor = (tables: TestTables) => ({
    DYNAMODB_ENDPOINT: tables.endpoint,
    LEGS_TABLE_NAME: tables.legsTableName,
    KEYS_TABLE_NAME: tables.keysTableName,
  });
  const valid = JSON.parse(readFileSync(fixture('legs-valid.json'), 'utf8')) as { id: string }[];
  const oneBad = JSON.parse(readFileSync(fixture('legs-one-bad.json'), 'utf8')) as { id: string; depAirportIcao?: string }[];
  const badIndex = oneBad.findIndex((r) => typeof r.depAirportIcao === 'string' && r.depAirportIcao.length !== 4);

  /** The note legs:load prints when records leave airport fields the airport reference can fill (none when 0). */
  function fillNote(records: readonly Record<string, unknown>[]): string[] {
    const reference = airportReference();
    const fills = (r: Record<string, unknown>) =>
      (['dep', 'arr'] as const).some((side) => {
        const code = (r[`${side}AirportIcao`] ?? r[`${side}AirportIata`]) as string | null | undefined;
        const airport = code ? reference.byCode(code) : undefined;
        if (!airport) return false;
        const known = { AirportName: airport.name, AirportIcao: airport.icao, AirportIata: airport.iata, CountryCode: airport.countryCode, CountryName: airport.countryName };
        return Object.entries(known).some(([field, value]) => value !== null && (r[`${side}${field}`] ?? null) === null);
      });
    const n = records.filter(fills).length;
    return n === 0 ? [] : [`note: Filled empty airport fields (name, the other code, country) of ${n} record${n === 1 ? '' : 's'} from the airport reference`];
  }

  beforeAll(async () => {
    t = await createTestTables();
    dir = mkdtempSync(join(tmpdir(), 'legs-load-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.drop();
  });

  it(
    'loads a valid file: exit 0 and one line naming the count and the table (a child process)',
    async () => {
      const r = await runScript('legs:load', [fixture('legs-valid.json')], envFor(t), { inherit: true });
      expect(lines(r.stderr)).toEqual(fillNote(valid));
      expect(r.stdout).toBe(`Loaded ${valid.length} legs into ${t.legsTableName}\n`);
      expect(r.code).toBe(0);
      expect(await count(t)).toBe(valid.length);
    },
    TIMEOUT,
  );

  it(
    'refuses a file with one bad record: prints it, writes nothing, exit 1; --skip-invalid loads the rest',
    async () => {
      const fresh = await createTestTables();
      try {
        const refused = await run([fixture('legs-one-bad.json')], envFor(fresh));
        const err = lines(refused.stderr);
        expect(err[0]).toBe(`index ${badIndex}: depAirportIcao: must be 4 letters (ICAO), got "${oneBad[badIndex]!.depAirportIcao}"`);
        expect(err[err.length - 1]).toContain('1 invalid record of 5; nothing was written');
        expect(refused.stdout).toBe('');
        expect(refused.code).toBe(1);
        expect(await count(fresh)).toBe(0);

        const skipped = await run([fixture('legs-one-bad.json'), '--skip-invalid'], envFor(fresh));
        expect(lines(skipped.stderr)).toEqual([
          expect.stringMatching(new RegExp(`^warning: index ${badIndex}: depAirportIcao:`)),
          ...fillNote(oneBad.filter((_, i) => i !== badIndex)),
        ]);
        expect(skipped.stdout).toBe(`Loaded ${oneBad.length - 1} legs into ${fresh.legsTableName} (1 invalid records skipped)\n`);
        expect(skipped.code).toBe(0);
        expect(await count(fresh)).toBe(oneBad.length - 1);
      } finally {
        await fresh.drop();
      }
    },
    TIMEOUT,
  );

  it(
    'hostile files: 8,000 copies of one id print a short report; a line of 200,000 [ is a bad line with its number; exit 1, nothing written',
    async () => {
      const fresh = await createTestTables();
      try {
        const dups = join(dir, 'dups.ndjson');
        writeFileSync(dups, `${Array.from({ length: 8000 }, () => '{"id":"X"}').join('\n')}\n`);
        const refused = await run([dups], envFor(fresh));
        expect(refused.code).toBe(1);
        expect(refused.stderr.length).toBeLessThan(10_000);
        const err = lines(refused.stderr);
        expect(err).toContain('line 1: id: duplicate id "X", also at line 2 and 7998 more records');
        expect(err).toContain(`${dups}: 8000 invalid records of 8000; nothing was written (fix them, or give --skip-invalid to load the 0 valid legs)`);
        expect(err.some((l) => /^\.\.\. and \d+ more$/.test(l))).toBe(true);

        const deep = join(dir, 'deep.ndjson');
        writeFileSync(deep, `${JSON.stringify(valid[0])}\n${'['.repeat(200_000)}\n`);
        const bad = await run([deep], envFor(fresh));
        expect(bad.code).toBe(1);
        expect(lines(bad.stderr)).toContain('line 2: nested deeper than 16 levels at column 17 (a record is 3 at most)');
        expect(bad.stderr).not.toMatch(/stack|Cannot read/);
        expect(await count(fresh)).toBe(0);
      } finally {
        await fresh.drop();
      }
    },
    TIMEOUT,
  );

  it(
    'refuses an aircraftType that names no category, listing the categories; --allow-unknown-categories stores it as null and says so',
    async () => {
      const fresh = await createTestTables();
      try {
        const file = join(dir, 'categories.json');
        const records = valid.map((r, i) => ({ ...r, aircraftType: i === 0 ? 'Glider' : 'SUPER-MID' }));
        writeFileSync(file, JSON.stringify(records));
        const refused = await run([file], envFor(fresh));
        expect(lines(refused.stderr)[0]).toBe(
          'index 0: aircraftType: must be an aircraft category, one of Piston, Turboprop, Very Light Jet, Light Jet, Midsize Jet, ' +
            'Super Midsize Jet, Heavy Jet, Ultra Long Range, Airliner, Helicopter (or a usual spelling of one, such as VLJ or Super Mid), ' +
            'got "Glider"; correct it, or load with --allow-unknown-categories to store it as null',
        );
        expect(refused.code).toBe(1);
        expect(await count(fresh)).toBe(0);

        const kept = await run([file, '--allow-unknown-categories'], envFor(fresh));
        // Notes on stderr (the fixture's records also get airport fields filled: a note of its own);
        // standard output keeps its one line.
        expect(lines(kept.stderr).filter((l) => !l.startsWith('note: Filled empty airport fields'))).toEqual([
          'note: Stored aircraftType as null for 1 record whose aircraftType names no aircraft category (--allow-unknown-categories)',
        ]);
        expect(lines(kept.stdout)).toEqual([`Loaded ${valid.length} legs into ${fresh.legsTableName}`]);
        expect(kept.code).toBe(0);
        const items = (await fresh.client.send(new ScanCommand({ TableName: fresh.legsTableName, FilterExpression: 'NOT begins_with(id, :j)', ExpressionAttributeValues: { ':j': '~' } }))).Items ?? [];
        const types = new Map(items.map((item) => [item.id as string, item.aircraftType as unknown]));
        expect(types.get(valid[0]!.id)).toBeUndefined();
        for (const r of valid.slice(1)) expect(types.get(r.id)).toBe('Super Midsize Jet');
      } finally {
        await fresh.drop();
      }
    },
    TIMEOUT,
  );

  it(
    'prints every error of an NDJSON file with its line, and caps a long list',
    async () => {
      const bad = await run([fixture('legs-bad.ndjson')], envFor(t));
      expect(bad.code).toBe(1);
      const err = lines(bad.stderr);
      expect(err.filter((l) => /^line \d+: /.test(l)).length).toBeGreaterThanOrEqual(5);
      expect(err).toContainEqual(expect.stringMatching(/^line 2: invalid JSON at column \d+/));

      const many = join(dir, 'many-bad.ndjson');
      writeFileSync(many, Array.from({ length: 60 }, (_, i) => JSON.stringify({ id: `bad-${i}` })).join('\n'));
      const capped = await run([many], envFor(t));
      const cappedLines = lines(capped.stderr);
      // 4 errors per record (endDate, depCityName, arrCityName, startDate): 240 in all
      expect(cappedLines.filter((l) => l.startsWith('line '))).toHaveLength(50);
      expect(cappedLines).toContain('... and 190 more');
      expect(capped.code).toBe(1);
    },
    TIMEOUT,
  );

  it(
    'exits 2 with one line on an unreadable file, a bad flag, a bad setting, --stage without --aws, no file',
    async () => {
      const cases: [string[], Record<string, string>, RegExp][] = [
        [[join(dir, 'missing.json')], {}, /^Cannot read .*missing\.json: ENOENT/],
        [[fixture('legs-valid.json'), '--frobnicate'], {}, /--frobnicate/],
        [[fixture('legs-valid.json')], { LEGS_TABLE_NAME: 'x' }, /^Invalid setting LEGS_TABLE_NAME: /],
        [[fixture('legs-valid.json'), '--stage', 'prod'], {}, /^Invalid setting --stage: only applies with --aws/],
        [[fixture('legs-valid.json'), '--aws', '--stage', 'staging'], {}, /^Invalid setting --stage: 'staging' must be one of sandbox, prod/],
        [[], {}, /^Invalid setting FILE: missing/],
      ];
      const results = await Promise.all(cases.map(([args, env]) => run(args, { ...envFor(t), ...env })));
      results.forEach((r, i) => {
        expect([cases[i]![0], r.code]).toEqual([cases[i]![0], 2]);
        const err = lines(r.stderr);
        expect(err).toHaveLength(1);
        expect(err[0]).toMatch(cases[i]![2]);
      });
    },
    TIMEOUT,
  );

  it(
    'says in one line when DynamoDB Local is not reachable, naming the endpoint and npm start',
    async () => {
      const endpoint = `http://127.0.0.1:${await freePort()}`;
      const r = await run([fixture('legs-valid.json')], { ...envFor(t), DYNAMODB_ENDPOINT: endpoint });
      expect(lines(r.stderr)).toEqual([`DynamoDB Local is not reachable at ${endpoint}: start it with \`npm start\` (or set DYNAMODB_ENDPOINT)`]);
      expect(r.code).toBe(1);
      const shifted = await run([fixture('legs-valid.json'), '--aws', '--stage', 'sandbox'], { CLOCK_AT: '2026-12-31T23:30:00Z' });
      expect([shifted.code, lines(shifted.stderr)]).toEqual([2, ['Invalid setting CLOCK_AT: cannot go with --aws: a deployed stage keeps the real clock']]);
    },
    TIMEOUT,
  );

  it(
    'with --aws and no credentials, surfaces the SDK message in one line',
    async () => {
      const r = await run([fixture('legs-valid.json'), '--aws', '--stage', 'sandbox'], {
        AWS_ACCESS_KEY_ID: undefined,
        AWS_SECRET_ACCESS_KEY: undefined,
        AWS_SESSION_TOKEN: undefined,
        AWS_PROFILE: undefined,
        AWS_REGION: 'us-east-1',
        AWS_EC2_METADATA_DISABLED: 'true',
        AWS_CONFIG_FILE: join(dir, 'no-config'),
        AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
        DYNAMODB_ENDPOINT: undefined,
        // A deployed stage keeps the real clock: the command refuses CLOCK_AT with --aws (below).
        CLOCK_AT: undefined,
        CLOCK_AT_ANCHOR: undefined,
      });
      const err = lines(r.stderr);
      expect(err).toHaveLength(1);
      expect(err[0]).toMatch(/^AWS \(stage sandbox\): .*credentials/i);
      expect(r.code).toBe(1);
    },
    TIMEOUT,
  );
});
