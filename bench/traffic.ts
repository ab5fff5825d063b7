import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { successResponse } from '../src/http/envelope.js';
import { createKeyAuthorizer } from '../src/keys/authorizer.js';
import { getKeyByHash } from '../src/keys/store.js';
import { createKey, revokeKey, rotateKey } from '../src/api-keys/store.js';
import { readKeysVersion } from '../src/keys/version.js';
import { withChangeAwareCache } from '../src/listing/change-aware-cache.js';
import { addDays } from '../src/kernel/dates.js';
import { processClock } from '../src/clock.js';
import { mulberry32 } from '../local/demo/generator.js';
import { createChangeSource } from '../src/changes/follow.js';
import { createChangeLogStore, HEAD_ID } from '../src/changes/store.js';
import { listEmptyLegs } from '../src/listing/list-legs.js';
import { writeLegs } from '../src/loading/loader.js';
import { MatchMemo } from '../src/listing/match-memo.js';
import { parseListQuery } from '../src/listing/query.js';
import { createLegsRepository, withBucketCache, type LegsRepository } from '../src/listing/repository.js';
import { withSnapshot } from '../src/listing/snapshot-read.js';
import { bucketOf, LISTING_HORIZON_DAYS, type StoredLeg } from '../src/kernel/leg-item.js';
import { isChangeLogId, recordCalls, summarizeCall, type RecordedCall } from './consumed.js';
import { expectedListing, type DataLeg, type MixQuery } from './mix.js';
import { summarize, type LatencySummary } from './stats.js';
import type { ReplayStats } from './replay-proxy.js';

/**
 * The traffic simulation (docs/performance.md, "Traffic simulation"): many containers, each with its
 * own listing cache and match memo, answer requests arriving at a set rate with the query mix, over a
 * simulated time span (a simulated clock: nothing waits), while a writer changes legs with the
 * project's loader (a steady trickle, plus one large batch half way) and the change consumer logs
 * each write LOG_LAG_MS of simulated time after it. Both designs run in the same
 * run, on the same table, the same requests and the same writes, interleaved event by event:
 *
 * - `ttl`: the per-container cache with a TTL (withBucketCache), as deployed before;
 * - `change-aware`: the cache that follows the change log (withChangeAwareCache), its bucket
 *   reads from the listing snapshot (withSnapshot), as the functions compose it (createListRepository).
 *
 * Read units are DynamoDB Local's ConsumedCapacity of each design's own client. Staleness: every
 * response is compared with an oracle, the expected answer computed from a model of the table (the
 * generated legs plus every write; the model is checked against a Scan of the table at the end). A
 * response that equals the oracle after write k but not after any later write misses writes k+1...;
 * a write's staleness is the time from the write to the last response, of any container, that
 * missed it (0 when none did): how old a change can be and still be missing from an answer. A
 * response that equals the oracle at no state is counted as inconsistent (and not as staleness).
 */
export interface TrafficOptions {
  containers: number;
  requestsPerSecond: number;
  seconds: number;
  /** Legs changed per second by the trickle writer. */
  writesPerSecond: number;
  /** Legs of the one large batch, written half way (trafficOptions: BATCH_LEGS_PER_MINUTE of the span). */
  batchLegs: number;
  ttlSeconds: number;
  ceilingSeconds: number;
  seed: number;
}

/** The large batch's legs per simulated minute: a span's batch is its share, so every span carries the same writes per request. */
export const BATCH_LEGS_PER_MINUTE = 500;

export const DEFAULT_TRAFFIC: TrafficOptions = {
  containers: 20,
  requestsPerSecond: 50,
  seconds: 60,
  writesPerSecond: 1,
  batchLegs: BATCH_LEGS_PER_MINUTE,
  ttlSeconds: 10,
  ceilingSeconds: 900,
  seed: 7,
};

/** The simulation's options for a span of `seconds`: the defaults, the batch in proportion. */
export function trafficOptions(seconds: number): TrafficOptions {
  return { ...DEFAULT_TRAFFIC, seconds, batchLegs: Math.round((BATCH_LEGS_PER_MINUTE * seconds) / 60) };
}

export interface DesignFigures {
  design: 'ttl' | 'change-aware';
  requests: number;
  readUnitsPerRequest: number;
  /** The same, by what the calls read (READ_KINDS); absent from results before 27 November 2026. */
  readUnitsByKind?: Record<ReadKind, number>;
  callsPerRequest: number;
  /** Query calls per simulated second, per bucket (the partitions of the listing index). */
  bucketRequestsPerSecond: Record<string, number>;
  busiestBucket: { bucket: string; requestsPerSecond: number };
  /** GetItem calls per second on the change log's head (one item, one partition of the table). */
  headReadsPerSecond: number;
  latencyMs: LatencySummary;
  /** Latency of the requests that read the index (cache misses). */
  missLatencyMs: LatencySummary;
  cpuMs: LatencySummary;
  staleness: { writes: number; p50Ms: number; p99Ms: number; maxMs: number };
  inconsistent: number;
}

