import { timingSafeEqual } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LRUCache } from 'lru-cache';
import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult, Context } from 'aws-lambda';
import type { Stage } from '../config.js';
import { processClock, type Clock } from '../clock.js';
import { DeadlineError, withDeadline } from '../aws/deadline.js';
import { logger } from '../logger.js';
import { ttlCache } from '../ttl-cache.js';
import { invocationDeadlineMs } from '../time-budget.js';
import {
  rejectedContext,
  verifiedContext,
  withRateLimit,
  type AuthErrorCode,
  type AuthorizerContext,
  type KeyEnvironment,
} from '../auth/verdict.js';
import { clientIdOf, environmentForStage, hashKey, hashPrefix, KEY_PREFIXES, parseKey, stageForEnvironment } from './format.js';
import { getKeyByHash, keyState, type KeyRecord } from './store.js';
import { readKeysVersion } from './version.js';
import { createRateLimiter, type LimitDecision, type RateLimiter } from './limiter.js';
import { DEFAULT_RATE_LIMIT, isRateLimit, rateLimitField, rateLimitPolicyField, type RateLimit } from './rate-limit.js';
import { createAddressLimiter, DEFAULT_FAILED_AUTH_LIMIT } from './address-limit.js';
import { addUsage, reserveUsage } from './usage.js';
import { emfLine, RATE_LIMIT_METRICS } from '../metrics.js';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../auth/edge.js';

/**
 * The authorizer's logic (docs/api.md, "API keys" and "How keys are checked"): from an `X-API-Key` value to a verdict
 * for the function. It never denies; every outcome is a context (src/auth/verdict.ts).
 *
 * Cost and caching, per container (docs/api-keys.md, "What the authorizer caches"):
 * - a missing, malformed or mistyped (bad checksum) key, and a key of the wrong environment, are
 *   decided without any read;
 * - a source address with too many failed authentications (src/keys/address-limit.ts) is answered
 *   RATE_LIMITED before any read, unless its key is one this container has verified;
 * - a key read from the table is remembered for at most `cacheTtlMs` (60 s) and never past its grace
 *   deadline; its state is recomputed at each request from the clock;
 * - with `keysVersion`, a cached entry is used only while the keys version is the one it was read
 *   under, and at most `revocationBoundMs` (REVOCATION_BOUND_MS) after the later of its read and
 *   the last read of the version that found it unchanged; the version is read at most once per
 *   `versionCheckMs`, and a request waits for that read at most `versionWaitMs`: a cached key is
 *   served while the database stalls, up to the bound;
 * - an unknown hash is remembered for `negativeTtlMs` (5 s), under the same version rule;
 * - the caches are LRUs bounded to `maxEntries` (10,000) each;
 * - a failed read is SERVICE_UNAVAILABLE and is not cached.
 * A verified key then passes its rate limit (`limiter`, src/keys/limiter.ts): over it, the verdict is
 * RATE_LIMITED; either way the verdict carries the RateLimit-Policy and RateLimit fields.
 * Logs carry the key id or the first 12 hex digits of the key's hash, never the key.
 */
export const MAX_CACHE_TTL_MS = 60_000;
export const DEFAULT_NEGATIVE_TTL_MS = 5_000;
export const DEFAULT_MAX_ENTRIES = 10_000;
export const DEFAULT_VERSION_CHECK_MS = 1_000;
/**
 * The revocation bound: a key revoked or rotated with the commands is refused by every container
 * at the latest this long after the change, whatever the database does meanwhile.
 */
export const REVOCATION_BOUND_MS = 10_000;
/** The longest a request waits for a keys-version read before it uses a cached entry within the bound. */
export const DEFAULT_VERSION_WAIT_MS = 250;

export const MESSAGES = {
  missing: 'An API key is required in the X-API-Key header',
  malformed: `The API key is malformed: expected ${KEY_PREFIXES.live} or ${KEY_PREFIXES.test} followed by 38 letters and digits`,
  badChecksum: 'The API key is not valid: its checksum does not match (check it for a typo)',
  invalid: 'The API key is not valid',
  unavailable: 'The service is temporarily unavailable; retry later',
  wrongOrigin: "This endpoint does not serve the API: call the API's published address",
} as const;

