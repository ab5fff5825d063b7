import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { Clock } from '../src/clock.js';
import type { Stage } from '../src/config.js';
import { createKey } from '../src/api-keys/store.js';
import { MAX_RATE_LIMIT } from '../src/keys/limits/rate-limit.js';
import { setClientRateLimit } from '../src/keys/limits/client-limit.js';
import { clientIdOf, environmentForStage } from '../src/keys/format.js';
import { utcDate } from '../src/kernel/dates.js';
import { filledLine, uncategorizedLine } from '../cli/load-report.js';
import { demoLegs, withDemoDepartureTimes } from './demo/index.js';
import { registerLoadedSources } from './demo/sources.js';
import { registerDemoSeller } from './demo/seller.js';
import { createSourcesStore } from '../src/sources/index.js';
import { createRatesStore, DEMO_RATES_FILE, loadRatesText } from '../src/rates/index.js';
import { parseImportText, type ImportOptions } from '../src/loading/import/index.js';
import type { StoredLeg } from '../src/kernel/leg-item.js';
import { ConfigError } from '../src/errors.js';
import { writeLegs } from '../src/loading/loader.js';
import { stampedLeg } from '../src/loading/sync-plan.js';
import { assertPortFree, connectHost, ensureTables, isWildcardHost, LOOPBACK_HOST, startDynamoDbLocal } from './dynamodb-local.js';
import { createEdgeServer } from './edges.js';
import { AUTHORIZER_FUNCTION, DEFAULT_ROUTE, ROUTES } from '../src/routes.js';
import { FUNCTIONS, localFunctionName, type FunctionName } from '../src/function-table.js';
import { serveDocs } from './docs-page.js';
import { readEnquiriesConfig, readWatchesConfig } from '../src/config.js';
import { startQueueWorker } from './watches/queue-worker.js';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createGateway, type AuthorizerHandler, type HttpHandler, type Route } from './gateway.js';
import { createStreamsClient } from '../src/aws/dynamodb-streams.js';
import { createStreamPoller, type StreamHandler, type StreamPoller } from './stream-poller.js';

/**
 * The whole service on one machine: DynamoDB Local (in memory, shared DB), the tables, the demo
 * data (or a file), a fresh API key for the stage, and an HTTP server that runs the real authorizer
 * and the real functions the way API Gateway chains them (routes and functions from src/routes.ts,
 * each function imported from its entry file after the environment is set, as Lambda does). The
 * server also serves the reference page at `/docs` (local/docs-page.ts), which the deployed
 * API does not have.
 */
export const LIST_PATH = ROUTES.listEmptyLegs.path;
export const LIST_SCOPE = ROUTES.listEmptyLegs.scope;
/** The local key's scopes: the listing, the watches and the enquiries. */
export const LOCAL_KEY_SCOPES = [LIST_SCOPE, ROUTES.listWatches.scope, ROUTES.createWatch.scope, ROUTES.postEnquiry.scope];
/** The local retry schedule (docs/watches.md, "Running locally"): first retries within seconds. */
export const LOCAL_RETRY_SCHEDULE = '1,2,5,10,30,60';

export interface LocalServiceOptions {
  port: number;
  /** The address the API and DynamoDB Local listen on (`--host`): 127.0.0.1, or 0.0.0.0 for every interface. */
  host: string;
  dynamodbPort: number;
  stage: Stage;
  legsTableName: string;
  keysTableName: string;
  /** An import-format file to load instead of the demo data. */
  dataFile?: string | undefined;
  /** Keep airport codes the airport reference does not know (`--allow-unknown-airports`). */
  allowUnknownAirports?: boolean | undefined;
  /** Store an aircraftType that names no category as null (`--allow-unknown-categories`). */
  allowUnknownCategories?: boolean | undefined;
  /** Progress lines for the operator. */
  say: (line: string) => void;
  /** The clock (`--at`); the functions read the same from CLOCK_AT (src/config.ts). */
  clock: Clock;
}

