import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../local/dynamodb-local.js';
import { testNow } from './clock.js';

/**
 * Starts the real `npm start` entry point (local/start.ts) as a child process on free ports, the
 * way a user runs it (`node --import tsx`, as package.json does), and reads what it prints: the API
 * key, the DynamoDB endpoint and its process id, the URL.
 * `output()` is everything the server printed so far (stdout and stderr), for log scans.
 */
export interface RunningService {
  baseUrl: string;
  port: number;
  dynamodbEndpoint: string;
  dynamodbPort: number;
  /** The server's process (what `npm start` runs) and DynamoDB Local's (java). */
  pid: number;
  dynamodbPid: number;
  /** Resolves with the server's exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  apiKey: string;
  legsTableName: string;
  keysTableName: string;
  output(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  dataFile?: string;
  /** `--data` with three legs dated from the tests' clock instead of the demo's 320: a quicker start. */
  fewLegs?: boolean;
  stage?: 'sandbox' | 'prod';
  env?: Record<string, string>;
  /** How long `npm start` may take to listen (default 110 s, within the e2e files' 120 s set-up): a loaded machine starts it slowly. */
  timeoutMs?: number;
  /** Ports to use instead of free ones. */
  port?: number;
  dynamodbPort?: number;
  /** Extra node flags before the script (e.g. `--import` of a test hook). */
  nodeArgs?: string[];
  /** `--allow-unknown-categories` with the data file. */
  allowUnknownCategories?: boolean;
  /** `--host`: the address the API and DynamoDB Local listen on (127.0.0.1 when absent). */
  host?: string;
}

export async function startLocalServer(options: StartOptions = {}): Promise<RunningService> {
  const port = options.port ?? (await freePort());
  const dynamodbPort = options.dynamodbPort ?? (await freePort());
  const args = ['--import', 'tsx', ...(options.nodeArgs ?? []), 'local/start.ts', '--port', String(port)];
  const dataFile = options.dataFile ?? (options.fewLegs ? fewLegsFile() : undefined);
  if (dataFile) args.push('--data', dataFile);
  if (options.stage) args.push('--stage', options.stage);
  if (options.allowUnknownCategories) args.push('--allow-unknown-categories');
  if (options.host !== undefined) args.push('--host', options.host);
  const legsTableName = 'empty-legs';
  const keysTableName = 'api-keys';
  const child: ChildProcess = spawn(process.execPath, args, {
    env: {
      ...process.env,
      DYNAMODB_PORT: String(dynamodbPort),
      DYNAMODB_ENDPOINT: '',
      LEGS_TABLE_NAME: legsTableName,
      KEYS_TABLE_NAME: keysTableName,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const deadline = Date.now() + (options.timeoutMs ?? 110_000);
  while (!/Listening on http:\/\/localhost:\d+/.test(out)) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`npm start did not listen in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const apiKey = /shown once:\s*\n\s*(elk_\w+)/.exec(out)?.[1];
  const dynamodb = /DynamoDB Local \(in memory\) on (http:\/\/\S+) \(pid (\d+)\)/.exec(out);
  const dynamodbEndpoint = dynamodb?.[1];
  if (!apiKey || !dynamodbEndpoint || child.pid === undefined) throw new Error(`Could not read the key or endpoint from:\n${out}`);
  return {
    baseUrl: `http://localhost:${port}`,
    port,
    dynamodbEndpoint,
    dynamodbPort,
    pid: child.pid,
    dynamodbPid: Number(dynamodb?.[2]),
    exited,
    apiKey,
    legsTableName,
    keysTableName,
    output: () => out,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** A data file of three listed legs, from tomorrow (the tests' clock) on. */
function fewLegsFile(): string {
  const day = (offset: number) => new Date(testNow() + offset * 86_400_000).toISOString().slice(0, 10);
  const leg = (i: number) => ({
    id: `FEW-${i}`,
    depCityName: 'London', depAirportIcao: 'EGLF', depAirportIata: 'FAB', depTimezone: 'Europe/London',
    arrCityName: 'Nice', arrAirportIcao: 'LFMN', arrAirportIata: 'NCE',
    aircraftModelName: 'Challenger 350', seatNum: 9, price: 9000, currency: 'EUR', amenities: [],
    startDate: day(1 + i), endDate: day(3 + i), listed: true, blocked: false,
  });
  const file = join(mkdtempSync(join(tmpdir(), 'few-legs-')), 'legs.json');
  writeFileSync(file, JSON.stringify([0, 1, 2].map(leg)));
  return file;
}
