import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult, Context } from 'aws-lambda';
import type { Stage } from '../config.js';
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
import { DEFAULT_RATE_LIMIT, isRateLimit, rateLimitField, rateLimitPolicyField } from './rate-limit.js';
import { addUsage } from './usage.js';
import { emfLine, RATE_LIMIT_METRICS } from '../metrics.js';

/**
 * The authorizer's logic (docs/api.md, "API keys" and "How keys are checked"): from an `X-API-Key` value to a verdict
 * for the function. It never denies; every outcome is a context (src/auth/verdict.ts).
 *
 * Cost and caching, per container:
 * - a missing, malformed or mistyped (bad checksum) key, and a key of the wrong environment, are
 *   decided without any read;
 * - a key read from the table is remembered for at most `cacheTtlMs` (60 s, the upper bound) and
 *   never past its grace deadline, and its state is recomputed at each request from the clock, so a
 *   key in grace turns expired at its deadline exactly;
 * - with `keysVersion` (the handler always gives it), the keys version (src/keys/version.ts) is read
 *   at most once per `versionCheckMs` (1 s) before a cached verdict is used; when it moved, both
 *   caches are emptied, so a revocation or rotation is seen within about a second (the 60 s lifetime
 *   remains the ceiling, e.g. while the version cannot be read);
 * - an unknown hash is remembered for `negativeTtlMs` (5 s) so the same made-up key repeated does
 *   not become a read per request;
 * - both caches are LRUs bounded to `maxEntries` (10,000) each;
 * - a failed read is SERVICE_UNAVAILABLE and is not cached.
 * A verified key then passes its rate limit (`limiter`, src/keys/limiter.ts): over it, the verdict is
 * RATE_LIMITED; either way the verdict carries the RateLimit-Policy and RateLimit fields.
 * Logs carry the key id or the first 12 hex digits of the key's hash, never the key.
 */
export const MAX_CACHE_TTL_MS = 60_000;
export const DEFAULT_NEGATIVE_TTL_MS = 5_000;
export const DEFAULT_MAX_ENTRIES = 10_000;
export const DEFAULT_VERSION_CHECK_MS = 1_000;

export const MESSAGES = {
  missing: 'An API key is required in the X-API-Key header',
  malformed: `The API key is malformed: expected ${KEY_PREFIXES.live} or ${KEY_PREFIXES.test} followed by 38 letters and digits`,
  badChecksum: 'The API key is not valid: its checksum does not match (check it for a typo)',
  invalid: 'The API key is not valid',
  unavailable: 'The service is temporarily unavailable; retry later',
} as const;

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
  now?: () => number;
  /** Positive cache lifetime, capped at 60 s; 0 turns the cache off. */
  cacheTtlMs?: number;
  negativeTtlMs?: number;
  maxEntries?: number;
  /** Reads the keys version; when given, a change of it empties the caches. */
  keysVersion?: () => Promise<number>;
  /** Least time between two reads of the keys version. Default 1,000 ms. */
  versionCheckMs?: number;
  /** The per-key rate limiter; without it no key is limited and no RateLimit fields are given. */
  limiter?: RateLimiter;
}

export interface KeyAuthorizer {
  authorize(rawKey: string | undefined): Promise<AuthorizerContext>;
  /** Entries in the positive and negative caches (for tests and diagnostics). */
  cacheSizes(): { keys: number; unknown: number };
  clearCache(): void;
}

type Source = 'format' | 'cache' | 'unknown-cache' | 'table';

