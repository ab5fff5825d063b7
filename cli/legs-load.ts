import './quiet-node-notice.js';
import { readFile } from 'node:fs/promises';
import { CommandError, EXIT, oneLine, parseCommandLine, runCommand } from './command.js';
import { openLocalTables, openStageTables, type CommandTables } from './connect.js';
import { parseStage, readConfig } from '../src/config.js';
import { utcDate } from '../src/legs/dates.js';
import { parseImportText, type ImportError } from '../src/legs/import/index.js';
import { writeLegs } from '../src/legs/loader.js';

/**
 * `npm run legs:load -- FILE [--skip-invalid] [--aws [--stage sandbox|prod]]`
 *
 * Validates FILE (import format, docs/import-format.md) and writes its legs to the legs table.
 * Exit status: 0 loaded; 1 invalid records (nothing written), or the database failed;
 * 2 a bad flag or setting, or an unreadable file.
 */
const USAGE = 'usage: npm run legs:load -- FILE [--skip-invalid] [--aws [--stage sandbox|prod]]';
export const MAX_ERRORS_SHOWN = 50;

function printErrors(errors: readonly ImportError[], prefix: string): void {
  for (const e of errors.slice(0, MAX_ERRORS_SHOWN)) process.stderr.write(`${prefix}${e.message}\n`);
  if (errors.length > MAX_ERRORS_SHOWN) process.stderr.write(`${prefix}... and ${errors.length - MAX_ERRORS_SHOWN} more\n`);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(process.argv.slice(2), {
    'skip-invalid': { type: 'boolean' },
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

  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CommandError(EXIT.usage, `Cannot read ${file}: ${oneLine(err)}`);
  }

  // Validate first: a file can be checked without a database.
  const parsed = parseImportText(text, { today: utcDate(new Date()) });
  if (parsed.fatal) {
    printErrors(parsed.errors, '');
    throw CommandError.failure(`${file} cannot be read as the import format; nothing was written`);
  }
  if (parsed.invalidRecords > 0) {
    if (!skipInvalid) {
      printErrors(parsed.errors, '');
      throw CommandError.failure(
        `${file}: ${plural(parsed.invalidRecords, 'invalid record')} of ${parsed.records}; nothing was written ` +
          `(fix them, or give --skip-invalid to load the ${plural(parsed.legs.length, 'valid leg')})`,
      );
    }
    printErrors(parsed.errors, 'warning: ');
  }

  let tables: CommandTables;
  try {
    tables = values.aws ? await openStageTables(stage) : await openLocalTables(config);
  } catch (err) {
    throw CommandError.failure(oneLine(err), err);
  }
  const { client, legsTableName: tableName } = tables;

  try {
    const result = await writeLegs(client, tableName, parsed.legs);
    // The wording is a contract: always "legs" and "invalid records", whatever the counts.
    const skipped = parsed.invalidRecords > 0 ? ` (${parsed.invalidRecords} invalid records skipped)` : '';
    process.stdout.write(`Loaded ${result.written} legs into ${tableName}${skipped}\n`);
  } catch (err) {
    throw CommandError.failure(oneLine(err), err);
  } finally {
    client.destroy();
  }
}

runCommand(main);
