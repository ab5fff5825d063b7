import '../cli/quiet-node-notice.js';
import { isIP } from 'node:net';
import { parseIntegerSetting, parseStage, readConfig } from '../src/config.js';
import { CommandError, parseCommandLine, runCommand } from '../cli/command.js';
import { applyAtFlag } from '../cli/clock-flag.js';
import { LIST_PATH, LOCAL_KEY_SCOPES, startLocalService, type LocalService } from './service.js';
import { describeRateLimit, MAX_RATE_LIMIT } from '../src/keys/limits/rate-limit.js';
import { isWildcardHost, LOOPBACK_HOST } from './dynamodb-local.js';

/**
 * `npm start [-- --port N] [--host ADDRESS] [--data FILE [--allow-unknown-airports] [--allow-unknown-categories]] [--stage sandbox|prod] [--at INSTANT]`:
 * the service on this machine. The API and DynamoDB Local listen on 127.0.0.1 only, or on `--host`
 * (an IP address; 0.0.0.0 for every interface). `--at`: the clock reads INSTANT (ISO 8601 with an
 * offset) at start and runs on from there.
 * Ctrl-C (SIGINT), SIGTERM, SIGHUP, or the end of the parent process stop the server and DynamoDB
 * Local; a crash or SIGKILL is covered by local/dynamodb-local.ts (an exit hook and a
 * watchdog), so DynamoDB Local never outlives this process.
 */
let service: LocalService | undefined;
let stopping = false;

function stop(reason: string): void {
  if (stopping) return;
  stopping = true;
  console.log(`${reason}: stopping`);
  // During start-up there is nothing to close yet: exiting ends DynamoDB Local (exit hook).
  if (!service) process.exit(1);
  // A stop that does not finish in time still ends the process (and so DynamoDB Local).
  setTimeout(() => process.exit(1), 10_000).unref();
  service.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal));
// A parent that dies without a signal reaching us (kill -9 of a wrapper) re-parents this process.
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) stop('parent process ended');
}, 500).unref();

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  const { values } = parseCommandLine(
    process.argv.slice(2),
    {
      port: { type: 'string' },
      host: { type: 'string' },
      data: { type: 'string' },
      stage: { type: 'string' },
      'allow-unknown-airports': { type: 'boolean' },
      'allow-unknown-categories': { type: 'boolean' },
      at: { type: 'string' },
    },
    false,
  );
  // Before the configuration is read: the functions, imported later, read the same setting.
  applyAtFlag(values.at);
  const config = readConfig(process.env, { defaultToLocal: true });
  const port = parseIntegerSetting(values.port !== undefined ? '--port' : 'PORT', values.port ?? process.env.PORT, 3000, 1, 65535);
  const host = values.host ?? LOOPBACK_HOST;
  if (isIP(host) === 0) throw CommandError.usage('--host', 'must be an IP address, such as 127.0.0.1 or 0.0.0.0 (every interface)');
  const stage = values.stage !== undefined ? parseStage('--stage', values.stage) : config.stage;
  if (values.data !== undefined && values.data.trim() === '') throw CommandError.usage('--data', 'needs a file path');
  const allowUnknownAirports = values['allow-unknown-airports'] === true;
  if (allowUnknownAirports && values.data === undefined) {
    throw CommandError.usage('--allow-unknown-airports', 'only applies with --data (the demo data uses known airports)');
  }
  const allowUnknownCategories = values['allow-unknown-categories'] === true;
  if (allowUnknownCategories && values.data === undefined) {
    throw CommandError.usage('--allow-unknown-categories', 'only applies with --data (the demo data uses the categories)');
  }

  service = await startLocalService({
    port,
    host,
    dynamodbPort: config.dynamodbPort,
    stage,
    legsTableName: config.legsTableName,
    keysTableName: config.keysTableName,
    dataFile: values.data,
    allowUnknownAirports,
    allowUnknownCategories,
    say: (line) => console.log(line),
    clock: config.clock,
  });

  const env = stage === 'prod' ? 'live' : 'test';
  console.log(`Stage ${stage}: accepts only elk_${env}_ keys.`);
  console.log(`API key (${env}, scopes ${LOCAL_KEY_SCOPES.join(',')}, rate limit ${describeRateLimit(MAX_RATE_LIMIT)}), shown once:\n  ${service.apiKey}`);
  if (service.sellerKey) console.log(`Seller key of the demo sources (scope enquiry:answer; docs/enquiries.md), shown once:\n  ${service.sellerKey}`);
  console.log(`Try:\n  curl -s -H "X-API-Key: ${service.apiKey}" "${service.url}${LIST_PATH}?size=2"`);
  console.log(`Reference page: ${service.url}/docs (the contract as JSON: ${service.url}/open/v1/openapi.json)`);
  console.log(
    host === LOOPBACK_HOST
      ? `The API and DynamoDB Local listen on ${host} only (--host 0.0.0.0 opens them to the network).`
      : `The API and DynamoDB Local listen on ${isWildcardHost(host) ? `every interface (${host})` : host}: DynamoDB Local has no authentication, so whoever reaches it can read the legs and add keys.`,
  );
  console.log(`Listening on ${service.url}`);
}

runCommand(main);
