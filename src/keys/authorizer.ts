import { LRUCache } from 'lru-cache';
import type { Stage } from '../config.js';
import { processClock, type Clock } from '../clock.js';
import { logger } from '../logger.js';
import { ttlCache } from '../platform/ttl-cache.js';
import { createVersionFollower } from '../kernel/version-follower.js';
import {
  rejectedContext,
  verifiedContext,
  withRateLimit,
  type AuthErrorCode,
  type AuthorizerContext,
  type KeyEnvironment,
} from '../auth/verdict.js';
import { clientIdOf, environmentForStage, hashKey, hashPrefix, parseKey, stageForEnvironment } from './format.js';
import { keyState, type KeyRecord } from './record.js';
import type { RateLimiter } from './limits/limiter-ports.js';
import { DEFAULT_RATE_LIMIT, isRateLimit, POLICY_NAME, rateLimitField, rateLimitPolicyField, type RateLimit } from './limits/rate-limit.js';
import { CLIENT_POLICY_NAME } from './limits/client-limit.js';
import type { ClientCheck } from './limits/client-check.js';
import { createAddressLimiter, DEFAULT_FAILED_AUTH_LIMIT } from './limits/address-limit.js';
import { addressLimitedMessage, clientRateLimitedMessage, expiredMessage, MESSAGES, rateLimitedMessage, wrongEnvironmentMessage } from './messages.js';
import type { RequestSource } from './request-source.js';

/**
 * From an `X-API-Key` value to a verdict (never a denial), with per-container caches that a keys
 * version change empties and that serve at most REVOCATION_BOUND_MS past its last confirmation.
 * Rules and figures: docs/api-keys.md, "What the authorizer caches"; logs never carry the key.
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
  /** Failed authentications per source address (src/keys/limits/address-limit.ts). */
  failedAuthLimit?: RateLimit;
  /** The per-key rate limiter; without it no key is limited and no RateLimit fields are given. */
  limiter?: RateLimiter;
  /** The per-client limit, checked after the key's (src/keys/limits/client-check.ts); without it, none. */
  clientCheck?: ClientCheck;
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
  const follower = options.keysVersion
    ? createVersionFollower<number>({
        clock: now,
        intervalMs: versionCheckMs,
        read: options.keysVersion,
        onMove: (_version, previous) => {
          if (previous === undefined) return;
          known.clear();
          unknown.clear();
          options.clientCheck?.clear();
        },
      })
    : undefined;

  /** Starts a keys-version read when due; the request that starts it waits for it at most versionWaitMs. */
  async function followVersion(): Promise<void> {
    const read = follower?.poll();
    if (!read) return;
    // Cached entries stay usable up to the revocation bound; the next request tries again.
    const settled = read.catch((err: unknown) => logger.warn('keys version read failed', { error: err as Error }));
    await waitAtMost(settled, versionWaitMs);
  }

  /** The keys version a read starting now is made under (what its cache entry is tagged with). */
  const versionNow = (): number | undefined => follower?.confirmed()?.value;

  /**
   * A cached entry may be used at `at`: without the keys version, within its lifetime; with it, only
   * under the version it was read under, and within the revocation bound of the later of its read
   * and the last read of that version.
   */
  function usable(entry: Tagged, at: number): boolean {
    if (!follower) return true;
    if (entry.version !== versionNow()) return false;
    const since = Math.max(entry.readAt, follower.confirmed()?.at ?? -Infinity);
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

  /**
   * A verified key's verdict after its rate limit, then its client's: RATE_LIMITED over either, with
   * that policy's RateLimit fields; served, with the key's.
   */
  async function limit(record: KeyRecord, context: AuthorizerContext): Promise<AuthorizerContext> {
    if (context.verdict !== 'ok' || !options.limiter) return context;
    const decision = await options.limiter.check(record.keyId, isRateLimit(record.rateLimit) ? record.rateLimit : DEFAULT_RATE_LIMIT);
    const fields = { rateLimitPolicy: rateLimitPolicyField(decision.limit), rateLimit: rateLimitField(decision.remaining, decision.resetSeconds) };
    const byClient = decision.allowed && options.clientCheck ? await options.clientCheck.check(clientIdOf(record)) : undefined;
    if (decision.allowed && byClient?.allowed !== false) return withRateLimit(context, fields);
    const refusal = byClient ?? decision;
    const policy = byClient ? CLIENT_POLICY_NAME : POLICY_NAME;
    logger.info('api key refused', { code: 'RATE_LIMITED', keyId: record.keyId, policy, retryAfterSeconds: refusal.retryAfterSeconds });
    return withRateLimit(rejectedContext('RATE_LIMITED', byClient ? clientRateLimitedMessage(byClient) : rateLimitedMessage(decision)), {
      rateLimitPolicy: rateLimitPolicyField(refusal.limit, policy),
      rateLimit: rateLimitField(refusal.remaining, refusal.resetSeconds, policy),
      retryAfter: String(refusal.retryAfterSeconds),
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

