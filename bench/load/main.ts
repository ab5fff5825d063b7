import '../../cli/quiet-node-notice.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { CommandError, parseCommandLine, runCommand } from '../../cli/command.js';
import { openLocalTables } from '../../cli/connect.js';
import { parseIntegerSetting, parseStage, readConfig, type Stage } from '../../src/config.js';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { utcDate } from '../../src/kernel/dates.js';
import { freePort } from '../../local/dynamodb-local.js';
import { createLoadKeys } from './keys.js';
import { formatReport, runLoad } from './run.js';

/**
 * `npm run load -- [--connections 50] [--duration 20] [--amount N] [--seed N] [--json]
 *                  [--url http://127.0.0.1:3000 --stage sandbox|prod]`
 *
 * Load test of the local service with autocannon, on loopback only. Without `--url` it starts
 * `npm start` itself (free ports, stopped at the end); with `--url` it targets a running one whose
 * DynamoDB Local it finds as `npm run keys` does (DYNAMODB_ENDPOINT, else DYNAMODB_PORT). It makes
 * the keys it needs, fires the mix of bench/load/mix.ts and checks every response. Prints requests/s,
 * p50, p99 and counts by status; exits 1 on any connection error, time-out or wrong response.
 * The service it starts has the highest limit of failed authentications per address
 * (FAILED_AUTH_*): its made-up keys all come from loopback, and the test checks their 401s, not
 * that limit (start a `--url` target the same way).
 */
export const LOAD_TEST_FAILED_AUTH = { FAILED_AUTH_BURST: '10000', FAILED_AUTH_PER_MINUTE: '60000' } as const;
const ROOT = resolve(import.meta.dirname, '../..');
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

interface Target {
  url: string;
  dynamodbEndpoint: string;
  keysTableName: string;
  stop(): Promise<void>;
}

/** `npm start` as a child process on free ports; resolves once it listens. */
async function startService(stage: Stage): Promise<Target> {
  const port = await freePort();
  const dynamodbPort = await freePort();
  const config = readConfig(process.env, { defaultToLocal: true });
  const child: ChildProcess = spawn(resolve(ROOT, 'node_modules/.bin/tsx'), ['local/start.ts', '--port', String(port), '--stage', stage], {
    cwd: ROOT,
    env: { ...process.env, DYNAMODB_PORT: String(dynamodbPort), DYNAMODB_ENDPOINT: '', ...LOAD_TEST_FAILED_AUTH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let head = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const listening = new Promise<string>((ready, fail) => {
    const onData = (d: Buffer) => {
      // Only the start-up lines are kept; after that the request logs are drained unread.
      if (head.length < 100_000) head += d.toString();
      const endpoint = /DynamoDB Local \(in memory\) on (http:\/\/\S+)/.exec(head)?.[1];
      if (/Listening on http:\/\/localhost:\d+/.test(head) && endpoint) ready(endpoint);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => fail(new Error(`npm start exited (${code}) before listening:\n${head.trim()}`)));
  });
  const timer = setTimeout(() => void stop(), 120_000);
  try {
    const dynamodbEndpoint = await listening;
    return { url: `http://127.0.0.1:${port}`, dynamodbEndpoint, keysTableName: config.keysTableName, stop };
  } catch (err) {
    await stop();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function loopbackUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw CommandError.usage('--url', `not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' || !LOOPBACK.has(url.hostname)) {
    throw CommandError.usage('--url', 'the load test runs on loopback only: http://127.0.0.1:PORT or http://localhost:PORT');
  }
  return url.origin;
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    process.argv.slice(2),
    {
      connections: { type: 'string' },
      duration: { type: 'string' },
      amount: { type: 'string' },
      seed: { type: 'string' },
      url: { type: 'string' },
      stage: { type: 'string' },
      json: { type: 'boolean' },
    },
    false,
  );
  const connections = parseIntegerSetting('--connections', values.connections, 50, 1, 500);
  const durationSeconds = parseIntegerSetting('--duration', values.duration, 20, 1, 300);
  const amount = values.amount === undefined ? undefined : parseIntegerSetting('--amount', values.amount, 0, 1, 1_000_000);
  const seed = parseIntegerSetting('--seed', values.seed, 1, 0, 2 ** 31 - 1);
  const stage = values.stage !== undefined ? parseStage('--stage', values.stage) : readConfig(process.env, { defaultToLocal: true }).stage;

  let target: Target;
  if (values.url !== undefined) {
    const url = loopbackUrl(values.url);
    const tables = await openLocalTables(readConfig(process.env, { defaultToLocal: true }));
    tables.client.destroy();
    target = { url, dynamodbEndpoint: tables.localEndpoint!, keysTableName: tables.keysTableName, stop: () => Promise.resolve() };
  } else {
    if (!values.json) console.log(`Starting npm start (stage ${stage}) ...`);
    target = await startService(stage);
  }
  const stopOnSignal = () => void target.stop().then(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  try {
    const client = createDocumentClient({ endpoint: target.dynamodbEndpoint, region: 'local' });
    const keys = await createLoadKeys(client, target.keysTableName, stage).finally(() => client.destroy());
    if (!values.json) {
      console.log(`Firing ${amount !== undefined ? `${amount} requests` : `${durationSeconds} s`} over ${connections} connections at ${target.url} ...`);
    }
    const report = await runLoad({ url: target.url, keys, connections, durationSeconds, amount, seed, todayUtc: utcDate(new Date()) });
    if (values.json) console.log(JSON.stringify(report));
    else for (const line of formatReport(report)) console.log(line);
    if (!report.ok) process.exitCode = 1;
  } finally {
    await target.stop();
  }
}

runCommand(main);