export interface LocalService {
  url: string;
  dynamodbEndpoint: string;
  /** Process id of DynamoDB Local (java). */
  dynamodbPid: number;
  apiKey: string;
  /** The demo seller's key (`enquiry:answer`), with the demo data only. */
  sellerKey: string | undefined;
  stop(): Promise<void>;
}

export class LocalServiceError extends Error {
  override name = 'LocalServiceError';
}

/** The repository root: the table's entry paths are relative to it. */
const ROOT = new URL('../', import.meta.url);

/** Imports a function's entry file (functions/<name>/handler.ts) and returns its `handler`. */
export async function importHandler<H>(name: FunctionName): Promise<H> {
  const mod = (await import(new URL(FUNCTIONS[name].entry, ROOT).href)) as { handler?: unknown };
  if (typeof mod.handler !== 'function') {
    throw new LocalServiceError(`${FUNCTIONS[name].entry} does not export a handler function`);
  }
  return mod.handler as H;
}

/** The gateway's routes, from the table: each route's function, its authorizer, their timeouts. */
export async function gatewayRoutes(): Promise<Route[]> {
  const authorizer = await importHandler<AuthorizerHandler>(AUTHORIZER_FUNCTION);
  const routes: Route[] = [];
  for (const route of Object.values(ROUTES)) {
    routes.push({
      method: route.method,
      path: route.path,
      functionName: localFunctionName(route.function),
      handler: await importHandler<HttpHandler>(route.function),
      timeoutMs: FUNCTIONS[route.function].timeoutSeconds * 1000,
      ...(route.authorizer
        ? {
            authorizer,
            authorizerFunctionName: localFunctionName(AUTHORIZER_FUNCTION),
            authorizerTimeoutMs: FUNCTIONS[AUTHORIZER_FUNCTION].timeoutSeconds * 1000,
          }
        : {}),
    });
  }
  return routes;
}

/**
 * A reader of the legs table's stream, as the stack maps it: the change consumer
 * (functions/consume-changes/handler.ts: the change log) or the watches' matcher
 * (functions/match-watches/handler.ts), each fed by a poller of its own (local/stream-poller.ts,
 * its own checkpoints), so neither waits for the other; a batch that fails three times is reported
 * and skipped, as its on-failure destination takes it on AWS.
 */
export async function startStreamReader(
  name: 'consumeChanges' | 'matchWatches',
  client: Parameters<typeof createStreamPoller>[0]['client'],
  endpoint: string,
  legsTableName: string,
  say: (line: string) => void,
  startAt: 'TRIM_HORIZON' | 'LATEST' = 'TRIM_HORIZON',
): Promise<StreamPoller> {
  const handle = await importHandler<StreamHandler>(name);
  const poller = createStreamPoller({
    streams: createStreamsClient({ endpoint }),
    client,
    tableName: legsTableName,
    handle,
    startAt,
    onFailure: (records, err) =>
      say(`The ${localFunctionName(name)} function failed on ${records.length} stream record(s), skipped: ${err instanceof Error ? err.message : String(err)}`),
  });
  poller.start();
  return poller;
}

