import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { CommandError, EXIT, oneLine, parseCommandLine } from './command.js';
import { openLocalTables, openStageTables, type CommandTables } from './connect.js';
import { parseStage, readConfig } from '../src/config.js';
import { refuseShiftedClock } from './clock-flag.js';
import { utcDate } from '../src/kernel/dates.js';
import { filledLine, moveLines, planLines, refusalLine, uncategorizedLine } from './load-report.js';
import { loadFeed } from '../src/loading/feed-load.js';
import { readImportStream, type ImportError } from '../src/loading/import/index.js';
import { SOURCE_PATTERN, SOURCE_RULE } from '../src/kernel/source.js';
import { recordApplied } from '../src/feeds/sync-order.js';

/**
 * `npm run legs:load -- FILE [--skip-invalid | --sync [--force]] [--source NAME] [--allow-unknown-airports] [--allow-unknown-categories] [--dry-run] [--aws [--stage sandbox|prod]]`
 *
 * Validates FILE (import format, docs/import-format.md) and writes its legs to the legs table; with
 * `--sync`, FILE is the complete current set of its sources (or of `--source`): their legs absent
 * from it are unlisted. `--dry-run` prints what would happen and writes nothing. Airport codes are
 * checked against the airport reference (docs/import-format.md, "Airports");
 * `--allow-unknown-airports` keeps codes it does not know, or pairs it gives to two airports. An
 * `aircraftType` is mapped to the category vocabulary (docs/import-format.md, "Aircraft categories");
 * `--allow-unknown-categories` stores one that names no category as null instead of refusing it.
 * Exit status: 0 loaded (or a dry run that would load); 1 invalid records (nothing written), a sync
 * the guard refuses, or the database failed; 2 a bad flag or setting, or an unreadable file.
 */
const USAGE =
  'usage: npm run legs:load -- FILE [--skip-invalid | --sync [--force]] [--source NAME] [--allow-unknown-airports] [--allow-unknown-categories] [--dry-run] [--aws [--stage sandbox|prod]]';
export const MAX_ERRORS_SHOWN = 50;

