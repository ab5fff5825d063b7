import './quiet-node-notice.js';
import { readFile } from 'node:fs/promises';
import { CommandError, oneLine, parseCommandLine, runCommand } from './command.js';
import { openFlaggedTables } from './connect.js';
import { createRatesStore, loadRatesText, RatesFileError, RatesFutureError, RatesOlderError } from '../src/rates/index.js';

/**
 * `npm run rates:load -- FILE [--aws [--stage sandbox|prod]]`
 *
 * Makes the latest day of an ECB rates file (daily, 90-day or history XML) the rates in force and
 * prints its date and number of currencies. Exit status: 0 loaded; 1 the file is malformed, dated
 * after tomorrow (UTC), older than the rates in force (nothing replaced), unreadable, or the database failed; 2 a bad flag.
 */
async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(process.argv.slice(2), { aws: { type: 'boolean' }, stage: { type: 'string' } }, true);
  if (positionals.length !== 1) throw CommandError.usage('FILE', 'give exactly one ECB rates file (eurofxref-daily.xml, -hist-90d.xml or -hist.xml)');
  const file = positionals[0]!;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw CommandError.failure(`Cannot read ${file}: ${oneLine(err)}`, err);
  }
  const { config, tables } = await openFlaggedTables(values);
  try {
    const loaded = await loadRatesText(text, { store: createRatesStore(tables.client, tables.legsTableName), clock: config.clock });
    process.stdout.write(`Loaded the reference rates of ${loaded.date}: ${loaded.currencies} currencies per euro, in force from now\n`);
  } catch (err) {
    if (err instanceof RatesFileError) throw CommandError.failure(`${file} is not an ECB rates file: ${err.message}; the rates in force are unchanged`, err);
    if (err instanceof RatesOlderError || err instanceof RatesFutureError) throw CommandError.failure(`${file}: ${err.message}`, err);
    throw CommandError.failure(`Writing the rates to ${tables.legsTableName} failed: ${oneLine(err)}`, err);
  } finally {
    tables.client.destroy();
  }
}

runCommand(main);