/** The legs to load: the file's (all valid, or an error listing what is wrong) or the demo's. */
export async function legsToLoad(
  dataFile: string | undefined,
  today: string,
  options: Pick<ImportOptions, 'allowUnknownAirports' | 'allowUnknownCategories'> = {},
): Promise<{ legs: StoredLeg[]; filled: number; uncategorized: number }> {
  if (!dataFile) return { legs: withDemoDepartureTimes(demoLegs(today), today), filled: 0, uncategorized: 0 };
  let text: string;
  try {
    text = await readFile(dataFile, 'utf8');
  } catch (err) {
    throw new ConfigError('--data', `cannot read ${dataFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const parsed = parseImportText(text, {
    today,
    allowUnknownAirports: options.allowUnknownAirports,
    allowUnknownCategories: options.allowUnknownCategories,
  });
  if (parsed.errors.length > 0) {
    const shown = parsed.errors.slice(0, 20).map((e) => `  ${e.message}`);
    const more = parsed.errors.length > 20 ? [`  ... and ${parsed.errors.length - 20} more`] : [];
    throw new LocalServiceError(
      [`--data ${dataFile} has ${parsed.errors.length} error(s); nothing was loaded:`, ...shown, ...more].join('\n'),
    );
  }
  return { legs: parsed.legs, filled: parsed.filled, uncategorized: parsed.uncategorized };
}

/** The URL printed for a server on `host`: localhost when it listens on loopback or everywhere. */
export function serviceUrl(host: string, port: number): string {
  return host === LOOPBACK_HOST || isWildcardHost(host) ? `http://localhost:${port}` : `http://${connectHost(host)}:${port}`;
}

/** How often `npm start` runs the sweep: expiry and stale sources reach the feed within seconds of the listing. */
export const LOCAL_SWEEP_MS = 10_000;

export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  await assertPortFree(options.port, 'API', options.host);
  const { legs, filled, uncategorized } = await legsToLoad(options.dataFile, utcDate(new Date(options.clock())), options);
  const ddb = await startDynamoDbLocal({ port: options.dynamodbPort, host: options.host });
  let server: Server | undefined;
  let poller: StreamPoller | undefined;
  let matcher: StreamPoller | undefined;
  try {
    options.say(`DynamoDB Local (in memory) on ${ddb.endpoint} (pid ${ddb.pid})`);
    // The functions read their settings from the environment, as in Lambda.
    process.env.DYNAMODB_ENDPOINT = ddb.endpoint;
    process.env.STAGE = options.stage;
    process.env.LEGS_TABLE_NAME = options.legsTableName;
    process.env.KEYS_TABLE_NAME = options.keysTableName;
    // Webhooks to this machine (http on 127.0.0.1 and localhost), retried within seconds.
    process.env.WEBHOOK_TARGETS = 'local';
    process.env.WEBHOOK_RETRY_SCHEDULE ??= LOCAL_RETRY_SCHEDULE;
    const watchesConfig = readWatchesConfig(process.env);
    const enquiriesTableName = readEnquiriesConfig(process.env).enquiriesTableName;
    await ensureTables(ddb.client, { ...options, watches: watchesConfig, enquiriesTableName });
    // The change consumer, fed from DynamoDB Local's stream as the event source mapping feeds it on AWS.
    poller = await startStreamReader('consumeChanges', ddb.client, ddb.endpoint, options.legsTableName, options.say);

    // Written as a load writes new legs, with their instants (docs/storage.md, "A leg's instants").
    const loadedAt = options.clock();
    await writeLegs(ddb.client, options.legsTableName, legs.map((leg) => stampedLeg(leg, undefined, loadedAt)));
    options.say(`Loaded ${legs.length} legs${options.dataFile ? ` from ${options.dataFile}` : ' (demo data, dates relative to today)'}`);
    if (filled > 0) options.say(filledLine(filled));
    if (uncategorized > 0) options.say(uncategorizedLine(uncategorized));
    await registerLoadedSources(createSourcesStore(ddb.client, options.legsTableName), legs, options.clock(), !options.dataFile);
    // The demo's rates: the dated ECB file kept in the repository (src/rates/data/README.md).
    const rates = await loadRatesText(await readFile(DEMO_RATES_FILE, 'utf8'), { store: createRatesStore(ddb.client, options.legsTableName), clock: options.clock });
    options.say(`Loaded the ECB reference rates of ${rates.date} (${rates.currencies} currencies per euro; npm run rates:load -- FILE loads newer ones)`);

    const created = await createKey(ddb.client, options.keysTableName, {
      environment: environmentForStage(options.stage),
      scopes: LOCAL_KEY_SCOPES,
      name: 'local npm start',
      // The highest limit, so that trying the API is never refused; `npm run keys -- create ... --rate`
      // makes a key with a lower one (the same limiter, docs/api-keys.md).
      rateLimit: MAX_RATE_LIMIT,
      now: options.clock(),
    });
    // Its client's limit too (all its keys together: docs/api.md, "Rate limits").
    await setClientRateLimit(ddb.client, options.keysTableName, clientIdOf(created.record), MAX_RATE_LIMIT);
    const sellerKey = options.dataFile ? undefined : await registerDemoSeller(ddb.client, options, options.stage, options.clock());
    // Ready once the change consumer has applied the load: the change feed holds it, and the first
    // requests do not compete with the consumer's catch-up for DynamoDB Local.
    await poller.drain();
    options.say('The change log holds the loaded legs');
    // The watches' matcher: the same stream, read apart (the change log's state records), from what
    // comes after the load: no watch exists before the API listens, so the load matches nothing.
    matcher = await startStreamReader('matchWatches', ddb.client, ddb.endpoint, options.legsTableName, options.say, 'LATEST');
    // The listing snapshot's build, as the stack schedules it (src/routes.ts): once now, then every period.
    const buildSnapshot = await importHandler<() => Promise<unknown>>('buildSnapshot');
    await buildSnapshot();

    const gateway = createGateway({
      routes: await gatewayRoutes(),
      defaultRoute: await importHandler<HttpHandler>(DEFAULT_ROUTE.function),
      defaultRouteFunctionName: localFunctionName(DEFAULT_ROUTE.function),
      defaultRouteTimeoutMs: FUNCTIONS[DEFAULT_ROUTE.function].timeoutSeconds * 1000,
      clock: options.clock,
    });
    server = createEdgeServer((req, res) => {
      if (!serveDocs(req, res)) void gateway(req, res);
    });
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', (err: NodeJS.ErrnoException) =>
        reject(new LocalServiceError(err.code === 'EADDRINUSE' ? `Port ${options.port} (API) is already in use` : err.message)),
      );
      listening.listen(options.port, options.host, () => resolve());
    });
    const buildEvery = FUNCTIONS.buildSnapshot.scheduleMinutes * 60_000;
    const snapshotTimer = setInterval(() => {
      buildSnapshot().catch((err: unknown) => {
        options.say(`The listing snapshot's scheduled build failed: ${err instanceof Error ? err.message : String(err)}`);
      });
    }, buildEvery);
    snapshotTimer.unref();
    // The sweep (src/sweep/), as the stack schedules it every minute; here more often, on the service's clock (`--at`).
    const sweep = await importHandler<() => Promise<unknown>>('sweepListing');
    const sweepTimer = setInterval(() => {
      sweep().catch((err: unknown) => options.say(`The sweep failed: ${err instanceof Error ? err.message : String(err)}`));
    }, LOCAL_SWEEP_MS);
    sweepTimer.unref();
    // The watches: the matcher (functions/match-watches/handler.ts) queues the deliveries in the
    // local queue (src/watches/queue.ts); the queue's function delivers them.
    const worker = startQueueWorker({
      client: ddb.client,
      tableName: watchesConfig.localQueueTableName,
      handler: await importHandler<(event: SQSEvent) => Promise<SQSBatchResponse>>('deliverWebhooks'),
      clock: watchesConfig.clock,
      say: options.say,
    });
    // The slow lane (docs/watches.md, "The slow lane"): its own worker, capped as its event source is.
    const slowWorker = startQueueWorker({
      client: ddb.client,
      tableName: watchesConfig.localQueueTableName,
      lane: 'slow',
      concurrency: 2,
      // Half as many scans of the local queue table as the shared lane's worker: its receivers are slow anyway.
      pollMs: 500,
      handler: await importHandler<(event: SQSEvent) => Promise<SQSBatchResponse>>('deliverSlowWebhooks'),
      clock: watchesConfig.clock,
      say: options.say,
    });
    return {
      url: serviceUrl(options.host, options.port),
      dynamodbEndpoint: ddb.endpoint,
      dynamodbPid: ddb.pid,
      apiKey: created.key,
      sellerKey,
      async stop() {
        clearInterval(snapshotTimer);
        clearInterval(sweepTimer);
        await Promise.all([poller?.stop(), matcher?.stop(), worker.stop(), slowWorker.stop()]);
        await new Promise<void>((resolve) => {
          listening.close(() => resolve());
          listening.closeAllConnections();
        });
        await ddb.stop();
      },
    };
  } catch (err) {
    server?.close();
    await Promise.all([poller?.stop(), matcher?.stop()]);
    await ddb.stop();
    throw err;
  }
}
