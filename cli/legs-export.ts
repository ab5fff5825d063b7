import './quiet-node-notice.js';
import { once } from 'node:events';
import { CommandError, oneLine, parseCommandLine, runCommand } from './command.js';
import { openLocalTables, openStageTables, type CommandTables } from './connect.js';
import { parseStage, readConfig } from '../src/config.js';
import { exportLines } from '../src/loading/export.js';
import { SOURCE_PATTERN, SOURCE_RULE, sourceOf } from '../src/kernel/source.js';
import { scanLegItems } from '../src/loading/table-scan.js';

/**
 * `npm run legs:export -- [--source NAME] [--aws [--stage sandbox|prod]] > legs.ndjson`
 *
 * Writes the legs table as NDJSON in the import format (with `source`, `listed`, `blocked`,
 * `depTimezone`), ordered by id, on stdout; one summary line on stderr. Exit status: 0 exported;
 * 1 the database failed; 2 a bad flag or setting.
 */
async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    { source: { type: 'string' }, aws: { type: 'boolean' }, stage: { type: 'string' } },
    false,
  );
  if (values.stage !== undefined && !values.aws) {
    throw CommandError.usage('--stage', 'only applies with --aws (the local tables have no stage)');
  }
  const source = values.source;
  if (source !== undefined && !SOURCE_PATTERN.test(source)) throw CommandError.usage('--source', `'${source}' ${SOURCE_RULE}`);
  const config = readConfig(process.env, { defaultToLocal: true });
  const stage = values.stage !== undefined ? parseStage('--stage', values.stage) : config.stage;

  let tables: CommandTables;
  try {
    tables = values.aws ? await openStageTables(stage, config.aws) : await openLocalTables(config);
  } catch (err) {
    throw CommandError.failure(oneLine(err), err);
  }
  const { client, legsTableName } = tables;
  let lines: string[];
  try {
    // Eventually consistent: an export is a snapshot for people, not a sync's view.
    const items = await scanLegItems(client, legsTableName, {
      consistent: false,
      keep: source === undefined ? undefined : (item) => sourceOf(item) === source,
    });
    lines = exportLines(items);
  } catch (err) {
    throw CommandError.failure(`Reading ${legsTableName} failed: ${oneLine(err)}`, err);
  } finally {
    client.destroy();
  }
  for (let i = 0; i < lines.length; i += 500) {
    if (!process.stdout.write(lines.slice(i, i + 500).join('\n') + '\n')) await once(process.stdout, 'drain');
  }
  const of = source === undefined ? '' : ` of source ${source}`;
  process.stderr.write(`Exported ${lines.length} legs${of} from ${legsTableName}\n`);
}

runCommand(main);
