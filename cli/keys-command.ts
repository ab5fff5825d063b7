import { CommandError, parseCommandLine } from './command.js';
import { openLocalTables, openStageTables, type CommandTables } from './connect.js';
import type { Clock } from '../src/clock.js';
import { parseStage, readConfig, type Stage } from '../src/config.js';
import { refuseShiftedClock } from './clock-flag.js';
import type { KeyEnvironment } from '../src/auth/verdict.js';
import { environmentForStage, isClientId, isKeyId, KEY_PREFIXES } from '../src/keys/format.js';
import { DEFAULT_GRACE_MS, formatGrace, parseGrace } from '../src/api-keys/grace.js';
import { KNOWN_SCOPES, parseScopes, unknownScopes } from '../src/api-keys/scopes.js';
import { REVOCATION_BOUND_MS } from '../src/keys/authorizer.js';
import { createKey, listKeys, revokeKey, rotateKey, setKeyRateLimit } from '../src/api-keys/store.js';
import { DEFAULT_RATE_LIMIT, describeRateLimit, parseBurst, parseRate, type RateLimit } from '../src/keys/limits/rate-limit.js';
import { readUsage } from '../src/keys/limits/usage.js';
import { DEFAULT_CLIENT_RATE_LIMIT, readClientRateLimit } from '../src/keys/limits/client-limit.js';
import { clientLimitCommand } from './keys-client-limit.js';
import { clientKeys, readClient, setApprovedScopes } from '../src/api-keys/clients.js';
import { NAME_REFUSED, NAME_RULE, unapprovedScopes } from '../src/api-keys/rules.js';
import { readHistory } from '../src/api-keys/history.js';
import { describeKey, jsonKey, jsonRecord, print, printHistory, printSecret, printTable, printUsage, safeText } from './keys-output.js';

/**
 * `npm run keys -- <command>` (docs/api-keys.md): create, rotate, revoke and list API keys, approve a
 * client's scopes, show a client's history.
 * By default on DynamoDB Local (DYNAMODB_ENDPOINT, else http://127.0.0.1:$DYNAMODB_PORT; the tables
 * are created when missing); with `--aws --stage S` on the tables of the deployed stage S.
 * A bad flag or setting: one line naming it, exit 2. A refusal (unknown key id, key already rotated
 * or revoked) or an unreachable database: one line, exit 1.
 */
const USAGE = `Usage: npm run keys -- <command> [options]

  create --env test|live --scopes S1,S2 [--name N] [--client CLIENT_ID] [--rate R --burst B] [--json]
                                                              create a key, for a new client or an existing one; it is printed once
  rotate KEY_ID [--grace 7d|24h|30m|0] [--json]               new key, same name, client, scopes and limit; old key in grace (default 7d)
  revoke KEY_ID                                               revoke a key at once
  limit KEY_ID --rate R --burst B | --default                 set the key's rate limit (requests/s, burst), or back to the default
  client-limit CLIENT_ID [--rate R --burst B | --default]     show or set the client's rate limit, all its keys together
  usage KEY_ID [--json]                                       requests per day (served, rate limited), last 30 days
  list [--json]                                               list keys, without secrets, with their rate limits
  approve CLIENT_ID --scopes S1,S2                            the scopes the client's keys may have (through the API too); replaces the list
  history CLIENT_ID [--json]                                  every change to the client's keys (create, rotate, revoke), by the API or this command

  Rate limit: --rate is requests per second (0.1-1000), --burst whole requests (1-10000);
  without one a key has the default, ${describeRateLimit(DEFAULT_RATE_LIMIT)}, and a client ${describeRateLimit(DEFAULT_CLIENT_RATE_LIMIT)}.

  --aws --stage sandbox|prod   use the deployed stage's tables (AWS account and region of the environment)
                               instead of DynamoDB Local`;

