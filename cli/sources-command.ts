import { randomUUID } from 'node:crypto';
import { CommandError, oneLine, parseCommandLine } from './command.js';
import { openFlaggedTables } from './connect.js';
import { refuseShiftedClock } from './clock-flag.js';
import { print, printRows } from './keys-output.js';
import { SOURCE_PATTERN, SOURCE_RULE } from '../src/kernel/source.js';
import { createLegsRepository } from '../src/listing/repository.js';
import { countListedBySource } from '../src/listing/index.js';
import { DURATION_RULE, formatMinutes, parseStaleAfter, SOURCE_KINDS, sourceView, sourceViews, type SourceHistoryEntry, type SourceView } from '../src/sources/registry.js';
import { createSourcesStore } from '../src/sources/store.js';
import { sellerChange, applySeller, describeSeller } from './sources-seller.js';

/**
 * `npm run sources -- set|list|show` (docs/sources.md): register the sources legs name, and see them
 * as `GET /open/v1/sources` does. DynamoDB Local by default; `--aws --stage S` on a deployed stage.
 * A bad flag: one line naming it, exit 2; an unreachable database: one line, exit 1.
 */
const USAGE = `Usage: npm run sources -- <command> [options]

  set SOURCE [--name TEXT] [--kind operator|broker] [--verified | --unverified] [--stale-after DURATION | --never-stale]
           [--seller CLIENT [--enquiry-url URL]]
                          register a source or change it; each run is kept in its history. --seller: that
                          client's keys with enquiry:answer see and answer the enquiries on its legs; with
                          --enquiry-url each new enquiry is POSTed there, signed (the secret is printed once)
  list [--json]           every registered source and every source with legs in the listing
  show SOURCE [--json]    one source, with its history

  DURATION: 90m, 36h or 7d, 1 minute to 30 days: the source is stale (its legs leave the listing)
  when its last successful load, sync or ingest is older than that.

  --aws --stage sandbox|prod   use the deployed stage's tables instead of DynamoDB Local`;

const OPTIONS = {
  name: { type: 'string' },
  kind: { type: 'string' },
  verified: { type: 'boolean' },
  unverified: { type: 'boolean' },
  'stale-after': { type: 'string' },
  'never-stale': { type: 'boolean' },
  seller: { type: 'string' },
  'enquiry-url': { type: 'string' },
  json: { type: 'boolean' },
  aws: { type: 'boolean' },
  stage: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = keyof typeof OPTIONS;
const COMMANDS = {
  set: ['name', 'kind', 'verified', 'unverified', 'stale-after', 'never-stale', 'seller', 'enquiry-url'],
  list: ['json'],
  show: ['json'],
} as const satisfies Record<string, readonly OptionName[]>;
type CommandName = keyof typeof COMMANDS;
const COMMON: readonly OptionName[] = ['aws', 'stage', 'help'];

type Values = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'string' ? string : boolean };

/** The change a `set` run asks for, every flag checked. */
export function parseChange(values: Values): SourceHistoryEntry['change'] {
  const change: SourceHistoryEntry['change'] = {};
  if (values.name !== undefined) {
    const name = values.name.trim();
    if (name === '' || name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) throw CommandError.usage('--name', 'must be 1-100 printable characters');
    change.name = name;
  }
  if (values.kind !== undefined) {
    if (!(SOURCE_KINDS as readonly string[]).includes(values.kind)) throw CommandError.usage('--kind', `'${values.kind}' must be operator or broker`);
    change.kind = values.kind as (typeof SOURCE_KINDS)[number];
  }
  if (values.verified && values.unverified) throw CommandError.usage('--verified', 'cannot go with --unverified');
  if (values.verified) change.verified = true;
  if (values.unverified) change.verified = false;
  if (values['stale-after'] !== undefined && values['never-stale']) throw CommandError.usage('--stale-after', 'cannot go with --never-stale');
  if (values['stale-after'] !== undefined) {
    const minutes = parseStaleAfter(values['stale-after']);
    if (minutes === undefined) throw CommandError.usage('--stale-after', `'${values['stale-after']}' ${DURATION_RULE}`);
    change.staleAfterMinutes = minutes;
  }
  if (values['never-stale']) change.staleAfterMinutes = null;
  return change;
}