export function addressLimitedMessage(retryAfterSeconds: number): string {
  return `Too many failed authentications from this address; retry after ${retryAfterSeconds} s`;
}

export function rateLimitedMessage(decision: Pick<LimitDecision, 'limit' | 'retryAfterSeconds'>): string {
  return `Too many requests for this API key (limit ${decision.limit.rate} per second, burst ${decision.limit.burst}); retry after ${decision.retryAfterSeconds} s`;
}

/** Time a write of the usage counters may take before the limiter goes on without it (fail open). */
export const USAGE_WRITE_BUDGET_MS = 300;


const ENVIRONMENT_NAMES: Readonly<Record<KeyEnvironment, string>> = {
  live: 'the production environment (prod)',
  test: 'the sandbox environment (sandbox)',
};

export function wrongEnvironmentMessage(keyEnvironment: KeyEnvironment, stage: Stage): string {
  return `This is a ${keyEnvironment} key (${KEY_PREFIXES[keyEnvironment]}): it belongs to ${ENVIRONMENT_NAMES[keyEnvironment]} and is not accepted by ${stage}`;
}

export function expiredMessage(graceUntil: string | undefined): string {
  return `The API key has expired: it was rotated and its grace period ended${graceUntil ? ` at ${graceUntil}` : ''}; use the new key`;
}

export interface KeyAuthorizerOptions {
  stage: Stage;
  /** Reads a key by hash; undefined when there is none. Throws when the table cannot be read. */
  lookup: (keyHash: string) => Promise<KeyRecord | undefined>;
  /** Clock, epoch ms. */
  now?: Clock;
  /** Positive cache lifetime, capped at 60 s; 0 turns the cache off. */
  cacheTtlMs?: number;
  negativeTtlMs?: number;
  maxEntries?: number;
  /** Reads the keys version; when given, a change of it empties the caches. */
  keysVersion?: () => Promise<number>;
  /** Least time between two reads of the keys version. Default 1,000 ms. */
  versionCheckMs?: number;
  /** Longest use of a cached entry since the keys version was last found unchanged. Default REVOCATION_BOUND_MS. */
  revocationBoundMs?: number;
  /** Longest wait of a request for the keys-version read it started. Default 250 ms. */
  versionWaitMs?: number;
  /** Failed authentications per source address (src/keys/address-limit.ts). */
  failedAuthLimit?: RateLimit;
  /** The per-key rate limiter; without it no key is limited and no RateLimit fields are given. */
  limiter?: RateLimiter;
}

/** What the authorizer knows of a request besides its key. */
export interface RequestSource {
  /** The client's address (API Gateway's `requestContext.http.sourceIp`, or the viewer's behind CloudFront). */
  sourceAddress?: string | undefined;
}

export interface KeyAuthorizer {
  authorize(rawKey: string | undefined, source?: RequestSource): Promise<AuthorizerContext>;
  /** Entries in the positive and negative caches (for tests and diagnostics). */
  cacheSizes(): { keys: number; unknown: number };
  clearCache(): void;
}

type Source = 'format' | 'cache' | 'unknown-cache' | 'table' | 'address-limit';

/** A cache entry: read at `readAt` (the read's start) while the keys version was `version`. */
interface Tagged {
  readAt: number;
  version: number | undefined;
}
interface KnownEntry extends Tagged {
  record: KeyRecord;
}

const KEY_FAILURES: ReadonlySet<AuthErrorCode> = new Set(['API_KEY_MISSING', 'API_KEY_INVALID', 'API_KEY_EXPIRED', 'API_KEY_WRONG_ENVIRONMENT']);