const OPTIONS = {
  env: { type: 'string' },
  scopes: { type: 'string' },
  name: { type: 'string' },
  client: { type: 'string' },
  json: { type: 'boolean' },
  grace: { type: 'string' },
  rate: { type: 'string' },
  burst: { type: 'string' },
  default: { type: 'boolean' },
  aws: { type: 'boolean' },
  stage: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = keyof typeof OPTIONS;
type CommandName = 'create' | 'rotate' | 'revoke' | 'limit' | 'client-limit' | 'usage' | 'list' | 'approve' | 'history';

const COMMANDS: Readonly<Record<CommandName, { options: readonly OptionName[]; keyId: boolean; clientId?: true }>> = {
  create: { options: ['env', 'scopes', 'name', 'client', 'rate', 'burst', 'json'], keyId: false },
  rotate: { options: ['grace', 'json'], keyId: true },
  revoke: { options: [], keyId: true },
  limit: { options: ['rate', 'burst', 'default'], keyId: true },
  'client-limit': { options: ['rate', 'burst', 'default'], keyId: false, clientId: true },
  usage: { options: ['json'], keyId: true },
  list: { options: ['json'], keyId: false },
  approve: { options: ['scopes'], keyId: false, clientId: true },
  history: { options: ['json'], keyId: false, clientId: true },
};
const COMMAND_LIST = 'create, rotate, revoke, limit, client-limit, usage, list, approve, history';
const COMMON: readonly OptionName[] = ['aws', 'stage', 'help'];

/** Never echo something that may be a key. */
function shown(value: string): string {
  return value.startsWith('elk_') ? '(an API key: not shown)' : `'${value}'`;
}

interface Target extends CommandTables {
  /** The stage of the tables: --stage with --aws, else the STAGE setting. */
  stage: Stage;
  clock: Clock;
}

async function connect(aws: boolean, stageFlag: string | undefined): Promise<Target> {
  const config = readConfig(process.env, { defaultToLocal: true });
  if (aws) {
    if (stageFlag === undefined) throw CommandError.usage('--stage', 'is required with --aws: sandbox or prod');
    const stage = parseStage('--stage', stageFlag);
    refuseShiftedClock('--aws');
    return { ...(await openStageTables(stage, config.aws)), stage, clock: config.clock };
  }
  if (stageFlag !== undefined) {
    throw CommandError.usage('--stage', 'only applies with --aws (locally the stage is the STAGE setting)');
  }
  return { ...(await openLocalTables(config)), stage: config.stage, clock: config.clock };
}

function warn(line: string): void {
  process.stderr.write(`Warning: ${line}\n`);
}

function warnEnvironment(environment: KeyEnvironment, target: Target): void {
  if (target.localEndpoint !== undefined) {
    if (environment === 'live') {
      warn(`creating a live key (${KEY_PREFIXES.live}) in the local database at ${target.localEndpoint}; live keys belong to prod`);
    }
    return;
  }
  if (environmentForStage(target.stage) !== environment) {
    warn(`creating a ${environment} key in the ${target.stage} tables: ${target.stage} refuses ${environment} keys`);
  }
}

/** `--rate` and `--burst` (create, limit: both or neither), or `limit --default`; undefined means the default. */
function parseLimitFlags(command: CommandName, values: { rate?: string; burst?: string; default?: boolean }): RateLimit | undefined {
  if (command !== 'create' && command !== 'limit' && command !== 'client-limit') return undefined;
  if (values.default) {
    if (values.rate !== undefined || values.burst !== undefined) throw CommandError.usage('--default', 'cannot go with --rate or --burst');
    return undefined;
  }
  if (values.rate === undefined && values.burst === undefined) {
    if (command === 'limit') throw CommandError.usage('--rate', 'and --burst are required (or --default)');
    return undefined;
  }
  if (values.rate === undefined) throw CommandError.usage('--rate', 'is required with --burst');
  if (values.burst === undefined) throw CommandError.usage('--burst', 'is required with --rate');
  return { rate: parseRate(values.rate), burst: parseBurst(values.burst) };
}

function keyIdArgument(positionals: string[]): string {
  const [keyId, ...extra] = positionals;
  if (keyId === undefined) throw CommandError.usage('KEY_ID', 'missing: give the key id (key_...), see `npm run keys -- list`');
  if (extra.length > 0) throw CommandError.usage('arguments', `unexpected argument ${shown(extra[0]!)}`);
  if (!isKeyId(keyId)) {
    throw CommandError.usage(
      'KEY_ID',
      keyId.startsWith('elk_')
        ? 'this is an API key, not its id: give the public id (key_...) shown by `npm run keys -- list`'
        : `${shown(keyId)} is not a key id (key_ followed by 20 letters and digits)`,
    );
  }
  return keyId;
}

function clientIdArgument(positionals: string[]): string {
  const [clientId, ...extra] = positionals;
  if (clientId === undefined) throw CommandError.usage('CLIENT_ID', 'missing: give the client id (cli_...), see `npm run keys -- list`');
  if (extra.length > 0) throw CommandError.usage('arguments', `unexpected argument ${shown(extra[0]!)}`);
  if (!isClientId(clientId)) throw CommandError.usage('CLIENT_ID', `${shown(clientId)} is not a client id (cli_ followed by 20 letters and digits)`);
  return clientId;
}

function parseName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const name = raw.trim();
  if (name === '') return undefined;
  if (name.length > 100) throw CommandError.usage('--name', 'at most 100 printable characters');
  if (NAME_REFUSED.test(name)) throw CommandError.usage('--name', NAME_RULE);
  if (name.startsWith('elk_')) throw CommandError.usage('--name', 'must not look like an API key');
  return name;
}

