import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CommandError, parseCommandLine, runCommand } from '../cli/command.js';
import { walkthroughFiles } from './walkthrough-files.js';

/**
 * `npm run walkthrough:check [-- --keep] [-- --npm-ci]`: follows CONTRIBUTING.md's filter walkthrough
 * on a fresh clone of HEAD. It adds a made-up `maxSeats` filter by editing exactly the files the
 * walkthrough lists, runs `npm run openapi`, then tsc, eslint on those files, both OpenAPI lints and
 * the jest files that cover them; it fails when a step fails or when the files changed are not the
 * walkthrough's list. The clone borrows this checkout's node_modules (a symlink) unless `--npm-ci`.
 */

interface Edit {
  file: string;
  /** Text that occurs exactly once in the file. */
  anchor: string;
  /** Inserted right after (or before) the anchor. */
  text: string;
  before?: boolean;
}

export const EDITS: Edit[] = [
  // The parameter: its rule and its test, in the one table the type, the memo key, the compiled
  // query and the watches' filters (an integer one answered as a number) derive from.
  {
    file: 'src/listing/query.ts',
    anchor: '  minSeats: param(boundedInteger(MIN_SEATS, MAX_SEATS), (n) => (e) => e.seats >= n),\n',
    text: '  maxSeats: param(boundedInteger(MIN_SEATS, MAX_SEATS), (n) => (e) => e.seats > 0 && e.seats <= n),\n',
  },
  // The contract: the operation's parameter, its definition, and the watches' filters schema.
  { file: 'docs/openapi.yaml', anchor: "        - $ref: '#/components/parameters/minSeats'\n", text: "        - $ref: '#/components/parameters/maxSeats'\n" },
  {
    file: 'docs/openapi.yaml',
    anchor: '    aircraftType:\n      name: aircraftType\n',
    before: true,
    text: [
      '    maxSeats:',
      '      name: maxSeats',
      '      in: query',
      '      required: false',
      '      description: |',
      '        Legs with at most this many passenger seats (`seatNum`). An integer literal from 1 to 850;',
      '        anything else is `400 INVALID_PARAMETER`. A leg whose `seatNum` is unknown never matches.',
      '      schema: { type: integer, format: int32, minimum: 1, maximum: 850 }',
      '      example: 16',
      '',
    ].join('\n'),
  },
  {
    file: 'docs/openapi.yaml',
    anchor: "        minSeats: { type: [integer, string], format: int32, minimum: 1, maximum: 850, pattern: '^([+-]?[0-9]+)?$', maxLength: 16384 }\n",
    text: "        maxSeats: { type: [integer, string], format: int32, minimum: 1, maximum: 850, pattern: '^([+-]?[0-9]+)?$', maxLength: 16384 }\n",
  },
  {
    file: 'docs/api.md',
    anchor: '| `aircraftType` | string | none | Legs of any of the [aircraft categories]',
    before: true,
    text: '| `maxSeats` | integer | none | Legs with at most this many passenger seats (`seatNum`), 1 to 850. A leg whose `seatNum` is `null` never matches. | not an integer, or out of 1-850: `400 INVALID_PARAMETER` |\n',
  },
  {
    file: 'docs/api.md',
    anchor: '- **Aircraft category** (`aircraftType`)',
    before: true,
    text: '- **At most seats** (`maxSeats`): `seatNum <= maxSeats`, 1 to 850. A leg whose `seatNum` is unknown never matches.\n',
  },
  {
    file: 'README.md',
    anchor: '| `aircraftType` | categories separated by commas',
    before: true,
    text: '| `maxSeats` | integer 1-850 (out of range is refused); legs with `seatNum` at most this, unknown seats never match |\n',
  },
  // Tests: the parser and the compiled filter, the memo key's generator, the contract's bounds, the handler's oracle.
  { file: 'test/unit/listing/query.test.ts', anchor: '      minSeats: undefined,\n', text: '      maxSeats: undefined,\n' },
  {
    file: 'test/unit/listing/query.test.ts',
    anchor: "describe('parseListQuery: aircraftType', () => {\n",
    before: true,
    text: [
      "describe('parseListQuery: maxSeats', () => {",
      "  it('accepts 1 to 850 and refuses what is outside', () => {",
      "    expect(parseListQuery({ maxSeats: '16' }).maxSeats).toBe(16);",
      "    expect(invalid({ maxSeats: '851' }).message).toContain(\"'maxSeats'\");",
      "    expect(invalid({ maxSeats: '0' }).message).toContain('1 to 850');",
      '  });',
      '});',
      '',
      '',
    ].join('\n'),
  },
  {
    file: 'test/unit/listing/query.test.ts',
    anchor: "  it('combines the filters with AND', () => {\n",
    before: true,
    text: [
      "  it('keeps a leg with at most maxSeats seats; unknown seats never match', () => {",
      "    expect(passes({ maxSeats: '12' }, { seats: 12 })).toBe(true);",
      "    expect(passes({ maxSeats: '11' }, { seats: 12 })).toBe(false);",
      "    expect(passes({ maxSeats: '850' }, {})).toBe(false);",
      '  });',
      '',
      '',
    ].join('\n'),
  },
  {
    file: 'test/unit/listing/match-key.properties.test.ts',
    anchor: '  minSeats: absentOr(fc.integer({ min: 1, max: 850 }).map(String)),\n',
    text: '  maxSeats: absentOr(fc.integer({ min: 1, max: 850 }).map(String)),\n',
  },
  { file: 'test/unit/contract-bounds.test.ts', anchor: "    ['minSeats', {}],\n", text: "    ['maxSeats', {}],\n" },
  {
    file: 'test/handler/listing/list-empty-legs.properties.test.ts',
    anchor: '  minSeats: fc.oneof(fc.integer({ min: -2, max: 25 }).map(String), fc.integer({ min: 840, max: 860 }).map(String), integerText, notInteger, anyText),\n',
    text: '  maxSeats: fc.oneof(fc.integer({ min: -2, max: 25 }).map(String), fc.integer({ min: 840, max: 860 }).map(String), integerText, notInteger, anyText),\n',
  },
  {
    file: 'test/handler/listing/list-empty-legs.properties.test.ts',
    anchor: '    minSeats: rarely(fc.integer({ min: 1, max: 20 }).map(String)),\n',
    text: '    maxSeats: rarely(fc.integer({ min: 1, max: 20 }).map(String)),\n',
  },
  { file: 'test/handler/listing/list-empty-legs.properties.test.ts', anchor: '  minSeats?: number;\n', text: '  maxSeats?: number;\n' },
  {
    file: 'test/handler/listing/list-empty-legs.properties.test.ts',
    anchor: "  take('minSeats', within(1n, 850n), (n) => (e.minSeats = n));\n",
    text: "  take('maxSeats', within(1n, 850n), (n) => (e.maxSeats = n));\n",
  },
  {
    file: 'test/handler/listing/list-empty-legs.properties.test.ts',
    anchor: '    if (e.minSeats !== undefined && (leg.sixFields || leg.seatNum === null || leg.seatNum < e.minSeats)) return false;\n',
    text: '    if (e.maxSeats !== undefined && (leg.sixFields || leg.seatNum === null || leg.seatNum > e.maxSeats)) return false;\n',
  },
];

