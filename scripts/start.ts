import './quiet-node-notice.js';
import { parseIntegerSetting, parseStage, readConfig } from '../src/config.js';
import { parseCommandLine } from '../src/cli/args.js';
import { ConfigError } from '../src/errors.js';
import { DynamoDbLocalError } from '../src/local/dynamodb-local.js';
import { LIST_PATH, LocalServiceError, startLocalService } from '../src/local/service.js';

/**
 * `npm start [-- --port N] [--data FILE] [--stage sandbox|prod]`: the service on this machine.
 * Ctrl-C (SIGINT) or SIGTERM stops the server and DynamoDB Local.
 */
async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  const { values } = parseCommandLine(
    process.argv.slice(2),
    { port: { type: 'string' }, data: { type: 'string' }, stage: { type: 'string' } },
    false,
  );
  const config = readConfig(process.env, { defaultToLocal: true });
  const port = parseIntegerSetting(values.port !== undefined ? '--port' : 'PORT', values.port ?? process.env.PORT, 3000, 1, 65535);
  const stage = values.stage !== undefined ? parseStage('--stage', values.stage) : config.stage;
  if (values.data !== undefined && values.data.trim() === '') throw new ConfigError('--data', 'needs a file path');

  const service = await startLocalService({
    port,
    dynamodbPort: config.dynamodbPort,
    stage,
    legsTableName: config.legsTableName,
    keysTableName: config.keysTableName,
    dataFile: values.data,
    say: (line) => console.log(line),
  });

  const env = stage === 'prod' ? 'live' : 'test';
  console.log(`Stage ${stage}: accepts only elk_${env}_ keys.`);
  console.log(`API key (${env}, scope empty_leg:read), shown once:\n  ${service.apiKey}`);
  console.log(`Try:\n  curl -s -H "X-API-Key: ${service.apiKey}" "${service.url}${LIST_PATH}?size=2"`);
  console.log(`Reference page: ${service.url}/docs (the contract as JSON: ${service.url}/open/v1/openapi.json)`);
  console.log(`Listening on ${service.url}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  if (err instanceof DynamoDbLocalError || err instanceof LocalServiceError) {
    console.error(err.message);
    process.exit(1);
  }
  console.error(`npm start failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