export async function keysCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) {
    print(USAGE);
    return;
  }
  const [commandWord, ...args] = positionals;
  if (commandWord === undefined) throw CommandError.usage('command', `missing: expected one of ${COMMAND_LIST} (see --help)`);
  if (!Object.hasOwn(COMMANDS, commandWord)) {
    throw CommandError.usage('command', `${shown(commandWord)} is not one of ${COMMAND_LIST}`);
  }
  const command = commandWord as CommandName;
  const spec = COMMANDS[command];
  for (const name of Object.keys(values) as OptionName[]) {
    if (!spec.options.includes(name) && !COMMON.includes(name)) {
      throw CommandError.usage(`--${name}`, `is not an option of ${command}`);
    }
  }
  const keyId = spec.keyId ? keyIdArgument(args) : undefined;
  const clientId = spec.clientId ? clientIdArgument(args) : undefined;
  if (!spec.keyId && !spec.clientId && args.length > 0) throw CommandError.usage('arguments', `unexpected argument ${shown(args[0]!)}`);

  // Validate every flag before touching the database.
  let environment: KeyEnvironment | undefined;
  let scopes: string[] = [];
  let name: string | undefined;
  let graceMs = DEFAULT_GRACE_MS;
  if (command === 'create') {
    if (values.env === undefined) throw CommandError.usage('--env', 'is required: test or live');
    if (values.env !== 'test' && values.env !== 'live') throw CommandError.usage('--env', `${shown(values.env)} must be test or live`);
    environment = values.env;
    if (values.scopes === undefined) throw CommandError.usage('--scopes', 'is required, e.g. --scopes empty_leg:read');
    scopes = parseScopes(values.scopes);
    name = parseName(values.name);
    if (values.client !== undefined && !isClientId(values.client)) {
      throw CommandError.usage('--client', `${shown(values.client)} is not a client id (cli_ followed by 20 letters and digits)`);
    }
  }
  if (command === 'rotate' && values.grace !== undefined) graceMs = parseGrace(values.grace);
  if (command === 'approve') {
    if (values.scopes === undefined) throw CommandError.usage('--scopes', 'is required, e.g. --scopes empty_leg:read,api_key:read');
    scopes = parseScopes(values.scopes);
  }
  const rateLimit = parseLimitFlags(command, values);

  const target = await connect(values.aws === true, values.stage);
  try {
    switch (command) {
      case 'create': {
        warnEnvironment(environment!, target);
        const unknown = unknownScopes(scopes);
        if (unknown.length > 0) {
          warn(`no endpoint requires ${unknown.join(', ')} yet (known scopes: ${KNOWN_SCOPES.join(', ')})`);
        }
        if (values.client !== undefined) {
          const known = (await clientKeys(target.client, target.keysTableName, values.client)).length > 0;
          if (!known) throw CommandError.failure(`No client with id ${values.client}: no key belongs to it (see \`npm run keys -- list\`)`);
          const approved = (await readClient(target.client, target.keysTableName, values.client)).approvedScopes;
          const missing = approved === undefined ? [] : unapprovedScopes(scopes, approved);
          if (missing.length > 0) {
            throw CommandError.failure(`Client ${values.client} is not approved for ${missing.join(', ')}: approve it first (npm run keys -- approve ${values.client} --scopes ...)`);
          }
        }
        const created = await createKey(target.client, target.keysTableName, {
          environment: environment!,
          scopes,
          name,
          rateLimit,
          clientId: values.client,
          now: target.clock(),
        });
        const clientLimit = (await readClientRateLimit(target.client, target.keysTableName, created.record.clientId!)) ?? DEFAULT_CLIENT_RATE_LIMIT;
        if (rateLimit && rateLimit.rate > clientLimit.rate) {
          warn(`its client's limit, ${describeRateLimit(clientLimit)} for all its keys, caps it: npm run keys -- client-limit ${created.record.clientId!} --rate R --burst B`);
        }
        if (values.json) print(jsonKey(created));
        else {
          print(`Created ${describeKey(created)}`);
          printSecret(created);
        }
        return;
      }
      case 'rotate': {
        const rotated = await rotateKey(target.client, target.keysTableName, keyId!, { graceMs, now: target.clock() });
        if (rotated.droppedScopes.length > 0) warn(`the new key does not hold ${rotated.droppedScopes.join(', ')}: the client is no longer approved for them`);
        if (values.json) {
          print(jsonKey(rotated));
          return;
        }
        print(`Rotated key ${keyId!}: new ${describeKey(rotated)}`);
        printSecret(rotated);
        print(
          graceMs === 0
            ? `The old key ${keyId!} is expired as of now (every container refuses it within ${REVOCATION_BOUND_MS / 1000} seconds).`
            : `The old key ${keyId!} keeps working until ${rotated.previous.graceUntil ?? '?'} (grace ${formatGrace(graceMs)}); its responses carry X-API-Key-Deprecated: true.`,
        );
        return;
      }
      case 'revoke': {
        await revokeKey(target.client, target.keysTableName, keyId!, { now: target.clock() });
        print(`Revoked key ${keyId!}: it stops working within ${REVOCATION_BOUND_MS / 1000} seconds.`);
        return;
      }
      case 'limit': {
        await setKeyRateLimit(target.client, target.keysTableName, keyId!, rateLimit);
        print(
          `Key ${keyId!} now has ${rateLimit ? `its own rate limit, ${describeRateLimit(rateLimit)}` : `the default rate limit, ${describeRateLimit(DEFAULT_RATE_LIMIT)}`}: in effect within ${REVOCATION_BOUND_MS / 1000} seconds.`,
        );
        return;
      }
      case 'client-limit': {
        await clientLimitCommand(target, clientId!, rateLimit, values.default === true || values.rate !== undefined);
        return;
      }
      case 'usage': {
        const days = await readUsage(target.client, target.keysTableName, keyId!, { now: target.clock() });
        if (values.json) print(JSON.stringify({ keyId, days }));
        else printUsage(keyId!, days);
        return;
      }
      case 'approve': {
        const keys = await clientKeys(target.client, target.keysTableName, clientId!);
        if (keys.length === 0) throw CommandError.failure(`No client with id ${clientId!}: no key belongs to it (see \`npm run keys -- list\`)`);
        const unknown = unknownScopes(scopes);
        if (unknown.length > 0) warn(`no endpoint requires ${unknown.join(', ')} yet (known scopes: ${KNOWN_SCOPES.join(', ')})`);
        await setApprovedScopes(target.client, target.keysTableName, clientId!, scopes, target.clock());
        const beyond = [...new Set(keys.filter((k) => k.status !== 'revoked').flatMap((k) => unapprovedScopes(k.scopes, scopes)))];
        print(`Client ${clientId!} is approved for ${scopes.join(',')}.`);
        if (beyond.length > 0) warn(`keys of ${clientId!} already hold ${beyond.join(', ')}: they keep them until rotated away or revoked`);
        return;
      }
      case 'history': {
        const entries = await readHistory(target.client, target.keysTableName, clientId!);
        if (values.json) print(JSON.stringify(entries));
        else printHistory(clientId!, entries);
        return;
      }
      case 'list': {
        const keys = await listKeys(target.client, target.keysTableName, { now: target.clock() });
        if (values.json) print(safeText(JSON.stringify(keys.map(jsonRecord))));
        else printTable(keys);
        return;
      }
    }
  } finally {
    target.client.destroy();
  }
}

