import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { CreateTableCommand, QueryCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { QueryCommand as DocQueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../src/aws/dynamodb.js';
import { COMMAND_DYNAMODB_BUDGET } from '../src/time-budget.js';
import { createFunctionClient } from '../src/aws/function-clients.js';
import { readConfig } from '../src/config.js';
import { createAuthorizerHandler } from '../src/keys/authorizer-handler.js';
import { createKey } from '../src/api-keys/store.js';
import { createListHandler, createListRepository } from '../src/listing/list-handler.js';
import { wholeSecond } from '../src/kernel/leg/instants.js';
import { bucketReads, queryWindow } from '../src/listing/listing.js';
import { parseListQuery } from '../src/listing/query.js';
import { bucketQueryInput, keyCondition } from '../src/listing/repository.js';
import { buildSnapshot } from '../src/snapshot/snapshot-build.js';
import { createStreamsClient } from '../src/aws/dynamodb-streams.js';
import { createChangeConsumerHandler } from '../src/changes/handlers.js';
import { createChangeLogStore } from '../src/changes/store.js';
import { createStreamPoller } from '../local/stream-poller.js';
import { addDays, utcDate } from '../src/kernel/dates.js';
import { CLOCK_AT_ANCHOR_ENV, CLOCK_AT_ENV, realClock } from '../src/clock.js';
import { demoLegs } from '../local/demo/index.js';
import { writeLegs } from '../src/loading/loader.js';
import { HORIZON_DAYS } from '../src/kernel/listed.js';
import { BUCKET_ATTR, LONG_BUCKET, MAX_BUCKET_SPAN_DAYS, toStorageItem } from '../src/kernel/leg-item.js';
import { ensureTables, freePort, startDynamoDbLocal } from '../local/dynamodb-local.js';
import { lambdaContext } from '../local/lambda-context.js';
import { createTableInput, LEGS_INDEX, LEGS_TABLE } from '../src/tables.js';
import { allowedBuckets, checkBuckets, type BucketCheck } from './buckets.js';
import { buildAndMeasure, type BundleReport } from './bundle.js';
import { floorReadUnits, itemSize, pageReadUnits, wireItemSize, type WireValue } from './capacity.js';
import { consumedUnits, recordCalls, stringValue, summarizeCall, type RecordedCall } from './consumed.js';
import { BENCH_REGISTRY, queryMix, type DataLeg, type MixQuery } from './mix.js';
import { cachedFacts, cachedRegistry, createSourcesStore } from '../src/sources/index.js';
import { createServedChecker } from './oracle.js';
import { summarize, type LatencySummary } from './stats.js';
import { calibrate, describeMachine, machine, referenceRunMs, type Calibration } from './calibration.js';
import { coldGrowthTarget, evaluateTargets, isGroupSearch, isPriceSearch, isSellerSearch, gzipTarget, importCpuTarget, rateLimitTargets, readUnitFraction, trafficTargets, type Target } from './targets.js';
import { measureImportCpu, type ImportCpuFigures } from './import-cpu.js';
import { rateLimitScenarios, runRateLimitSim, type RateLimitSimResult } from './rate-limit.js';
import { MAX_RATE_LIMIT } from '../src/keys/limits/rate-limit.js';
import { setClientRateLimit } from '../src/keys/limits/client-limit.js';
import { clientIdOf } from '../src/keys/format.js';
import { compressResponse } from '../src/http/compression.js';
import { runTraffic, type TrafficOptions, type TrafficResult } from './traffic.js';
import { authorizerEvent, listEvent } from './events.js';
import { measureColdCpuTogether } from './cold-cpu.js';
import { startReplayProxy } from './replay-proxy.js';
import { cachedRates, createRatesStore, DEMO_RATES_FILE, loadRatesText, parseEcbRates } from '../src/rates/index.js';
import { createMcpHandler } from '../src/mcp/handler.js';
import { countListedBySource } from '../src/listing/index.js';
import { createLegReader } from '../src/leg-by-id/store.js';
import { airportReference } from '../src/airports/reference.js';
import { compareMcp, MCP_QUERIES, resettable, type McpQueryFigures } from './mcp.js';
import { mcpTargets } from './targets.js';

/**
 * The benchmark (docs/performance.md): DynamoDB Local, the real tables, a synthetic data set from the demo
 * generator, then the real handler chain in-process (authorizer, then the list function) over a
 * fixed query mix, with an empty cache and with a warm one; read units are DynamoDB's own
 * ConsumedCapacity. Everything that touches the functions' modules is imported after the
 * environment is set, because they read their settings once, at import.
 */
export interface BenchOptions {
  legs: number;
  /** Warm-cache runs of each query. */
  runs: number;
  /** Empty-cache rounds of the whole mix. */
  coldRounds: number;
  importRuns: number;
  seed: number;
  cacheTtlSeconds: number;
  /** The traffic simulation's settings; undefined skips it. */
  traffic?: TrafficOptions | undefined;
  /** The progress; it must not write through `process.stdout.write`, which the phases mute. */
  log: (line: string) => void;
}

export interface ModeFigures {
  runs: number;
  readUnits: number;
  readUnitsMax: number;
  calls: number;
  items: number;
  itemBytes: number;
  responseBytes: number;
  latencyMs: LatencySummary;
  /** CPU time of the handler per request (process.cpuUsage), ms. */
  cpuMs: LatencySummary;
}

export interface QueryResult {
  name: string;
  params: Record<string, string>;
  total: number;
  records: number;
  cold: ModeFigures;
  warm: ModeFigures;
  reference: {
    /** The same Query calls replayed on an index projecting whole items (ALL), measured. */
    wholeItemReadUnits: number;
    /** The same, computed from the sizes of the items those calls returned, per response page. */
    wholeItemReadUnitsComputed: number;
    /** Reading only the page's records by key, computed from their item sizes. */
    floorReadUnits: number;
    /** cold read units / whole-item read units. */
    fraction: number;
  };
  /** Query calls of one empty-cache request: bucket, sort-key condition, items, read units. */
  queryCalls: { bucket: string | undefined; condition: string; items: number; readUnits: number }[];
  buckets: BucketCheck;
}

export interface BenchResult {
  version: 1;
  startedAt: string;
  durationSeconds: number;
  machine: { cpus: number; node: string; platform: string; cpuModel?: string };
  /** The reference workload's CPU in this run (bench/calibration.ts): the unit of the warm CPU targets. Absent from runs before 28 November 2026. */
  calibration?: Calibration;
  options: { legs: number; runs: number; coldRounds: number; importRuns: number; seed: number; cacheTtlSeconds: number };
  data: {
    today: string;
    legs: number;
    indexEntries: number;
    meanItemBytes: number;
    /** Mean DynamoDB size of an index entry, as read by an empty-cache request without filter. */
    meanIndexEntryBytes: number;
    buckets: Record<string, number>;
    loadSeconds: number;
    /** The listing snapshot after the load: entries, parts, gzip'd bytes, and the seconds a build with nothing changed took. */
    snapshot?: { entries: number; parts: number; bytes: number; rebuildSeconds: number };
  };
  queries: QueryResult[];
  overall: { cold: ModeFigures; warm: ModeFigures; authorizerLatencyMs: LatencySummary };
  hotBucket: { bucket: string; entries: number; readUnitsPerRead: number; fullReadsPerSecondAt3000: number };
  bundles: BundleReport;
  /** Cold-cache handler CPU of the no-filter query (every bucket read), in a process of its own (bench/cold-cpu.ts). */
  coldCpu?: {
    rounds: number;
    /** The handler's CPU per request (the name is the one committed results carry, docs/bench-results). */
    afterMs: LatencySummary;
    /** heapUsed after a full GC, in its process: before its first read and after its last cold read. */
    heap?: { emptyBytes: number; filledBytes: number };
    /** DynamoDB attempts of the measured requests that failed (time-outs) and were retried: their CPU is in the figure. */
    failedAttempts?: number;
    /**
     * Past 20,000 legs: the same request's CPU at 20,000 legs in this run (a table of its own, with its
     * snapshot, the requests alternating with the others'), and the ratio.
     */
    growth?: { baseLegs: number; baseMs: LatencySummary; ratio: number; failedAttempts?: number };
  };
  /** What the airport checks cost a load (bench/import-cpu.ts). */
  importCpu?: ImportCpuFigures;
  /** The traffic simulation, both designs (absent when skipped). */
  traffic?: TrafficResult;
  /** The rate-limit simulation (bench/rate-limit.ts). */
  rateLimits: RateLimitSimResult;
  /** Some queries of the mix as a `tools/call` of `search_empty_legs` and as the REST listing, same run (bench/mcp.ts). Absent from runs before 28 November 2026. */
  mcp?: McpQueryFigures[];
  targets: Target[];
  errors: string[];
}


/**
 * CLOCK_AT and its anchor as this process reads them (the anchor fixed now when unset), for the
 * functions' settings and the processes they run in: all read the benchmark's instant.
 */
function clockSettings(): Record<string, string> {
  const at = process.env[CLOCK_AT_ENV]?.trim();
  if (!at) return {};
  process.env[CLOCK_AT_ANCHOR_ENV] ||= String(realClock());
  return { [CLOCK_AT_ENV]: at, [CLOCK_AT_ANCHOR_ENV]: process.env[CLOCK_AT_ANCHOR_ENV] };
}

/** The size the cold-CPU growth is held against (docs/performance.md, "Scale"). */
const GROWTH_BASE_LEGS = 20_000;

/** Rounds of the import CPU comparison (a median of each). */
const IMPORT_CPU_ROUNDS = 5;
/** Rounds of the cold-CPU measurement at least (a median). */
const MIN_COLD_CPU_ROUNDS = 10;
/**
 * Unmeasured rounds of the mix before the warm-cache runs. Node runs single-threaded here, so V8
 * compiles hot functions on the main thread, in the request that makes them hot: for the first
 * thousand or so warm requests a compile of 5-18 ms lands in one request in twenty. A warm container
 * in steady state has that behind it (and in Lambda it runs on a background thread).
 */
const JIT_WARM_UP_ROUNDS = 300;
/** A run of the reference workload after every this many measured rounds of the mix. */
const CALIBRATION_EVERY_ROUNDS = 25;

/**
 * A full garbage collection between phases (the `bench` script starts Node with --expose-gc), so
 * that a phase does not pay for the garbage of the one before; a no-op without the flag.
 */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * A minor collection (the young generation only, about a millisecond). The benchmark runs the
 * authorizer, the list function and its own checks in one process; in AWS each function has a
 * container of its own. Before a measured warm request, this empties the young generation of the
 * garbage the authorizer and the benchmark left, so a collection inside the request is one the
 * list function's own allocations caused, as in its own container.
 */
function collectYoung(): void {
  (globalThis as { gc?: (options: { type: 'minor'; execution: 'sync' }) => void }).gc?.({ type: 'minor', execution: 'sync' });
}

interface Sample {
  handlerMs: number;
  /** The handler's CPU time (user + system, process.cpuUsage), ms. */
  cpuMs: number;
  authorizerMs: number;
  calls: RecordedCall[];
  responseBytes: number;
  /** The functions' clock when the request began (epoch ms). */
  servedAt: number;
}

function modeFigures(samples: readonly Sample[]): ModeFigures {
  const n = samples.length || 1;
  const mean = (f: (s: Sample) => number) => samples.reduce((a, s) => a + f(s), 0) / n;
  const units = (s: Sample) => s.calls.reduce((a, c) => a + c.readUnits, 0);
  return {
    runs: samples.length,
    readUnits: mean(units),
    readUnitsMax: Math.max(0, ...samples.map(units)),
    calls: mean((s) => s.calls.length),
    items: mean((s) => s.calls.reduce((a, c) => a + c.items, 0)),
    itemBytes: mean((s) => s.calls.reduce((a, c) => a + c.itemBytes, 0)),
    responseBytes: mean((s) => s.responseBytes),
    latencyMs: summarize(samples.map((s) => s.handlerMs)),
    cpuMs: summarize(samples.map((s) => s.cpuMs)),
  };
}

function overallFigures(perQuery: readonly ModeFigures[], allSamples: readonly Sample[]): ModeFigures {
  const n = perQuery.length || 1;
  const mean = (f: (m: ModeFigures) => number) => perQuery.reduce((a, m) => a + f(m), 0) / n;
  return {
    runs: allSamples.length,
    readUnits: mean((m) => m.readUnits),
    readUnitsMax: Math.max(0, ...perQuery.map((m) => m.readUnitsMax)),
    calls: mean((m) => m.calls),
    items: mean((m) => m.items),
    itemBytes: mean((m) => m.itemBytes),
    responseBytes: mean((m) => m.responseBytes),
    latencyMs: summarize(allSamples.map((s) => s.handlerMs)),
    cpuMs: summarize(allSamples.map((s) => s.cpuMs)),
  };
}

/** The sort-key part of a recorded Query's key condition, with the values filled in. */
function describeCondition(input: Record<string, unknown>, document: boolean): string {
  const expr = (typeof input.KeyConditionExpression === 'string' ? input.KeyConditionExpression : '');
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
  const sortPart = expr.split(/\bAND\b/i).slice(1).join(' AND ').trim();
  if (sortPart === '') return 'whole bucket';
  return sortPart
    .replace(/#\w+/g, (n) => names[n] ?? n)
    .replace(/:\w+/g, (v) => {
      const s = stringValue(values[v], document);
      return s === undefined ? v : JSON.stringify(s);
    });
}

/** Keeps only the expression attribute names the key condition uses (DynamoDB refuses unused ones). */
function keyConditionOnly(input: Record<string, unknown>): Record<string, unknown> {
  const expr = (typeof input.KeyConditionExpression === 'string' ? input.KeyConditionExpression : '');
  const names = Object.fromEntries(
    Object.entries((input.ExpressionAttributeNames ?? {}) as Record<string, string>).filter(([n]) => expr.includes(n)),
  );
  const values = Object.fromEntries(
    Object.entries((input.ExpressionAttributeValues ?? {}) as Record<string, unknown>).filter(([v]) =>
      new RegExp(`${v}\\b`).test(expr),
    ),
  );
  return {
    KeyConditionExpression: expr,
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values,
  };
}

export async function runBenchmark(options: BenchOptions): Promise<BenchResult> {
  const started = Date.now();
  const log = options.log;
  const errors: string[] = [];
  const suffix = randomUUID().slice(0, 8);
  const port = await freePort();
  const names = { legsTableName: `bench-legs-${suffix}`, keysTableName: `bench-keys-${suffix}` };
  const referenceTable = `bench-whole-${suffix}`;
  const growthTable = `bench-legs20k-${suffix}`;
  const REFERENCE_INDEX = 'wholeItems';
  // The functions' configuration, handed to their factories (no environment variables to set first).
  const functionEnv = {
    DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}`,
    LEGS_TABLE_NAME: names.legsTableName,
    KEYS_TABLE_NAME: names.keysTableName,
    STAGE: 'sandbox',
    LISTING_CACHE_TTL_SECONDS: String(options.cacheTtlSeconds),
    // The clock of `--at` (CLOCK_AT, src/clock.ts): the data set is made for its date, the functions read it.
    ...clockSettings(),
  };
  const functionSettings = readConfig(functionEnv);
  Object.assign(process.env, {
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });

  // The data set first: generating 100,000 legs takes long enough for DynamoDB Local to close the
  // idle keep-alive sockets of a client made before it (the next request: "socket hang up").
  // One clock for the data set, the functions and the oracle: the functions' (with `--at`, CLOCK_AT's).
  const clock = functionSettings.clock;
  const now = new Date(clock());
  const today = utcDate(now);
  log(`generating ${options.legs} legs (12 months, 200 airports, seed ${options.seed})`);
  // Stamped as a load stamps them (docs/storage.md, "A leg's instants"): the index entries carry `confirmedAt`.
  const loadedAt = wholeSecond(now.getTime());
  const legs = demoLegs(today, { count: options.legs, months: 12, airports: 200, seed: options.seed }).map((leg) => ({
    ...leg,
    firstSeenAt: loadedAt,
    updatedAt: loadedAt,
    confirmedAt: loadedAt,
  }));
  const data: DataLeg[] = legs.map((leg) => {
    const item = toStorageItem(leg);
    const bucket = item[BUCKET_ATTR];
    return { leg, bucket: typeof bucket === 'string' ? bucket : undefined, itemBytes: itemSize(item) };
  });
  const sizeById = new Map(data.map((d) => [d.leg.id, d.itemBytes]));
  const buckets: Record<string, number> = {};
  for (const d of data) if (d.bucket !== undefined) buckets[d.bucket] = (buckets[d.bucket] ?? 0) + 1;

  log(`starting DynamoDB Local on port ${port}`);
  const db = await startDynamoDbLocal({ port });
  // Its client answers the readiness probe (one attempt, 10 s); the benchmark's own calls retry as
  // the commands' do and wait a minute: on a busy machine DynamoDB Local drops a socket ("socket
  // hang up") or takes over 10 s over its first batch writes.
  const client = createDocumentClient({ endpoint: db.endpoint, region: 'local', budget: { ...COMMAND_DYNAMODB_BUDGET, requestTimeoutMs: 60_000 } });
  const bundleDir = mkdtempSync(path.join(os.tmpdir(), 'empty-legs-bench-'));
  try {
    // The functions' legs table without its stream until the traffic simulation, the only phase that
    // reads one (its change consumer starts at the stream's end): DynamoDB Local's writes and stream
    // reads slow down with the records a stream holds, and the load would leave 100,000 of them.
    await client.send(new CreateTableCommand(createTableInput(names.legsTableName, { ...LEGS_TABLE, stream: undefined })));
    await ensureTables(client, names);
    // The simple design's index: same keys, whole items (ALL projection), on a table of its own.
    await client.send(
      new CreateTableCommand(
        createTableInput(referenceTable, {
          partitionKey: LEGS_TABLE.partitionKey,
          indexes: [{ indexName: REFERENCE_INDEX, partitionKey: LEGS_INDEX.partitionKey, sortKey: LEGS_INDEX.sortKey }],
        }),
      ),
    );


    log(`loading ${legs.length} legs into ${names.legsTableName} and the whole-item reference table`);
    const loadStarted = Date.now();
    let lastShown = 0;
    await Promise.all([
      writeLegs(client, names.legsTableName, legs, {
        concurrency: 4,
        onProgress: (written, total) => {
          if (written - lastShown >= 10_000 || written === total) {
            lastShown = written;
            log(`  ${written}/${total}`);
          }
        },
      }),
      // The reference table is no function's: no listing snapshot for it.
      writeLegs(client, referenceTable, legs, { concurrency: 4 }),
    ]);
    const loadSeconds = (Date.now() - loadStarted) / 1000;
    log(`loaded in ${loadSeconds.toFixed(1)} s`);
    // The rates in force, as `npm start` loads them: the dated ECB file of the repository (src/rates/data/).
    const ratesText = readFileSync(DEMO_RATES_FILE, 'utf8');
    const rateSet = parseEcbRates(ratesText);
    const loadedRates = await loadRatesText(ratesText, { store: createRatesStore(client, names.legsTableName), clock });
    log(`  the ECB reference rates of ${loadedRates.date} (${loadedRates.currencies} currencies per euro) are in force`);
    // The sources registry, as `npm run sources -- set` writes it: what the seller searches read.
    const registry = createSourcesStore(client, names.legsTableName);
    for (const [id, s] of Object.entries(BENCH_REGISTRY)) await registry.set(id, { kind: s.kind, ...(s.verified ? { verified: true } : {}) }, { id: 'bench', at: clock() });
    // The listing snapshot's first build, and what building it again costs (the scheduled build: the
    // index read, no part written when nothing changed).
    await buildSnapshot(client, names.legsTableName);
    const rebuildStarted = Date.now();
    const rebuilt = await buildSnapshot(client, names.legsTableName);
    const snapshot = {
      rebuildSeconds: (Date.now() - rebuildStarted) / 1000,
      entries: rebuilt.entries,
      parts: Object.values(rebuilt.manifest?.buckets ?? {}).reduce((a, b) => a + b.parts, 0),
      bytes: Object.values(rebuilt.manifest?.buckets ?? {}).reduce((a, b) => a + b.bytes, 0),
    };
    log(`  listing snapshot: ${snapshot.entries} entries in ${snapshot.parts} parts, ${(snapshot.bytes / 1e3).toFixed(0)} kB gzip'd; rebuilt in ${snapshot.rebuildSeconds.toFixed(1)} s`);
    if (!rebuilt.published) errors.push('the listing snapshot was not published');

    // The highest rate limit: the benchmark measures the listing, not the key's limit.
    const { key, record: benchKey } = await createKey(client, names.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], rateLimit: MAX_RATE_LIMIT });
    await setClientRateLimit(client, names.keysTableName, clientIdOf(benchKey), MAX_RATE_LIMIT);

    // The functions' handlers, built by their factories as their handler files build them, in
    // this process, on a client made the functions' way (their time budget).
    const documentClient = createFunctionClient(functionSettings);
    const recorder = recordCalls(documentClient);
    const authorize = createAuthorizerHandler({
      client: documentClient,
      tableName: functionSettings.keysTableName,
      stage: functionSettings.stage,
    });
    const cache = createListRepository(documentClient, functionSettings);
    // The rates and the sources registry as a container reads them; `reset` is a new container's (the
    // MCP comparison's empty cache: each side then reads both, rather than the first side alone).
    const { source: rates, reset: resetRates } = resettable(() => cachedRates(createRatesStore(documentClient, functionSettings.legsTableName), { clock: functionSettings.clock }));
    const { source: sourcesRegistry, reset: resetRegistry } = resettable(() => cachedRegistry(createSourcesStore(documentClient, functionSettings.legsTableName), { clock: functionSettings.clock }));
    const sources = cachedFacts(sourcesRegistry);
    const list = createListHandler({ repository: cache, config: functionSettings, clock: functionSettings.clock, rates, sources, registry: sourcesRegistry });
    // The MCP function's handler, built as functions/mcp/handler.ts builds it, on the list function's
    // repository, rates and clock (its watch tools are not called: no watches table here).
    const mcp = createMcpHandler({
      repository: cache,
      readLeg: createLegReader(documentClient, functionSettings.legsTableName),
      sources: { registry: sourcesRegistry, countListed: (now) => countListedBySource(cache, now) },
      watches: {
        tables: { client: documentClient, watchesTableName: 'bench-no-watches', deliveriesTableName: 'bench-no-deliveries' },
        airports: airportReference,
        targets: 'public',
        resolver: () => Promise.reject(new Error('the benchmark creates no watch')),
        clock: functionSettings.clock,
        rates,
      },
      clock: functionSettings.clock,
      rates,
      sourceFacts: sources,
      listingCacheTtlSeconds: functionSettings.listingCacheTtlSeconds,
    });

    const mix = queryMix(today);
    // Each response is checked against the answer at the instant it was served; the reference
    // figures below take the answers at the run's start.
    const checker = createServedChecker(data, mix, rateSet);
    const expected = mix.map((_, i) => checker.expectedAt(i, now.getTime()));
    const rulesAt = (day: string) => ({
      // The loader's horizon plus the listing's day of clock slack (src/kernel/listed.ts).
      horizonEnd: addDays(day, HORIZON_DAYS),
      maxSpanDays: MAX_BUCKET_SPAN_DAYS,
      longBucket: LONG_BUCKET,
    });

    // Logs go to stdout in Lambda; here they are formatted as usual and dropped.
    const stdoutWrite = process.stdout.write.bind(process.stdout);
    const mute = () => {
      process.stdout.write = () => true;
    };
    const unmute = () => {
      process.stdout.write = stdoutWrite;
    };

    const reported = new Set<string>();
    // One error per kind of wrong answer, whatever the instants it was served at.
    const fail = (message: string) => {
      const kind = message.replace(/ \(at [^)]*\)$/, '');
      if (!reported.has(kind)) errors.push(message);
      reported.add(kind);
    };

    let lastPage100 = '';
    const invoke = async (q: MixQuery, index: number, handler = list, young = false): Promise<Sample> => {
      const a0 = performance.now();
      const verdict = await authorize(authorizerEvent(key, q.params), lambdaContext('authorizer'));
      const a1 = performance.now();
      const event = listEvent(q.params, verdict.context);
      const context = lambdaContext('list-empty-legs');
      recorder.reset();
      if (young) collectYoung();
      const servedFrom = clock();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const res: APIGatewayProxyStructuredResultV2 = await handler(event, context);
      const t1 = performance.now();
      const cpu = process.cpuUsage(cpu0);
      const servedTo = clock();
      const calls = recorder.reset().map((call) => summarizeCall(call));
      const body = typeof res.body === 'string' ? res.body : '';
      for (const message of checker.check(index, res.statusCode ?? 0, body, servedFrom, servedTo)) fail(message);
      if (q.params.size === '100' && res.statusCode === 200) lastPage100 = body;
      return { handlerMs: t1 - t0, cpuMs: (cpu.user + cpu.system) / 1000, authorizerMs: a1 - a0, calls, responseBytes: Buffer.byteLength(body), servedAt: servedFrom };
    };

    // DynamoDB Local compiles its code paths on the first requests (a first bucket read can take
    // longer than the functions' 1.5 s per attempt): one round of the mix, not measured.
    log('warming DynamoDB Local: one round of the mix, not measured');
    mute();
    try {
      for (let i = 0; i < mix.length; i++) {
        cache.clear();
        await invoke(mix[i]!, i);
      }
    } finally {
      unmute();
    }
    errors.length = 0;
    reported.clear();

    collectGarbage();
    // Empty cache: the listing cache is cleared before every request.
    log(`empty cache: ${options.coldRounds} rounds of the ${mix.length}-query mix`);
    const cold: Sample[][] = mix.map(() => []);
    const authorizerSamples: number[] = [];
    mute();
    try {
      for (let round = 0; round < options.coldRounds; round++) {
        for (let i = 0; i < mix.length; i++) {
          cache.clear();
          const s = await invoke(mix[i]!, i);
          cold[i]!.push(s);
          authorizerSamples.push(s.authorizerMs);
        }
        if ((round + 1) % 10 === 0) log(`  round ${round + 1}/${options.coldRounds}`);
      }
    } finally {
      unmute();
    }

    collectGarbage();
    // Warm cache: one request of each query to fill it, then the measured runs.
    log(`warm cache: ${JIT_WARM_UP_ROUNDS} rounds of the mix to let V8 compile, not measured, then ${options.runs} runs of each query (cache ceiling ${options.cacheTtlSeconds} s)`);
    const warm: Sample[][] = mix.map(() => []);
    const referenceSamples: number[] = [];
    mute();
    try {
      for (let round = 0; round < JIT_WARM_UP_ROUNDS; round++) for (let i = 0; i < mix.length; i++) await invoke(mix[i]!, i);
      // The reference workload (bench/calibration.ts) before, between and after the measured runs:
      // the warm CPU targets are ratios to its CPU in this process, at the same moments.
      referenceSamples.push(...calibrate(3).samples);
      for (let round = 0; round < options.runs; round++) {
        for (let i = 0; i < mix.length; i++) {
          const s = await invoke(mix[i]!, i, list, true);
          warm[i]!.push(s);
          authorizerSamples.push(s.authorizerMs);
        }
        if ((round + 1) % CALIBRATION_EVERY_ROUNDS === 0) referenceSamples.push(referenceRunMs());
      }
      referenceSamples.push(...calibrate(3).samples);
    } finally {
      unmute();
    }
    const calibration: Calibration = {
      referenceMs: referenceSamples.reduce((a, b) => a + b, 0) / referenceSamples.length,
      statistic: 'mean',
      samples: referenceSamples,
      machine: machine(),
    };
    log(`  reference workload: ${calibration.referenceMs.toFixed(1)} ms CPU (mean of ${referenceSamples.length} runs around the warm runs) on ${describeMachine(calibration.machine)}`);

    collectGarbage();
    // The MCP search against the REST listing (docs/performance.md, "MCP"): some queries of the mix both ways.
    const mcpQueries = mix.filter((q) => (MCP_QUERIES as readonly string[]).includes(q.name));
    log(`MCP: ${mcpQueries.length} queries of the mix as a tools/call of search_empty_legs and as the REST listing: ${options.coldRounds} empty-cache rounds, then ${options.runs} warm runs of each, interleaved`);
    mute();
    const mcpFigures = await compareMcp({
      queries: mcpQueries,
      list,
      mcp,
      authorize: async (params) => (await authorize(authorizerEvent(key, params), lambdaContext('authorizer'))).context,
      clear: () => {
        cache.clear();
        resetRates();
        resetRegistry();
      },
      readUnits: () => recorder.reset().reduce((a, call) => a + summarizeCall(call).readUnits, 0),
      context: () => lambdaContext('mcp'),
      collectYoung,
      coldRounds: options.coldRounds,
      warmUpRounds: JIT_WARM_UP_ROUNDS,
      runs: options.runs,
      fail,
    }).finally(unmute);
    for (const f of mcpFigures) {
      const ru = (xs: number[]) => (xs.reduce((a, b) => a + b, 0) / (xs.length || 1)).toFixed(2);
      log(`  ${f.name}: read units ${ru(f.rest.readUnits)} REST, ${ru(f.mcp.readUnits)} MCP; warm CPU median ${f.rest.cpuMs.p50.toFixed(3)} ms REST, ${f.mcp.cpuMs.p50.toFixed(3)} ms MCP (${(f.mcp.cpuMs.p50 / (f.rest.cpuMs.p50 || Number.MIN_VALUE)).toFixed(2)} times)`);
    }

    collectGarbage();
    // Cold-cache CPU: the no-filter query (it reads every bucket, as a new container does) with an
    // empty cache.
    const coldCpuRounds = Math.max(options.coldRounds, MIN_COLD_CPU_ROUNDS);
    log(`cold-cache CPU: ${coldCpuRounds} rounds of the no-filter query, in a process of its own`);
    const coldQuery = mix[0]!;
    mute();
    const { context: coldAuthorizer } = await authorize(authorizerEvent(key, coldQuery.params), lambdaContext('authorizer')).finally(unmute);
    // Past 20,000 legs the cost is held against its cost at 20,000 legs in this run (a table of its own, below).
    const growth = options.legs > GROWTH_BASE_LEGS;
    const coldJob = { settings: functionEnv, rounds: coldCpuRounds, params: coldQuery.params, authorizer: coldAuthorizer };
    const jobs = [coldJob];
    // Its answers are checked at the instants the functions' process read.
    const totalsAt = [(instant: number) => checker.expectedAt(0, instant).total];
    if (growth) {
      log(`  and at ${GROWTH_BASE_LEGS} legs, same run: loading them into a table of their own, with its listing snapshot`);
      const baseLegs = demoLegs(today, { count: GROWTH_BASE_LEGS, months: 12, airports: 200, seed: options.seed });
      // Without a stream: nothing reads one here, and DynamoDB Local writes to a second streamed
      // table slower and slower after the first one's 100,000 (docs/performance.md, "Scale").
      await client.send(new CreateTableCommand(createTableInput(growthTable, { ...LEGS_TABLE, stream: undefined })));
      await writeLegs(client, growthTable, baseLegs, { concurrency: 4 });
      // Its cold reads take the path the functions' table's take: the snapshot's parts, not the index.
      await buildSnapshot(client, growthTable);
      const baseData: DataLeg[] = baseLegs.map((leg) => {
        const bucket = toStorageItem(leg)[BUCKET_ATTR];
        return { leg, bucket: typeof bucket === 'string' ? bucket : undefined, itemBytes: 0 };
      });
      jobs.push({ ...coldJob, settings: { ...functionEnv, LEGS_TABLE_NAME: growthTable } });
      const baseChecker = createServedChecker(baseData, [coldQuery]);
      totalsAt.push((instant) => baseChecker.expectedAt(0, instant).total);
    }
    // With the growth base, the two processes' requests alternate: both meet the same load.
    const [coldSamples, base] = await measureColdCpuTogether(jobs, totalsAt);
    for (const samples of [coldSamples!, ...(base ? [base] : [])]) {
      for (const message of samples.errors) fail(message);
      if (samples.indexQueries > 0) fail(`cold CPU: ${samples.indexQueries} Query calls of the index: the listing snapshot did not serve every bucket`);
    }
    const coldCpu: NonNullable<BenchResult['coldCpu']> = {
      rounds: coldCpuRounds,
      afterMs: summarize(coldSamples!.cpuMs),
      heap: coldSamples!.heap,
      failedAttempts: coldSamples!.failedAttempts,
    };
    log(`  median CPU ${coldCpu.afterMs.p50.toFixed(1)} ms; DynamoDB attempts failed and retried: ${coldSamples!.failedAttempts}`);
    log(`  heap after a full GC: ${(coldCpu.heap!.emptyBytes / 1e6).toFixed(1)} MB before the first read, ${(coldCpu.heap!.filledBytes / 1e6).toFixed(1)} MB after the last cold read`);
    if (base) {
      const baseMs = summarize(base.cpuMs);
      coldCpu.growth = { baseLegs: GROWTH_BASE_LEGS, baseMs, ratio: baseMs.p50 > 0 ? coldCpu.afterMs.p50 / baseMs.p50 : 0, failedAttempts: base.failedAttempts };
      log(`  median CPU ${baseMs.p50.toFixed(1)} ms at ${GROWTH_BASE_LEGS} legs, ${coldCpu.afterMs.p50.toFixed(1)} ms at ${options.legs} (${coldCpu.growth.ratio.toFixed(2)} times); attempts failed at ${GROWTH_BASE_LEGS}: ${base.failedAttempts}`);
    }

    // Reference figures: the bucket reads of each query as the index serves them (the planner's
    // reads, src/listing/listing.ts, each Query page of the functions' index measured) and the same
    // key conditions replayed on the whole-item index (each distinct condition once, from its start
    // to its end). The functions' empty-cache requests read the listing snapshot instead: what the
    // index read would cost is the comparison.
    log('reference figures: the index reads of each query, and the same on the whole-item index');
    const queries: QueryResult[] = [];
    const replays = new Map<string, { whole: number; computed: number }>();
    const indexReads = new Map<string, RecordedCall[]>();
    let firstIndexCalls: RecordedCall[] = [];
    for (let i = 0; i < mix.length; i++) {
      const q = mix[i]!;
      const queryCalls: RecordedCall[] = [];
      const window = queryWindow(parseListQuery(q.params), today);
      for (const read of window ? bucketReads(window, today) : []) {
        const input = bucketQueryInput(names.legsTableName, keyCondition(read.bucket, read), undefined);
        const key = JSON.stringify(input);
        let calls = indexReads.get(key);
        if (!calls) {
          calls = [];
          let startKey: Record<string, unknown> | undefined;
          do {
            const out = await client.send(new DocQueryCommand({ ...input, ExclusiveStartKey: startKey, ReturnConsumedCapacity: 'TOTAL' }));
            calls.push(
              summarizeCall({ operation: 'Query', document: true, input: input, output: out, ms: 0 }),
            );
            startKey = out.LastEvaluatedKey;
          } while (startKey);
          indexReads.set(key, calls);
        }
        queryCalls.push(...calls);
      }
      if (i === 0) firstIndexCalls = queryCalls;
      const distinct = new Map<string, { document: boolean; condition: Record<string, unknown> }>();
      for (const c of queryCalls) {
        const condition = keyConditionOnly(c.queryInput!);
        distinct.set(JSON.stringify(condition), { document: c.document, condition });
      }
      let whole = 0;
      let wholeComputed = 0;
      for (const [conditionKey, { document, condition }] of distinct) {
        // Queries of the mix that read the same ranges share one replay of each.
        const replayed = replays.get(conditionKey);
        if (replayed) {
          whole += replayed.whole;
          wholeComputed += replayed.computed;
          continue;
        }
        const before = { whole, wholeComputed };
        let startKey: Record<string, unknown> | undefined;
        do {
          const input = {
            TableName: referenceTable,
            IndexName: REFERENCE_INDEX,
            ...(condition as object),
            ExclusiveStartKey: startKey as never,
            ReturnConsumedCapacity: 'TOTAL' as const,
          };
          const out = await (document ? client.send(new DocQueryCommand(input)) : client.send(new QueryCommand(input))).catch(
            (err: unknown) => {
              throw new Error(`replaying ${JSON.stringify(input)} failed: ${String(err)}`);
            },
          );
          whole += consumedUnits(out.ConsumedCapacity);
          const size = (item: unknown) =>
            document ? itemSize(item as Record<string, unknown>) : wireItemSize(item as Record<string, WireValue>);
          const bytes = (out.Items ?? []).reduce((a: number, item) => a + size(item), 0);
          wholeComputed += (out.Items ?? []).length > 0 ? pageReadUnits(bytes) : 0;
          startKey = out.LastEvaluatedKey;
        } while (startKey);
        replays.set(conditionKey, { whole: whole - before.whole, computed: wholeComputed - before.wholeComputed });
      }
      const want = expected[i]!;
      const floor = floorReadUnits(want.pageIds.map((id) => sizeById.get(id) ?? 0));
      const coldFigures = modeFigures(cold[i]!);
      // The buckets each empty-cache request read: its snapshot parts, and its Query pages of the
      // listing index (where the snapshot could not serve); against the windows and answers at the
      // instants they were served (every bucket one of them allows; those every one of them needs).
      const queried = cold[i]!.flatMap((s) => s.calls.flatMap((c) => [...(c.bucket === undefined ? [] : [c.bucket]), ...c.snapshotBuckets]));
      const served = cold[i]!.map((s) => ({ at: s.servedAt, want: checker.expectedAt(i, s.servedAt) }));
      const allowed = new Set(served.flatMap(({ at, want: w }) => (w.window ? allowedBuckets(w.window, rulesAt(checker.todayAt(at))) : [])));
      const required = served.map(({ want: w }) => w.requiredBuckets).reduce((a, b) => new Set([...a].filter((x) => b.has(x))));
      const check = checkBuckets(queried, [...allowed], required);
      if (check.missing.length > 0) fail(`${q.name}: buckets holding matching legs were not read: ${check.missing.join(', ')}`);
      queries.push({
        name: q.name,
        params: q.params,
        total: want.total,
        records: want.pageIds.length,
        cold: coldFigures,
        warm: modeFigures(warm[i]!),
        reference: {
          wholeItemReadUnits: whole,
          wholeItemReadUnitsComputed: wholeComputed,
          floorReadUnits: floor,
          fraction: readUnitFraction(coldFigures.readUnits, whole),
        },
        queryCalls: queryCalls.map((c) => ({
          bucket: c.bucket,
          condition: describeCondition(c.queryInput!, c.document),
          items: c.items,
          readUnits: c.readUnits,
        })),
        buckets: check,
      });
    }

    // The busiest bucket as a read of the index without filter reads it.
    const perBucket = new Map<string, { items: number; bytes: number; units: number }>();
    for (const c of firstIndexCalls) {
      if (c.bucket === undefined) continue;
      const b = perBucket.get(c.bucket) ?? { items: 0, bytes: 0, units: 0 };
      b.items += c.items;
      b.bytes += c.itemBytes;
      b.units += c.readUnits;
      perBucket.set(c.bucket, b);
    }
    const [hotName, hot] = [...perBucket].sort((a, b) => b[1].units - a[1].units)[0] ?? ['', { items: 0, bytes: 0, units: 0 }];
    const entriesRead = [...perBucket.values()].reduce((a, b) => a + b.items, 0);
    const bytesRead = [...perBucket.values()].reduce((a, b) => a + b.bytes, 0);

    let traffic: TrafficResult | undefined;
    if (options.traffic) {
      collectGarbage();
      await client.send(
        new UpdateTableCommand({ TableName: names.legsTableName, StreamSpecification: { StreamEnabled: true, StreamViewType: LEGS_TABLE.stream } }),
      );
      const replay = await startReplayProxy(`http://127.0.0.1:${port}`);
      // The change consumer on the legs table's stream, from its newest record on (the initial load is
      // not logged: the snapshot holds it), at the simulation's instants.
      let consumerNow = 0;
      const consumer = createStreamPoller({
        streams: createStreamsClient({ endpoint: `http://127.0.0.1:${port}` }),
        client: client,
        tableName: names.legsTableName,
        startAt: 'LATEST',
        handle: createChangeConsumerHandler({ store: createChangeLogStore(client, names.legsTableName), clock: () => consumerNow, stage: 'sandbox', emit: () => undefined }),
      });
      await consumer.drain();
      // The simulated containers' logs are dropped as in the other phases (the progress is not: `log`).
      mute();
      try {
        traffic = await runTraffic({
          options: options.traffic,
          tableName: names.legsTableName,
          keysTableName: names.keysTableName,
          data,
          // Without the price, seller and grouped searches: they read and cache what the same searches without them do,
          // and the oracle's conversions and sorts would double the simulation's time.
          mix: mix.filter((q) => !isPriceSearch(q) && !isSellerSearch(q) && !isGroupSearch(q)),
          today,
          newClient: () => createDocumentClient({ endpoint: `http://127.0.0.1:${port}`, region: 'local' }),
          consume: async (at) => {
            consumerNow = at;
            await consumer.drain();
          },
          ttlReads: {
            newClient: () => createDocumentClient({ endpoint: replay.endpoint, region: 'local' }),
            invalidate: (buckets) => replay.invalidate(buckets),
          },
          scanLegs: async () => {
            const items = new Map<string, Record<string, unknown>>();
            let startKey: Record<string, unknown> | undefined;
            do {
              const out = await client.send(new ScanCommand({ TableName: names.legsTableName, ExclusiveStartKey: startKey }));
              for (const item of out.Items ?? []) if (typeof item.id === 'string' && !item.id.startsWith('~')) items.set(item.id, item);
              startKey = out.LastEvaluatedKey;
            } while (startKey);
            return items;
          },
          log,
        });
        traffic.replay = await replay.stats();
      } finally {
        unmute();
        await replay.stop();
      }
      const r = traffic.replay;
      log(`  the TTL design's bucket reads: ${r.replayed} of ${r.queries} replayed; ${r.checked} of those checked against DynamoDB Local, ${r.differed} differed`);
      if (r.differed > 0) errors.push(`traffic: ${r.differed} replayed bucket reads differed from DynamoDB Local's answer`);
      for (const d of traffic.designs) {
        const byKind = Object.entries(d.readUnitsByKind ?? {}).map(([k, v]) => `${k} ${v.toFixed(3)}`).join(', ');
        log(`  ${d.design}: ${d.readUnitsPerRequest.toFixed(3)} RU/request (${byKind}), staleness p99 ${d.staleness.p99Ms} ms, inconsistent ${d.inconsistent}`);
      }
      if (traffic.oracleMismatches > 0) errors.push(`traffic: the oracle's model differs from the table in ${traffic.oracleMismatches} legs`);
    }

    log('rate limits: one key at several times its limit over many containers, on simulated time');
    const rateLimits = await runRateLimitSim({ client: client, keysTableName: names.keysTableName });
    {
      const st = rateLimits.steady;
      log(
        `  ${st.servedPerSecond.toFixed(2)} req/s served of a limit of ${rateLimits.options.limit.rate} (windows ${st.windows.map((w) => w.toFixed(1)).join(', ')}); ` +
          `${st.writeUnitsPerRequest.toFixed(4)} WU/request; bursts: ${rateLimits.bursts.refused} of ${rateLimits.bursts.sent} refused`,
      );
      for (const [name, f] of rateLimitScenarios(rateLimits)) {
        log(
          `  ${name}: worst 10 s window ${f.worstWindow.served} served of ${f.windowLimit} (burst + 10 x rate; ${(f.worstWindowExcess * 100).toFixed(1)}%), ` +
            `${f.served} served of ${f.requests} where one token bucket serves ${f.reference} (${(f.longRunDeviation * 100).toFixed(1)}%); ${f.writeUnits} WU`,
        );
      }
    }

    log(`bundling the functions with lib/bundling.ts and timing ${options.importRuns} imports of each`);
    const bundles = await buildAndMeasure({
      dir: bundleDir,
      runs: options.importRuns,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        LEGS_TABLE_NAME: names.legsTableName,
        KEYS_TABLE_NAME: names.keysTableName,
        STAGE: 'sandbox',
        AWS_REGION: 'us-east-1',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        POWERTOOLS_LOG_LEVEL: 'WARN',
      },
      log,
    });
    for (const [name, ok] of Object.entries(bundles.checks)) if (!ok) errors.push(`list bundle check failed: ${name}`);

    // Last: a minute of this process's CPU with no database call (an idle keep-alive socket to
    // DynamoDB Local would be closed under a request made after it).
    log(`import CPU: reading ${legs.length} records with the airport checks and without, ${IMPORT_CPU_ROUNDS} rounds each, alternating`);
    const importCpu = measureImportCpu({ legs: options.legs, rounds: IMPORT_CPU_ROUNDS, today, seed: options.seed });
    log(
      `  median ${importCpu.withChecksMs.toFixed(0)} ms with (the reference read included: ${importCpu.referenceLoadMs.toFixed(0)} ms), ` +
        `${importCpu.withoutChecksMs.toFixed(0)} ms without (${importCpu.ratio.toFixed(3)}); ${importCpu.filled} records filled`,
    );

    const targets = evaluateTargets({
      legs: options.legs,
      queries: queries.map((q) => ({
        name: q.name,
        params: q.params,
        coldReadUnits: q.cold.readUnits,
        wholeItemReadUnits: q.reference.wholeItemReadUnits,
        warmP95Ms: q.warm.cpuMs.p95,
        excessBuckets: q.buckets.excess,
      })),
      listImportCpuMs: bundles.list.importCpuMs,
      helloImportCpuMs: bundles.hello.importCpuMs,
      calibration,
    });
    targets.push(
      ...mcpTargets(
        mcpFigures.map((f) => ({ name: f.name, restReadUnits: f.rest.readUnits, mcpReadUnits: f.mcp.readUnits, restCpuMs: f.rest.cpuMs.p50, mcpCpuMs: f.mcp.cpuMs.p50 })),
      ),
    );
    if (coldCpu.growth) targets.push(coldGrowthTarget(options.legs, coldCpu.growth.baseLegs, coldCpu.growth.ratio));
    targets.push(importCpuTarget(importCpu.legs, importCpu.ratio));
    targets.push(
      ...rateLimitTargets({
        containers: rateLimits.options.containers,
        demandPerSecond: rateLimits.options.demandPerSecond,
        deviation: rateLimits.steady.deviation,
        worstWindowDeviation: rateLimits.steady.worstWindowDeviation,
        burstRefused: rateLimits.bursts.refused,
        writeUnitsPerRequest: rateLimits.steady.writeUnitsPerRequest,
        bursty: rateLimitScenarios(rateLimits).map(([label, f]) => ({ label, worstWindowExcess: f.worstWindowExcess, longRunDeviation: f.longRunDeviation })),
      }),
    );
    const zipped = compressResponse('gzip', { statusCode: 200, body: lastPage100 });
    targets.push(gzipTarget(zipped.isBase64Encoded ? Buffer.from(zipped.body ?? '', 'base64').length : Buffer.byteLength(lastPage100), Buffer.byteLength(lastPage100)));
    if (traffic) {
      const [before, after] = traffic.designs;
      targets.push(
        ...trafficTargets({
          seconds: traffic.options.seconds,
          before: { readUnitsPerRequest: before!.readUnitsPerRequest, busiestBucketRps: before!.busiestBucket.requestsPerSecond },
          after: {
            readUnitsPerRequest: after!.readUnitsPerRequest,
            busiestBucketRps: after!.busiestBucket.requestsPerSecond,
            stalenessP99Ms: after!.staleness.p99Ms,
            inconsistent: after!.inconsistent,
          },
          keysSeenWithinMs: Math.max(traffic.keys.revokedSeenMs, traffic.keys.rotatedSeenMs),
        }),
      );
    }

    return {
      version: 1,
      startedAt: new Date(started).toISOString(),
      durationSeconds: (Date.now() - started) / 1000,
      machine: { cpus: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.arch()}`, cpuModel: calibration.machine.cpuModel },
      calibration,
      options: {
        legs: options.legs,
        runs: options.runs,
        coldRounds: options.coldRounds,
        importRuns: options.importRuns,
        seed: options.seed,
        cacheTtlSeconds: options.cacheTtlSeconds,
      },
      data: {
        today,
        legs: legs.length,
        indexEntries: Object.values(buckets).reduce((a, b) => a + b, 0),
        meanItemBytes: data.reduce((a, d) => a + d.itemBytes, 0) / (data.length || 1),
        meanIndexEntryBytes: entriesRead > 0 ? bytesRead / entriesRead : 0,
        buckets,
        loadSeconds,
        snapshot,
      },
      queries,
      overall: {
        cold: overallFigures(
          queries.map((q) => q.cold),
          cold.flat(),
        ),
        warm: overallFigures(
          queries.map((q) => q.warm),
          warm.flat(),
        ),
        authorizerLatencyMs: summarize(authorizerSamples),
      },
      hotBucket: {
        bucket: hotName,
        entries: hot.items,
        readUnitsPerRead: hot.units,
        fullReadsPerSecondAt3000: hot.units > 0 ? 3000 / hot.units : Number.POSITIVE_INFINITY,
      },
      bundles,
      coldCpu,
      importCpu,
      ...(traffic ? { traffic } : {}),
      rateLimits,
      mcp: mcpFigures,
      targets,
      errors,
    };
  } finally {
    rmSync(bundleDir, { recursive: true, force: true });
    await db.stop();
  }
}