/** Waits for `work` at most `ms` (it goes on in the background). */
async function waitAtMost(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export function createKeyAuthorizer(options: KeyAuthorizerOptions): KeyAuthorizer {
  const now = options.now ?? processClock;
  const cacheTtlMs = Math.min(Math.max(options.cacheTtlMs ?? MAX_CACHE_TTL_MS, 0), MAX_CACHE_TTL_MS);
  const negativeTtlMs = Math.min(Math.max(options.negativeTtlMs ?? DEFAULT_NEGATIVE_TTL_MS, 0), MAX_CACHE_TTL_MS);
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const expected = environmentForStage(options.stage);
  const known = ttlCache<KnownEntry>(maxEntries, now);
  const unknown = ttlCache<Tagged>(maxEntries, now);
  // Hashes of keys this container verified: they pass the address limit (never a made-up key).
  const vouched = new LRUCache<string, true>({ max: maxEntries });
  const addresses = createAddressLimiter({ limit: options.failedAuthLimit ?? DEFAULT_FAILED_AUTH_LIMIT, now, maxAddresses: maxEntries });
  const versionCheckMs = options.versionCheckMs ?? DEFAULT_VERSION_CHECK_MS;
  const revocationBoundMs = options.revocationBoundMs ?? REVOCATION_BOUND_MS;
  const versionWaitMs = options.versionWaitMs ?? DEFAULT_VERSION_WAIT_MS;
  /** The last successful read of the keys version: its value, and when that read started. */
  let confirmed: { version: number; at: number } | undefined;
  let lastVersionCheck = -Infinity;
  let versionRead: Promise<void> | undefined;

  /**
   * Reads the keys version at most once per versionCheckMs; when it moved, empties the caches. The
   * request that starts the read waits for it at most versionWaitMs; others do not wait.
   */
  async function followVersion(): Promise<void> {
    const readVersion = options.keysVersion;
    if (!readVersion || versionRead) return;
    const at = now();
    if (at - lastVersionCheck < versionCheckMs) return;
    lastVersionCheck = at;
    const read = readVersion()
      .then((v) => {
        if (confirmed !== undefined && v !== confirmed.version) {
          known.clear();
          unknown.clear();
        }
        if (confirmed === undefined || at >= confirmed.at) confirmed = { version: v, at };
      })
      .catch((err: unknown) => {
        // Cached entries stay usable up to the revocation bound; the next request tries again.
        lastVersionCheck = -Infinity;
        logger.warn('keys version read failed', { error: err as Error });
      })
      .finally(() => {
        versionRead = undefined;
      });
    versionRead = read;
    await waitAtMost(read, versionWaitMs);
  }

  /** The keys version a read starting now is made under (what its cache entry is tagged with). */
  const versionNow = (): number | undefined => confirmed?.version;

  /**
   * A cached entry may be used at `at`: without the keys version, within its lifetime; with it, only
   * under the version it was read under, and within the revocation bound of the later of its read
   * and the last read of that version.
   */
  function usable(entry: Tagged, at: number): boolean {
    if (!options.keysVersion) return true;
    if (entry.version !== versionNow()) return false;
    const since = Math.max(entry.readAt, confirmed?.at ?? -Infinity);
    return at - since <= revocationBoundMs;
  }

  const reject = (code: AuthErrorCode, message: string, source: Source, fields: Record<string, unknown> = {}) => {
    logger.info('api key refused', { code, source, ...fields });
    return rejectedContext(code, message);
  };

  function decide(record: KeyRecord, environment: KeyEnvironment, at: number, source: Source): AuthorizerContext {
    const fields = { keyId: record.keyId, source };
    if (record.environment !== environment) return reject('API_KEY_INVALID', MESSAGES.invalid, source, fields);
    const state = keyState(record, at);
    switch (state) {
      case 'revoked':
        vouched.delete(record.keyHash);
        return reject('API_KEY_INVALID', MESSAGES.invalid, source, { ...fields, state });
      case 'expired':
        vouched.delete(record.keyHash);
        return reject('API_KEY_EXPIRED', expiredMessage(record.graceUntil), source, fields);
      case 'active':
      case 'rotated': {
        const deprecated = state === 'rotated';
        vouched.set(record.keyHash, true);
        logger.info('api key verified', { ...fields, deprecated });
        return verifiedContext({
          keyId: record.keyId,
          clientId: clientIdOf(record),
          scopes: record.scopes,
          environment: record.environment,
          deprecated,
          // The Deprecation and Sunset headers of the key's responses (src/http/middleware.ts).
          deprecatedAt: deprecated ? record.rotatedAt : undefined,
          sunsetAt: deprecated ? record.graceUntil : undefined,
        });
      }
    }
  }

  /** A verified key's verdict after its rate limit: RATE_LIMITED over it; with the RateLimit fields. */
  async function limit(record: KeyRecord, context: AuthorizerContext): Promise<AuthorizerContext> {
    if (context.verdict !== 'ok' || !options.limiter) return context;
    const decision = await options.limiter.check(record.keyId, isRateLimit(record.rateLimit) ? record.rateLimit : DEFAULT_RATE_LIMIT);
    const fields = { rateLimitPolicy: rateLimitPolicyField(decision.limit), rateLimit: rateLimitField(decision.remaining, decision.resetSeconds) };
    if (decision.allowed) return withRateLimit(context, fields);
    logger.info('api key refused', { code: 'RATE_LIMITED', keyId: record.keyId, retryAfterSeconds: decision.retryAfterSeconds });
    return withRateLimit(rejectedContext('RATE_LIMITED', rateLimitedMessage(decision)), {
      ...fields,
      retryAfter: String(decision.retryAfterSeconds),
    });
  }

  /** Until when a record read at `at` may be served from the cache. */
  function cacheUntil(record: KeyRecord, at: number): number {
    const limit = at + cacheTtlMs;
    if (record.status !== 'rotated' || record.graceUntil === undefined) return limit;
    const deadline = Date.parse(record.graceUntil);
    return deadline > at ? Math.min(limit, deadline) : limit;
  }

  async function check(parsed: ReturnType<typeof parseKey>, keyHash: string | undefined): Promise<AuthorizerContext> {
    switch (parsed.kind) {
      case 'missing':
        return reject('API_KEY_MISSING', MESSAGES.missing, 'format');
      case 'malformed':
        return reject('API_KEY_INVALID', MESSAGES.malformed, 'format', { reason: parsed.reason });
      case 'bad_checksum':
        return reject('API_KEY_INVALID', MESSAGES.badChecksum, 'format', { reason: 'checksum' });
      case 'valid':
        break;
    }
    if (keyHash === undefined) {
      return reject('API_KEY_WRONG_ENVIRONMENT', wrongEnvironmentMessage(parsed.environment, options.stage), 'format', {
        keyEnvironment: parsed.environment,
        keyStage: stageForEnvironment(parsed.environment),
      });
    }
    await followVersion();
    const at = now();
    const cached = known.get(keyHash);
    if (cached && usable(cached, at)) return limit(cached.record, decide(cached.record, parsed.environment, at, 'cache'));
    const unknownEntry = unknown.get(keyHash);
    if (unknownEntry && usable(unknownEntry, at)) {
      return reject('API_KEY_INVALID', MESSAGES.invalid, 'unknown-cache', { keyHashPrefix: hashPrefix(keyHash) });
    }
    const tag: Tagged = { readAt: now(), version: versionNow() };
    let record: KeyRecord | undefined;
    try {
      record = await options.lookup(keyHash);
    } catch (err) {
      logger.error('api key lookup failed', { keyHashPrefix: hashPrefix(keyHash), error: err as Error });
      return rejectedContext('SERVICE_UNAVAILABLE', MESSAGES.unavailable);
    }
    const readAt = now();
    // A read made while the keys version moved is answered but never cached.
    const cacheable = tag.version === versionNow();
    if (!record) {
      if (negativeTtlMs > 0 && cacheable) unknown.set(keyHash, tag, tag.readAt + negativeTtlMs);
      vouched.delete(keyHash);
      return reject('API_KEY_INVALID', MESSAGES.invalid, 'table', { keyHashPrefix: hashPrefix(keyHash) });
    }
    if (cacheTtlMs > 0 && cacheable) known.set(keyHash, { ...tag, record }, cacheUntil(record, tag.readAt));
    return limit(record, decide(record, parsed.environment, readAt, 'table'));
  }

  return {
    async authorize(rawKey, source = {}) {
      const parsed = parseKey(rawKey);
      const keyHash = parsed.kind === 'valid' && parsed.environment === expected ? hashKey(parsed.key) : undefined;
      const address = source.sourceAddress;
      if (address !== undefined && !(keyHash !== undefined && vouched.has(keyHash))) {
        const retryAfterSeconds = addresses.blockedFor(address);
        if (retryAfterSeconds !== undefined) {
          addresses.fail(address);
          logger.info('api key refused', { code: 'RATE_LIMITED', source: 'address-limit' satisfies Source, retryAfterSeconds });
          return { ...rejectedContext('RATE_LIMITED', addressLimitedMessage(retryAfterSeconds)), retryAfter: String(retryAfterSeconds) };
        }
      }
      const verdict = await check(parsed, keyHash);
      if (address !== undefined && verdict.verdict === 'error' && KEY_FAILURES.has(verdict.errorCode)) addresses.fail(address);
      return verdict;
    },
    cacheSizes: () => ({ keys: known.size, unknown: unknown.size }),
    clearCache() {
      known.clear();
      unknown.clear();
    },
  };
}

/** The verdict as handed to API Gateway: with the client's address for the access log. */
export type HandedContext = AuthorizerContext & { clientIp?: string };
export type AuthorizerResult = APIGatewaySimpleAuthorizerWithContextResult<HandedContext>;
type HandlerContext = Pick<Context, 'awsRequestId'> & Partial<Pick<Context, 'getRemainingTimeInMillis'>>;
export type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEventV2, context?: HandlerContext) => Promise<AuthorizerResult>;