/** The first MAX_ERRORS_SHOWN errors, then how many more there are (`more`: those the reader did not keep). */
function printErrors(errors: readonly ImportError[], more: number, prefix: string): void {
  for (const e of errors.slice(0, MAX_ERRORS_SHOWN)) process.stderr.write(`${prefix}${e.message}\n`);
  const rest = Math.max(0, errors.length - MAX_ERRORS_SHOWN) + more;
  if (rest > 0) process.stderr.write(`${prefix}... and ${rest} more\n`);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export async function legsLoadCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(argv, {
    'skip-invalid': { type: 'boolean' },
    sync: { type: 'boolean' },
    source: { type: 'string' },
    'dry-run': { type: 'boolean' },
    'allow-unknown-airports': { type: 'boolean' },
    'allow-unknown-categories': { type: 'boolean' },
    force: { type: 'boolean' },
    aws: { type: 'boolean' },
    stage: { type: 'string' },
  });
  if (positionals.length === 0) throw CommandError.usage('FILE', `missing; ${USAGE}`);
  if (positionals.length > 1) throw CommandError.usage('FILE', `give one file, got ${positionals.length}; ${USAGE}`);
  if (values.stage !== undefined && !values.aws) {
    throw CommandError.usage('--stage', 'only applies with --aws (the local tables have no stage)');
  }
  const config = readConfig(process.env, { defaultToLocal: true });
  const stage = values.stage !== undefined ? parseStage('--stage', values.stage) : config.stage;
  const file = positionals[0]!;
  const skipInvalid = values['skip-invalid'] === true;
  const sync = values.sync === true;
  const dryRun = values['dry-run'] === true;
  const force = values.force === true;
  if (force && !sync) throw CommandError.usage('--force', 'only applies with --sync');
  if (skipInvalid && sync) {
    throw CommandError.usage('--skip-invalid', 'cannot be combined with --sync: a skipped record would count as absent from the feed and its leg would be unlisted');
  }
  const source = values.source;
  if (source !== undefined && !SOURCE_PATTERN.test(source)) throw CommandError.usage('--source', `'${source}' ${SOURCE_RULE}`);

  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw new CommandError(EXIT.usage, `Cannot read ${file}: ${oneLine(err)}`);
  }
  // Validate first: a file can be checked without a database. NDJSON is read line by line.
  const now = new Date(config.clock());
  let parsed: Awaited<ReturnType<typeof readImportStream>>;
  try {
    parsed = await readImportStream(handle.createReadStream(), {
      today: utcDate(now),
      source,
      allowUnknownAirports: values['allow-unknown-airports'] === true,
      allowUnknownCategories: values['allow-unknown-categories'] === true,
    });
  } catch (err) {
    throw new CommandError(EXIT.usage, `Cannot read ${file}: ${oneLine(err)}`);
  } finally {
    await handle.close().catch(() => undefined);
  }
  if (parsed.fatal) {
    printErrors(parsed.errors, parsed.moreErrors, '');
    throw CommandError.failure(`${file} cannot be read as the import format; nothing was written`);
  }
  if (parsed.invalidRecords > 0) {
    if (!skipInvalid) {
      printErrors(parsed.errors, parsed.moreErrors, '');
      throw CommandError.failure(
        `${file}: ${plural(parsed.invalidRecords, 'invalid record')} of ${parsed.records}; nothing was written ` +
          `(fix them, or give --skip-invalid to load the ${plural(parsed.legs.length, 'valid leg')})`,
      );
    }
    printErrors(parsed.errors, parsed.moreErrors, 'warning: ');
  }

  // Once the legs are written (or would be): on stderr, as notes, so that standard output keeps
  // its one `Loaded ...` line.
  const noteFilled = () => {
    if (parsed.filled > 0) process.stderr.write(`note: ${filledLine(parsed.filled)}\n`);
    if (parsed.uncategorized > 0) process.stderr.write(`note: ${uncategorizedLine(parsed.uncategorized)}\n`);
  };

  if (values.aws) refuseShiftedClock('--aws');
  let tables: CommandTables;
  try {
    tables = values.aws ? await openStageTables(stage, config.aws) : await openLocalTables(config);
  } catch (err) {
    throw CommandError.failure(oneLine(err), err);
  }
  const { client, legsTableName: tableName } = tables;

  try {
    const outcome = await loadFeed(client, tableName, {
      legs: parsed.legs,
      mode: sync ? 'sync' : 'upsert',
      sources: source !== undefined ? [source] : undefined,
      dryRun,
      force,
      now,
    });
    const plan = outcome.plan;
    if (!plan) {
      // The wording is a contract: always "legs" and "invalid records", whatever the counts.
      const skipped = parsed.invalidRecords > 0 ? ` (${parsed.invalidRecords} invalid records skipped)` : '';
      noteFilled();
      process.stdout.write(`Loaded ${outcome.written} legs into ${tableName}${skipped}\n`);
      return;
    }
    for (const line of planLines(plan)) process.stdout.write(`${line}\n`);
    for (const line of moveLines(plan, MAX_ERRORS_SHOWN)) process.stderr.write(`warning: ${line}\n`);
    const t = plan.totals;
    if (outcome.status === 'refused') {
      for (const r of plan.refusals) process.stderr.write(`refused: ${refusalLine(r)}\n`);
      throw CommandError.failure(
        dryRun
          ? `Dry run: nothing was written to ${tableName}; this sync would be refused (check ${file}, or give --force)`
          : `Nothing was written to ${tableName}: check ${file}, or give --force to sync anyway`,
      );
    }
    const unlistPart = sync ? ` and unlist ${plural(t.unlist, 'leg')}` : '';
    noteFilled();
    if (outcome.status === 'dry-run') {
      const action = sync ? 'sync' : 'load';
      process.stdout.write(
        `Dry run: nothing was written to ${tableName} (the ${action} would write ${plural(plan.writes.length, 'leg')}${unlistPart})\n`,
      );
      return;
    }
    // A sync from the command is newer than every feed file stored before it ran (src/feeds/sync-order.ts).
    if (sync) {
      const ranAt = config.clock();
      await recordApplied(client, tableName, plan.sources, { file: `legs:load ${basename(file)}`, versionId: null, storedAt: ranAt, sequencer: null }, new Date(ranAt));
    }
    process.stdout.write(
      `Synced ${plan.sources.length === 1 ? 'source' : 'sources'} ${plan.sources.join(', ') || '(none)'} into ${tableName}: ` +
        `wrote ${plural(outcome.written, 'leg')}, unlisted ${outcome.unlisted}, ${t.unchanged} unchanged\n`,
    );
  } catch (err) {
    if (err instanceof CommandError) throw err;
    throw CommandError.failure(oneLine(err), err);
  } finally {
    client.destroy();
  }
}