/** The generated file the walkthrough lists: written by `npm run openapi`, not by hand. */
export const GENERATED = 'src/contract/openapi-document.ts';

/** The jest files that cover the listed files (unit, then handler). */
const JEST_FILES = [
  'test/unit/listing/query.test.ts',
  'test/unit/listing/listing.test.ts',
  'test/unit/listing/match-key.properties.test.ts',
  'test/unit/contract.test.ts',
  'test/unit/contract-bounds.test.ts',
  'test/unit/watches/filters.properties.test.ts',
  'test/unit/watches/matching.properties.test.ts',
  'test/handler/listing/list-empty-legs.test.ts',
  'test/handler/listing/list-empty-legs.properties.test.ts',
  'test/handler/watches/watches.test.ts',
];

function applyEdit(dir: string, edit: Edit): void {
  const path = join(dir, edit.file);
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf(edit.anchor);
  if (at < 0 || text.indexOf(edit.anchor, at + 1) >= 0) {
    throw CommandError.failure(`${edit.file}: the walkthrough check's anchor is ${at < 0 ? 'missing' : 'not unique'}: ${JSON.stringify(edit.anchor.slice(0, 80))}`);
  }
  const cut = edit.before ? at : at + edit.anchor.length;
  writeFileSync(path, text.slice(0, cut) + edit.text + text.slice(cut));
}