/** What a call of the listing reads: the log's head, its entries, the snapshot, the index, the legs' records. */
export const READ_KINDS = ['head', 'changes', 'snapshot', 'index', 'records'] as const;
export type ReadKind = (typeof READ_KINDS)[number];

export function readKindOf(call: Pick<RecordedCall, 'operation' | 'getId' | 'snapshotBuckets' | 'changeLogItems'>): ReadKind {
  if (call.operation === 'Query') return 'index';
  if (call.operation === 'GetItem') return call.getId === HEAD_ID ? 'head' : isChangeLogId(call.getId) ? 'changes' : 'snapshot';
  return call.snapshotBuckets.length > 0 ? 'snapshot' : call.changeLogItems ? 'changes' : 'records';
}

export interface TrafficResult {
  options: TrafficOptions;
  startIso: string;
  writes: number;
  legsWritten: number;
  designs: DesignFigures[];
  /** The oracle's model against a Scan of the table at the end: legs that differ. */
  oracleMismatches: number;
  /**
   * Keys: simulated ms from a revocation (a rotation) until every authorizer container refuses the
   * key (marks it deprecated), each container asked every 100 ms.
   */
  keys: { revokedSeenMs: number; rotatedSeenMs: number };
  /** The TTL design's bucket reads through the replay proxy (bench/replay-proxy.ts), when it was used. */
  replay?: ReplayStats;
}

interface Container {
  repository: LegsRepository;
  memo: MatchMemo;
}

interface Design {
  name: DesignFigures['design'];
  client: DynamoDBDocumentClient;
  containers: Container[];
  recorder: ReturnType<typeof recordCalls>;
  samples: { ms: number; cpuMs: number; miss: boolean }[];
  readUnits: number;
  readUnitsByKind: Record<ReadKind, number>;
  calls: number;
  buckets: Map<string, number>;
  headReads: number;
  /** Per write event: per container, time of its last response missing it (sim ms). */
  lastMiss: Map<number, Map<number, number>>;
  inconsistent: number;
}

interface WriteEvent {
  k: number;
  at: number;
  /** Per leg id: the leg before the write (undefined: did not exist). */
  before: Map<string, StoredLeg | undefined>;
}

const QUARTER_HOUR = 15 * 60_000;

/**
 * Simulated time from a write to its entry in the change log: the event source mapping's polling
 * (about four times a second) and a batch's commit; `npm run bench:changes` measures the real lag.
 */
export const LOG_LAG_MS = 500;