export function createKeyAuthorizer(options: KeyAuthorizerOptions): KeyAuthorizer {
  const now = options.now ?? Date.now;
  const cacheTtlMs = Math.min(Math.max(options.cacheTtlMs ?? MAX_CACHE_TTL_MS, 0), MAX_CACHE_TTL_MS);
  const negativeTtlMs = Math.min(Math.max(options.negativeTtlMs ?? DEFAULT_NEGATIVE_TTL_MS, 0), MAX_CACHE_TTL_MS);
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const expected = environmentForStage(options.stage);
  const known = ttlCache<KeyRecord>(maxEntries, now);
  const unknown = ttlCache<true>(maxEntries, now);
  const versionCheckMs = options.versionCheckMs ?? DEFAULT_VERSION_CHECK_MS;
  let version: number | undefined;
  let lastVersionCheck = -Infinity;
  let versionRead: Promise<void> | undefined;

  /** Empties the caches when the keys version moved; at most one read per versionCheckMs. */
  async function followVersion(): Promise<void> {
    const readVersion = options.keysVersion;
    if (!readVersion) return;
    if (versionRead) return versionRead;
    const at = now();
    if (at - lastVersionCheck < versionCheckMs) return;
    lastVersionCheck = at;
    versionRead = readVersion()
      .then((v) => {
        if (version !== undefined && v !== version) {
          known.clear();
          unknown.clear();
        }
        version = v;
      })
      .catch((err: unknown) => {
        // Cached verdicts stay bounded by their lifetime; the next request tries again.
        lastVersionCheck = -Infinity;
        logger.warn('keys version read failed', { error: err as Error });
      })
      .finally(() => {
        versionRead = undefined;
      });
    return versionRead;
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
        return reject('API_KEY_INVALID', MESSAGES.invalid, source, { ...fields, state });
      case 'expired':
        return reject('API_KEY_EXPIRED', expiredMessage(record.graceUntil), source, fields);
      case 'active':
      case 'rotated': {
        const deprecated = state === 'rotated';
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

  return {
    async authorize(rawKey) {
      const parsed = parseKey(rawKey);
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
      if (parsed.environment !== expected) {
        return reject('API_KEY_WRONG_ENVIRONMENT', wrongEnvironmentMessage(parsed.environment, options.stage), 'format', {
          keyEnvironment: parsed.environment,
          keyStage: stageForEnvironment(parsed.environment),
        });
      }
      const keyHash = hashKey(parsed.key);
      await followVersion();
      const at = now();
      const cached = known.get(keyHash);
      if (cached) return limit(cached, decide(cached, parsed.environment, at, 'cache'));
      if (unknown.get(keyHash)) {
        return reject('API_KEY_INVALID', MESSAGES.invalid, 'unknown-cache', { keyHashPrefix: hashPrefix(keyHash) });
      }
      let record: KeyRecord | undefined;
      try {
        record = await options.lookup(keyHash);
      } catch (err) {
        logger.error('api key lookup failed', { keyHashPrefix: hashPrefix(keyHash), error: err as Error });
        return rejectedContext('SERVICE_UNAVAILABLE', MESSAGES.unavailable);
      }
      const readAt = now();
      if (!record) {
        if (negativeTtlMs > 0) unknown.set(keyHash, true, readAt + negativeTtlMs);
        return reject('API_KEY_INVALID', MESSAGES.invalid, 'table', { keyHashPrefix: hashPrefix(keyHash) });
      }
      if (cacheTtlMs > 0) known.set(keyHash, record, cacheUntil(record, at));
      return limit(record, decide(record, parsed.environment, readAt, 'table'));
    },
    cacheSizes: () => ({ keys: known.size, unknown: unknown.size }),
    clearCache() {
      known.clear();
      unknown.clear();
    },
  };
}

export type AuthorizerResult = APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>;
type HandlerContext = Pick<Context, 'awsRequestId'> & Partial<Pick<Context, 'getRemainingTimeInMillis'>>;
export type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEventV2, context?: HandlerContext) => Promise<AuthorizerResult>;

/** The `X-API-Key` header of a v2 authorizer event (lower-case in v2; matched case-insensitively). */
export function apiKeyHeader(event: Pick<APIGatewayRequestAuthorizerEventV2, 'headers'>): string | undefined {
  const headers = event.headers ?? {};
  const direct = headers['x-api-key'];
  if (direct !== undefined) return direct;
  const name = Object.keys(headers).find((h) => h.toLowerCase() === 'x-api-key');
  return name === undefined ? undefined : headers[name];
}

export interface AuthorizerHandlerOptions extends Omit<KeyAuthorizerOptions, 'lookup'> {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Least time between two writes of a key's usage counters by this container (src/keys/limiter.ts). */
  usageSyncIntervalMs?: number;
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
  const { client, tableName, usageSyncIntervalMs, ...rest } = options;
  const limiter =
    options.limiter ??
    createRateLimiter({
      ...(options.now ? { now: options.now } : {}),
      ...(usageSyncIntervalMs !== undefined ? { syncIntervalMs: usageSyncIntervalMs } : {}),
      // Its own short deadline: a slow or failed write never fails the request (fail open).
      counter: (keyId, day, add) => withDeadline(USAGE_WRITE_BUDGET_MS, () => addUsage(client, tableName, keyId, day, add)),
      onSyncError: (keyId, error) => {
        logger.error('usage counter write failed; enforcing this container\'s share of the limit', { keyId, error: error as Error });
        process.stdout.write(`${emfLine(RATE_LIMIT_METRICS.namespace, { [RATE_LIMIT_METRICS.dimension]: options.stage }, { [RATE_LIMIT_METRICS.writeFailures]: 1 }, new Date())}\n`);
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
  const authorizeWithin = async (deadlineMs: number, event: APIGatewayRequestAuthorizerEventV2): Promise<AuthorizerContext> => {
    try {
      return await withDeadline(deadlineMs, () => authorizer.authorize(apiKeyHeader(event)));
    } catch (err) {
      if (!(err instanceof DeadlineError)) throw err;
      logger.error('api key lookup failed', { error: err });
      return rejectedContext('SERVICE_UNAVAILABLE', MESSAGES.unavailable);
    }
  };
  const handler = async (event: APIGatewayRequestAuthorizerEventV2, context?: HandlerContext): Promise<AuthorizerResult> => {
    // Its own trace id, plus API Gateway's request id, which the list function's logs carry too.
    logger.resetKeys();
    // The Lambda context in every log line (function name, version, ARN, memory, request id, cold
    // start), as injectLambdaContext gives the HTTP functions (src/http/middleware.ts).
    if (isLambdaContext(context)) logger.addContext(context);
    logger.appendKeys({ traceId: context?.awsRequestId, apiRequestId: event.requestContext?.requestId });
    try {
      return { isAuthorized: true, context: await authorizeWithin(invocationDeadlineMs('authorizer', remainingTime(context)), event) };
    } finally {
      logger.resetKeys();
    }
  };
  return Object.assign(handler, { authorizer });
}