interface StepResult {
  name: string;
  ok: boolean;
  seconds: number;
}

function run(dir: string, name: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): StepResult {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: dir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  const ok = result.status === 0;
  const tally = /^Tests: .*$/m.exec(`${result.stdout ?? ''}${result.stderr ?? ''}`)?.[0];
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} (${seconds.toFixed(1)} s)${tally ? `: ${tally.replace(/\s+/g, ' ')}` : ''}`);
  if (!ok) process.stdout.write(`${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? `${result.error.message}\n` : ''}`);
  return { name, ok, seconds };
}

function git(dir: string, args: string[]): string {
  const result = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0) throw CommandError.failure(`git ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

function main(): void {
  const { values } = parseCommandLine(process.argv.slice(2), { keep: { type: 'boolean' }, 'npm-ci': { type: 'boolean' } }, false);
  const started = performance.now();
  const root = resolve('.');
  if (git(root, ['status', '--porcelain']).trim() !== '') console.log('Uncommitted changes are not checked: the clone is of HEAD.');
  const dir = mkdtempSync(join(tmpdir(), 'walkthrough-'));
  try {
    git(root, ['clone', '-q', root, dir]);
    const listed = walkthroughFiles(readFileSync(join(dir, 'CONTRIBUTING.md'), 'utf8'), 'filter');
    console.log(`CONTRIBUTING.md's filter walkthrough lists ${listed.length} files; clone in ${dir}`);
    const results: StepResult[] = [];
    if (values['npm-ci']) results.push(run(dir, 'npm ci', 'npm', ['ci', '--no-audit', '--no-fund']));
    else if (existsSync(join(root, 'node_modules'))) {
      rmSync(join(dir, 'node_modules'), { force: true }); // a tracked link, if a commit ever adds one again
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    }
    else throw CommandError.failure('no node_modules in this checkout: run npm ci, or pass --npm-ci');

    for (const edit of EDITS) applyEdit(dir, edit);
    results.push(run(dir, 'npm run openapi', 'npm', ['run', '--silent', 'openapi']));

    // The files changed are the walkthrough's list, no more and no fewer.
    const changed = git(dir, ['status', '--porcelain', '--untracked-files=all'])
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.endsWith(' node_modules'))
      .map((line) => line.slice(3));
    const missing = listed.filter((f) => !changed.includes(f));
    const extra = changed.filter((f) => !listed.includes(f));
    const sameSet = missing.length === 0 && extra.length === 0;
    console.log(`${sameSet ? 'ok  ' : 'FAIL'} the files changed are the walkthrough's ${listed.length}${sameSet ? '' : `: listed, not changed: ${missing.join(', ') || 'none'}; changed, not listed: ${extra.join(', ') || 'none'}`}`);
    results.push({ name: 'the files changed are the list', ok: sameSet, seconds: 0 });
    if (!changed.includes(GENERATED)) console.log(`(${GENERATED} did not change: npm run openapi wrote nothing new)`);

    const env = {
      ...process.env,
      NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules', '--no-warnings=ExperimentalWarning'].filter(Boolean).join(' '),
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    };
    const lintable = changed.filter((f) => f.endsWith('.ts'));
    results.push(run(dir, 'tsc --noEmit', 'npx', ['tsc', '--noEmit']));
    results.push(run(dir, `eslint (${lintable.length} files)`, 'npx', ['eslint', '--max-warnings', '0', ...lintable]));
    results.push(run(dir, 'npm run lint:openapi', 'npm', ['run', '--silent', 'lint:openapi'], env));
    results.push(run(dir, 'npm run lint:spectral', 'npm', ['run', '--silent', 'lint:spectral'], env));
    results.push(run(dir, `jest (${JEST_FILES.length} files)`, 'npx', ['jest', '--selectProjects', 'unit', 'handler', '--', ...JEST_FILES], env));

    const failed = results.filter((r) => !r.ok);
    console.log(`${results.length - failed.length} passed, ${failed.length} failed in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    if (failed.length > 0) throw CommandError.failure(`the filter walkthrough does not hold: ${failed.map((r) => r.name).join('; ')}`);
  } finally {
    if (values.keep) console.log(`Kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

// Run as a command, not when imported (the anchors' test reads EDITS).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) runCommand(main);