export async function runTraffic(input: {
  options: TrafficOptions;
  tableName: string;
  keysTableName: string;
  data: readonly DataLeg[];
  mix: readonly MixQuery[];
  today: string;
  /** A new client on the same DynamoDB (one per design, and one for the writer). */
  newClient: () => DynamoDBDocumentClient;
  /**
   * The TTL design's client and what a write must tell it, when its repeated reads go through the
   * replay proxy (bench/replay-proxy.ts): the buckets each write touched, before the next request.
   */
  ttlReads?: { newClient: () => DynamoDBDocumentClient; invalidate: (buckets: readonly string[]) => Promise<void> };
  /** Runs the change consumer over what the table's stream holds, at simulated instant `at`. */
  consume: (at: number) => Promise<void>;
  /** Reads every leg of the table (the oracle check). */
  scanLegs: () => Promise<Map<string, Record<string, unknown>>>;
  log: (line: string) => void;
}): Promise<TrafficResult> {
  const { options, mix, log } = input;
  const rnd = mulberry32(options.seed);
  // Start at a quarter hour plus one minute: no zone's midnight (every zone's offset is a multiple
  // of 15 minutes) falls in the span, so no leg expires while it runs and the oracle need not move.
  const start = Math.ceil(processClock() / QUARTER_HOUR) * QUARTER_HOUR + 60_000;
  const spanMs = options.seconds * 1000;
  let simNow = start;
  const clock = () => simNow;

  const model = new Map<string, StoredLeg>(input.data.map((d) => [d.leg.id, d.leg]));
  const writes: WriteEvent[] = [];

  const makeDesign = (name: Design['name']): Design => {
    const client = name === 'ttl' && input.ttlReads ? input.ttlReads.newClient() : input.newClient();
    const changeLog = createChangeSource(createChangeLogStore(client, input.tableName));
    const containers: Container[] = Array.from({ length: options.containers }, () => {
      const table = createLegsRepository(client, input.tableName);
      const repository =
        name === 'ttl'
          ? withBucketCache(table, options.ttlSeconds * 1000, clock)
          : withChangeAwareCache(withSnapshot(table, client, input.tableName, changeLog), changeLog, {
              ceilingMs: options.ceilingSeconds * 1000,
              clock,
            });
      return { repository, memo: new MatchMemo() };
    });
    return {
      name,
      client,
      containers,
      recorder: recordCalls(client),
      samples: [],
      readUnits: 0,
      readUnitsByKind: { head: 0, changes: 0, snapshot: 0, index: 0, records: 0 },
      calls: 0,
      buckets: new Map(),
      headReads: 0,
      lastMiss: new Map(),
      inconsistent: 0,
    };
  };
  const designs = [makeDesign('ttl'), makeDesign('change-aware')];
  const writer = input.newClient();

  // The oracle: the expected answer of query q after write event k, cached.
  const oracleCache = new Map<string, string>();
  const oracleNow = new Date(start);
  const oracle = (qi: number, k: number): string => {
    const key = `${qi}:${k}`;
    let answer = oracleCache.get(key);
    if (answer !== undefined) return answer;
    const undo = new Map<string, StoredLeg | undefined>();
    for (let w = writes.length - 1; w >= k; w--) for (const [id, before] of writes[w]!.before) undo.set(id, before);
    const legs: DataLeg[] = [];
    const seen = new Set<string>();
    for (const [id, leg] of model) {
      seen.add(id);
      const l = undo.has(id) ? undo.get(id) : leg;
      if (l) legs.push(dataLeg(l));
    }
    for (const [id, l] of undo) if (!seen.has(id) && l) legs.push(dataLeg(l));
    const byId = new Map(legs.map((d) => [d.leg.id, d.leg]));
    const want = expectedListing(legs, mix[qi]!.params, oracleNow);
    answer = JSON.stringify([want.total, want.pageIds.map((id) => [id, byId.get(id)?.price ?? null])]);
    oracleCache.set(key, answer);
    return answer;
  };

  const serve = async (design: Design, ci: number, qi: number, record: boolean): Promise<void> => {
    const c = design.containers[ci]!;
    design.recorder.reset();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const page = await listEmptyLegs(parseListQuery(mix[qi]!.params), { repository: c.repository, now: new Date(simNow), memo: c.memo });
    const res = successResponse(page, 'sim');
    const t1 = performance.now();
    const cpu = process.cpuUsage(cpu0);
    const calls = design.recorder.reset().map((call) => summarizeCall(call));
    if (!record) return;
    // A miss reads buckets: Query pages of the index, or the snapshot (its parts, its delta).
    const miss = calls.some((call) => call.operation === 'Query' || call.snapshotBuckets.length > 0);
    design.samples.push({ ms: t1 - t0, cpuMs: (cpu.user + cpu.system) / 1000, miss });
    for (const call of calls) {
      design.calls += 1;
      design.readUnits += call.readUnits;
      design.readUnitsByKind[readKindOf(call)] += call.readUnits;
      if (call.operation === 'Query' && call.bucket !== undefined) design.buckets.set(call.bucket, (design.buckets.get(call.bucket) ?? 0) + 1);
      if (call.operation === 'GetItem' && call.getId === HEAD_ID) design.headReads += 1;
    }
    void res;
    const got = JSON.stringify([page.total, page.records.map((r) => [r.id, r.price])]);
    let k = writes.length;
    while (k >= 0 && oracle(qi, k) !== got) k--;
    if (k < 0) {
      // Equal to no state of the table: counted apart, not as staleness.
      design.inconsistent += 1;
      return;
    }
    for (let w = k; w < writes.length; w++) {
      let per = design.lastMiss.get(w);
      if (!per) design.lastMiss.set(w, (per = new Map<number, number>()));
      per.set(ci, simNow);
    }
  };

  // Warm-up, not measured: each container answers each query once, at a time spread over the ceiling
  // before the start (containers of different ages, as in a running fleet).
  log(`traffic: warming ${options.containers} containers of each design`);
  // A TTL container warmed that long before the start would have forgotten it all by the start
  // (each is warmed at least ceiling / containers / 2 before it, more than the TTL): warming it
  // would read every bucket for nothing, so only a TTL shorter than that is warmed.
  const earliestWarmUpMs = Math.round((0.5 / options.containers) * options.ceilingSeconds * 1000);
  const warmed = designs.filter((d) => d.name !== 'ttl' || options.ttlSeconds * 1000 > earliestWarmUpMs);
  for (let ci = 0; ci < options.containers; ci++) {
    simNow = start - Math.round(((ci + 0.5) / options.containers) * options.ceilingSeconds * 1000);
    for (const d of warmed) for (let qi = 0; qi < mix.length; qi++) await serve(d, ci, qi, false);
  }

  // The events of the span: requests at an even rate to random containers with random queries of
  // the mix; a trickle write every 1/writesPerSecond s; the batch half way.
  type Event = { at: number; kind: 'request'; ci: number; qi: number } | { at: number; kind: 'write'; legs: number } | { at: number; kind: 'consume' };
  const events: Event[] = [];
  const requests = Math.round(options.requestsPerSecond * options.seconds);
  for (let j = 0; j < requests; j++) {
    events.push({ at: start + Math.floor((j * spanMs) / requests), kind: 'request', ci: Math.floor(rnd() * options.containers), qi: Math.floor(rnd() * mix.length) });
  }
  const trickle = Math.round(options.writesPerSecond * options.seconds);
  for (let j = 0; j < trickle; j++) events.push({ at: start + Math.floor(((j + 0.5) * spanMs) / trickle), kind: 'write', legs: 1 });
  if (options.batchLegs > 0) events.push({ at: start + Math.floor(spanMs / 2) + 250, kind: 'write', legs: options.batchLegs });
  for (const w of events.filter((e) => e.kind === 'write')) events.push({ at: w.at + LOG_LAG_MS, kind: 'consume' });
  // At one instant: writes, then the consumer, then requests.
  const order = { write: 0, consume: 1, request: 2 };
  events.sort((a, b) => a.at - b.at || order[a.kind] - order[b.kind]);

  const ids = [...model.keys()];
  let created = 0;
  let legsWritten = 0;
  const changeOne = (): StoredLeg => {
    const r = rnd();
    const base = model.get(ids[Math.floor(rnd() * ids.length)]!)!;
    if (r < 0.4) return { ...base, price: Math.round((base.price ?? 5000) * (0.9 + rnd() * 0.2)) };
    if (r < 0.6) return { ...base, blocked: !base.blocked };
    if (r < 0.85) {
      const shift = 1 + Math.floor(rnd() * 40);
      const startDate = addDays(base.startDate, shift);
      if (startDate > addDays(input.today, LISTING_HORIZON_DAYS - 5)) return { ...base, price: (base.price ?? 0) + 1 };
      return { ...base, startDate, endDate: addDays(base.endDate, shift) };
    }
    const startDate = addDays(input.today, 1 + Math.floor(rnd() * 30));
    return { ...base, id: `sim-new-${created++}`, startDate, endDate: addDays(startDate, Math.floor(rnd() * 3)), blocked: false, listed: true };
  };

  log(`traffic: ${requests} requests over ${options.seconds} simulated s, ${trickle} trickle writes and a batch of ${options.batchLegs}`);
  let done = 0;
  const began = performance.now();
  for (const e of events) {
    simNow = e.at;
    if (e.kind === 'consume') await input.consume(simNow);
    else if (e.kind === 'write') {
      const legs: StoredLeg[] = [];
      if (e.legs === 1) legs.push(changeOne());
      else {
        const month = input.today.slice(0, 8);
        for (let i = 0; i < e.legs; i++) {
          const base = model.get(ids[Math.floor(rnd() * ids.length)]!)!;
          const startDate = `${month}${String(1 + Math.floor(rnd() * 27)).padStart(2, '0')}`;
          const s = startDate < input.today ? input.today : startDate;
          legs.push({ ...base, id: `sim-batch-${i}`, startDate: s, endDate: addDays(s, 1), blocked: false, listed: true });
        }
      }
      const before = new Map<string, StoredLeg | undefined>();
      for (const l of legs) before.set(l.id, model.get(l.id));
      await writeLegs(writer, input.tableName, legs);
      // The index buckets the write changed: each leg's bucket before and after.
      const touched = new Set<string>();
      for (const l of [...before.values(), ...legs]) if (l && l.listed && !l.blocked) touched.add(bucketOf(l.startDate, l.endDate));
      await input.ttlReads?.invalidate([...touched]);
      for (const l of legs) model.set(l.id, l);
      writes.push({ k: writes.length, at: simNow, before });
      legsWritten += legs.length;
    } else {
      for (const d of designs) await serve(d, e.ci, e.qi, true);
      done += 1;
      if (done % 1000 === 0) log(`  ${done}/${requests} requests (${((performance.now() - began) / 1000).toFixed(0)} s)`);
    }
  }

  // The oracle's model against the table itself.
  const table = await input.scanLegs();
  let oracleMismatches = 0;
  for (const [id, leg] of model) {
    const item = table.get(id);
    if (!item || item.price !== (leg.price ?? undefined) || item.startDate !== leg.startDate || (item.blocked === true) !== leg.blocked) oracleMismatches += 1;
  }

  const figures = designs.map((d): DesignFigures => {
    const n = d.samples.length || 1;
    const bucketRps: Record<string, number> = {};
    for (const [b, count] of d.buckets) bucketRps[b] = count / options.seconds;
    const [busiest, busiestRps] = Object.entries(bucketRps).sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    const staleness: number[] = [];
    for (let w = 0; w < writes.length; w++) {
      let worst = 0;
      for (const last of d.lastMiss.get(w)?.values() ?? []) worst = Math.max(worst, last - writes[w]!.at);
      staleness.push(worst);
    }
    const s = summarize(staleness);
    return {
      design: d.name,
      requests: d.samples.length,
      readUnitsPerRequest: d.readUnits / n,
      readUnitsByKind: Object.fromEntries(READ_KINDS.map((k) => [k, d.readUnitsByKind[k] / n])) as Record<ReadKind, number>,
      callsPerRequest: d.calls / n,
      bucketRequestsPerSecond: bucketRps,
      busiestBucket: { bucket: busiest, requestsPerSecond: busiestRps },
      headReadsPerSecond: d.headReads / options.seconds,
      latencyMs: summarize(d.samples.map((x) => x.ms)),
      missLatencyMs: summarize(d.samples.filter((x) => x.miss).map((x) => x.ms)),
      cpuMs: summarize(d.samples.map((x) => x.cpuMs)),
      staleness: { writes: writes.length, p50Ms: s.p50, p99Ms: s.p99, maxMs: s.max },
      inconsistent: d.inconsistent,
    };
  });
  // Keys: authorizer containers on the simulated clock; a key command changes a key; each container
  // is asked every 100 simulated ms until all of them answer the new way.
  const keysClient = input.newClient();
  const authorizers = Array.from({ length: options.containers }, () =>
    createKeyAuthorizer({
      stage: 'sandbox',
      now: clock,
      lookup: (hash) => getKeyByHash(keysClient, input.keysTableName, hash),
      keysVersion: () => readKeysVersion(keysClient, input.keysTableName),
    }),
  );
  const seenWithin = async (key: string, change: () => Promise<unknown>, done: (v: Record<string, unknown>) => boolean) => {
    for (const a of authorizers) await a.authorize(key);
    simNow += 5_000;
    for (const a of authorizers) await a.authorize(key);
    const changedAt = simNow;
    await change();
    for (let step = 0; step < 100; step++) {
      simNow = changedAt + step * 100;
      const verdicts = await Promise.all(authorizers.map((a) => a.authorize(key)));
      if (verdicts.every((v) => done(v as unknown as Record<string, unknown>))) return simNow - changedAt;
    }
    return Number.POSITIVE_INFINITY;
  };
  simNow = start + spanMs;
  const first = await createKey(keysClient, input.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], now: simNow });
  const revokedSeenMs = await seenWithin(
    first.key,
    () => revokeKey(keysClient, input.keysTableName, first.record.keyId, { now: simNow }),
    (v) => v.verdict === 'error' && v.errorCode === 'API_KEY_INVALID',
  );
  const second = await createKey(keysClient, input.keysTableName, { environment: 'test', scopes: ['empty_leg:read'], now: simNow });
  const rotatedSeenMs = await seenWithin(
    second.key,
    () => rotateKey(keysClient, input.keysTableName, second.record.keyId, { now: simNow }),
    (v) => v.verdict === 'ok' && v.deprecated === true,
  );
  keysClient.destroy();

  for (const d of designs) d.client.destroy();
  writer.destroy();
  return {
    options,
    startIso: new Date(start).toISOString(),
    writes: writes.length,
    legsWritten,
    designs: figures,
    oracleMismatches,
    keys: { revokedSeenMs, rotatedSeenMs },
  };
}

/** The oracle's view of a leg, made once per leg object (the model keeps them across writes). */
const dataLegs = new WeakMap<StoredLeg, DataLeg>();

function dataLeg(leg: StoredLeg): DataLeg {
  let d = dataLegs.get(leg);
  if (d === undefined) {
    d = { leg, bucket: leg.listed && !leg.blocked ? bucketOf(leg.startDate, leg.endDate) : undefined, itemBytes: 0 };
    dataLegs.set(leg, d);
  }
  return d;
}