function sourceArgument(args: readonly string[]): string {
  const [source, ...extra] = args;
  if (source === undefined) throw CommandError.usage('SOURCE', 'missing: give the source id, as the legs name it');
  if (extra.length > 0) throw CommandError.usage('arguments', `unexpected argument '${extra[0]!}'`);
  if (!SOURCE_PATTERN.test(source)) throw CommandError.usage('SOURCE', `'${source}' ${SOURCE_RULE}`);
  return source;
}

const staleText = (v: SourceView): string => (v.staleAfterMinutes === null ? 'never' : `${formatMinutes(v.staleAfterMinutes)}${v.stale ? ' (STALE)' : ''}`);

function printViews(views: readonly SourceView[]): void {
  if (views.length === 0) {
    print('No sources.');
    return;
  }
  printRows([
    ['SOURCE', 'NAME', 'KIND', 'VERIFIED', 'LEGS LISTED', 'LAST LOADED', 'STALE AFTER'],
    ...views.map((v) => [v.id, v.name, v.kind, v.verified ? `yes, ${v.verifiedAt ?? '?'}` : 'no', String(v.legsListed), v.lastLoadedAt ?? '-', staleText(v)]),
  ]);
}

function describeChange(change: SourceHistoryEntry['change']): string {
  // In a fixed order: the stored history's maps come back in any order.
  const keys = (['name', 'kind', 'verified', 'staleAfterMinutes'] as const).filter((k) => change[k] !== undefined);
  const parts = keys.map((k) => `${k}=${k === 'staleAfterMinutes' && typeof change[k] === 'number' ? formatMinutes(change[k]) : String(change[k])}`);
  return parts.length > 0 ? parts.join(' ') : '(registered)';
}

export async function sourcesCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) {
    print(USAGE);
    return;
  }
  const [word, ...args] = positionals;
  if (word === undefined || !Object.hasOwn(COMMANDS, word)) {
    throw CommandError.usage('command', `${word === undefined ? 'missing' : `'${word}' is not a command`}: expected one of set, list, show (see --help)`);
  }
  const command = word as CommandName;
  for (const name of Object.keys(values) as OptionName[]) {
    if (!(COMMANDS[command] as readonly OptionName[]).includes(name) && !COMMON.includes(name)) throw CommandError.usage(`--${name}`, `is not an option of ${command}`);
  }
  const source = command === 'list' ? undefined : sourceArgument(args);
  if (command === 'list' && args.length > 0) throw CommandError.usage('arguments', `unexpected argument '${args[0]!}'`);
  const change = command === 'set' ? parseChange(values) : undefined;
  const seller = command === 'set' ? sellerChange(values, values.aws ? 'public' : 'local') : undefined;
  if (values.aws) refuseShiftedClock('--aws');

  const { config, tables } = await openFlaggedTables(values);
  const store = createSourcesStore(tables.client, tables.legsTableName);
  try {
    const now = config.clock();
    if (change !== undefined) {
      const run = { id: randomUUID(), at: now };
      await store.set(source!, change, run);
      print(`Source ${source!}: ${describeChange(change)} (run ${run.id} at ${new Date(now).toISOString()})`);
      if (seller !== undefined) await applySeller(tables, source!, seller, now);
      return;
    }
    const [registry, listed] = await Promise.all([store.read(), countListedBySource(createLegsRepository(tables.client, tables.legsTableName), now)]);
    if (source === undefined) {
      const views = sourceViews(registry, listed, now);
      if (values.json) print(JSON.stringify(views, null, 2));
      else printViews(views);
      return;
    }
    const view = sourceView(registry, source, listed.get(source) ?? 0, now);
    const history = registry.sources.get(source)?.history ?? [];
    if (values.json) {
      print(JSON.stringify({ ...view, history: history.map((h) => ({ at: new Date(h.at).toISOString(), run: h.run, change: h.change })) }, null, 2));
      return;
    }
    printViews([view]);
    print();
    if (!registry.sources.has(source)) print('Not registered: kind unknown, unverified, never stale.');
    print(await describeSeller(tables, source));
    for (const h of history) print(`${new Date(h.at).toISOString()}  run ${h.run}  ${describeChange(h.change)}`);
  } catch (err) {
    if (err instanceof CommandError) throw err;
    throw CommandError.failure(`The sources registry in ${tables.legsTableName}: ${oneLine(err)}`, err);
  } finally {
    tables.client.destroy();
  }
}