/** A header of a v2 event by its lower-case name (lower-case in v2; matched case-insensitively). */
function headerOf(event: Pick<APIGatewayRequestAuthorizerEventV2, 'headers'>, lowerName: string): string | undefined {
  const headers = event.headers ?? {};
  const direct = headers[lowerName];
  if (direct !== undefined) return direct;
  const name = Object.keys(headers).find((h) => h.toLowerCase() === lowerName);
  return name === undefined ? undefined : headers[name];
}

/** The `X-API-Key` header of a v2 authorizer event. */
export function apiKeyHeader(event: Pick<APIGatewayRequestAuthorizerEventV2, 'headers'>): string | undefined {
  return headerOf(event, 'x-api-key');
}

export { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER };

function sameSecret(presented: string | undefined, secret: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The viewer's address of a `CloudFront-Viewer-Address` value (its port cut off), or undefined. */
export function viewerAddress(value: string | undefined): string | undefined {
  const match = value === undefined ? null : /^\[?([0-9A-Fa-f:.]+?)\]?:\d{1,5}$/.exec(value.trim());
  return match?.[1];
}

/**
 * Where a request comes from, or `wrongOrigin` when the API is behind CloudFront (`originSecret`
 * given) and the request did not come through it: the address is then CloudFront's viewer
 * address, else API Gateway's `sourceIp`.
 */
export function requestSource(event: APIGatewayRequestAuthorizerEventV2, originSecret: string | undefined): RequestSource | 'wrongOrigin' {
  const sourceIp = event.requestContext?.http?.sourceIp;
  if (originSecret === undefined) return { sourceAddress: sourceIp };
  if (!sameSecret(headerOf(event, ORIGIN_SECRET_HEADER), originSecret)) return 'wrongOrigin';
  return { sourceAddress: viewerAddress(headerOf(event, VIEWER_ADDRESS_HEADER)) ?? sourceIp };
}

export interface AuthorizerHandlerOptions extends Omit<KeyAuthorizerOptions, 'lookup'> {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Least time between two writes of a key's usage counters by this container (src/keys/limiter.ts). */
  usageSyncIntervalMs?: number;
  /**
   * The secret CloudFront sends in `X-Origin-Verify` (docs/deploy.md, "The edge"): when given, a
   * request without it is refused (PERMISSION_DENIED, no read) and the client's address is
   * CloudFront's `CloudFront-Viewer-Address`.
   */
  originSecret?: string | undefined;
}

/** A whole Lambda context (tests may call the handler with less, or none). */
function isLambdaContext(context: HandlerContext | undefined): context is Context {
  return context !== undefined && typeof (context as Partial<Context>).invokedFunctionArn === 'string';
}

function remainingTime(context: HandlerContext | undefined): { getRemainingTimeInMillis(): number } | undefined {
  const remaining = context?.getRemainingTimeInMillis;
  return remaining ? { getRemainingTimeInMillis: () => remaining.call(context) } : undefined;
}

/** The Lambda handler: simple response, always authorized, the verdict in the context. */
export function createAuthorizerHandler(options: AuthorizerHandlerOptions): AuthorizerHandler & { authorizer: KeyAuthorizer } {
  const { client, tableName, usageSyncIntervalMs, originSecret, ...rest } = options;
  const limiter =
    options.limiter ??
    createRateLimiter({
      ...(options.now ? { now: options.now } : {}),
      ...(usageSyncIntervalMs !== undefined ? { syncIntervalMs: usageSyncIntervalMs } : {}),
      // Its own short deadline: a slow or failed write never fails the request (fail open).
      counter: (keyId, day, add) => withDeadline(USAGE_WRITE_BUDGET_MS, () => addUsage(client, tableName, keyId, day, add)),
      reserve: (keyId, day, add, pool) => withDeadline(USAGE_WRITE_BUDGET_MS, () => reserveUsage(client, tableName, keyId, day, add, pool)),
      onSyncError: (keyId, error) => {
        logger.error('usage counter write failed; enforcing this container\'s share of the limit', { keyId, error: error as Error });
        process.stdout.write(`${emfLine(RATE_LIMIT_METRICS.namespace, { [RATE_LIMIT_METRICS.dimension]: options.stage }, { [RATE_LIMIT_METRICS.writeFailures]: 1 }, new Date((options.now ?? processClock)()))}\n`);
      },
    });
  const authorizer = createKeyAuthorizer({
    keysVersion: () => readKeysVersion(client, tableName),
    ...rest,
    limiter,
    lookup: (keyHash) => getKeyByHash(client, tableName, keyHash),
  });
  /**
   * The key's read gets the authorizer's database deadline (src/time-budget.ts); only the read can
   * be slow, so a missed deadline is SERVICE_UNAVAILABLE, uncached, like any failed read.
   */
  const authorizeWithin = async (deadlineMs: number, event: APIGatewayRequestAuthorizerEventV2, source: RequestSource): Promise<AuthorizerContext> => {
    try {
      return await withDeadline(deadlineMs, () => authorizer.authorize(apiKeyHeader(event), source));
    } catch (err) {
      if (!(err instanceof DeadlineError)) throw err;
      logger.error('api key lookup failed', { error: err });
      return rejectedContext('SERVICE_UNAVAILABLE', MESSAGES.unavailable);
    }
  };
  const verdictOf = async (event: APIGatewayRequestAuthorizerEventV2, context: HandlerContext | undefined): Promise<HandedContext> => {
    const source = requestSource(event, originSecret);
    if (source === 'wrongOrigin') {
      logger.info('api key refused', { code: 'PERMISSION_DENIED', source: 'origin' });
      return rejectedContext('PERMISSION_DENIED', MESSAGES.wrongOrigin);
    }
    const verdict = await authorizeWithin(invocationDeadlineMs('authorizer', remainingTime(context)), event, source);
    // The client's address for the access log ($context.authorizer.clientIp): behind CloudFront,
    // API Gateway's own source address is CloudFront's.
    return source.sourceAddress === undefined ? verdict : { ...verdict, clientIp: source.sourceAddress };
  };
  const handler = async (event: APIGatewayRequestAuthorizerEventV2, context?: HandlerContext): Promise<AuthorizerResult> => {
    // Its own trace id, plus API Gateway's request id, which the list function's logs carry too.
    logger.resetKeys();
    // The Lambda context in every log line (function name, version, ARN, memory, request id, cold
    // start), as injectLambdaContext gives the HTTP functions (src/http/middleware.ts).
    if (isLambdaContext(context)) logger.addContext(context);
    logger.appendKeys({ traceId: context?.awsRequestId, apiRequestId: event.requestContext?.requestId });
    try {
      return { isAuthorized: true, context: await verdictOf(event, context) };
    } finally {
      logger.resetKeys();
    }
  };
  return Object.assign(handler, { authorizer });
}
