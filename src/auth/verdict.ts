import * as v from 'valibot';
import type { ErrorCode } from '../errors.js';

/**
 * The authorizer's verdict, in `event.requestContext.authorizer.lambda`: it never denies, but answers
 * `isAuthorized: true` with a verified key or the error code to return (docs/api.md, "How keys are
 * checked"). Values are strings and booleans only, which every API Gateway context accepts.
 */
export type KeyEnvironment = 'live' | 'test';

export type AuthErrorCode = Extract<
  ErrorCode,
  | 'API_KEY_MISSING'
  | 'API_KEY_INVALID'
  | 'API_KEY_EXPIRED'
  | 'API_KEY_WRONG_ENVIRONMENT'
  | 'SERVICE_UNAVAILABLE'
  | 'RATE_LIMITED'
  | 'PERMISSION_DENIED'
>;

/**
 * The key's rate-limit fields, ready for the response (docs/api.md, "Rate limits"): the values of
 * `RateLimit-Policy` and `RateLimit`, and for a RATE_LIMITED verdict `Retry-After` (seconds).
 */
export interface RateLimitFields {
  rateLimitPolicy: string;
  rateLimit: string;
  retryAfter?: string;
}

export interface VerifiedKey {
  keyId: string;
  /** The client the key belongs to (absent from a verdict of an authorizer older than clients: derived from keyId). */
  clientId?: string | undefined;
  scopes: readonly string[];
  environment: KeyEnvironment;
  /** The key was rotated and is in its grace period. */
  deprecated: boolean;
  /** For a deprecated key: when it was rotated (ISO instant), the `Deprecation` header's date. */
  deprecatedAt?: string | undefined;
  /** For a deprecated key: when its grace period ends (ISO instant), the `Sunset` header's date. */
  sunsetAt?: string | undefined;
}

export type AuthorizerContext =
  | {
      verdict: 'ok';
      keyId: string;
      clientId?: string;
      scopes: string;
      environment: KeyEnvironment;
      deprecated: boolean;
      deprecatedAt?: string;
      sunsetAt?: string;
      rateLimitPolicy?: string;
      rateLimit?: string;
    }
  | { verdict: 'error'; errorCode: AuthErrorCode; message: string; rateLimitPolicy?: string; rateLimit?: string; retryAfter?: string };

/** A verdict as the function reads it; `headers` are the rate-limit fields to answer with (none for no key). */
export type Verdict =
  | { ok: true; key: VerifiedKey; headers: Record<string, string> }
  | { ok: false; errorCode: AuthErrorCode; message: string; headers: Record<string, string> };

export function verifiedContext(key: VerifiedKey): AuthorizerContext {
  return {
    verdict: 'ok',
    keyId: key.keyId,
    ...(key.clientId !== undefined ? { clientId: key.clientId } : {}),
    scopes: key.scopes.join(' '),
    environment: key.environment,
    deprecated: key.deprecated,
    ...(key.deprecated && key.deprecatedAt !== undefined ? { deprecatedAt: key.deprecatedAt } : {}),
    ...(key.deprecated && key.sunsetAt !== undefined ? { sunsetAt: key.sunsetAt } : {}),
  };
}

export function rejectedContext(errorCode: AuthErrorCode, message: string): AuthorizerContext {
  return { verdict: 'error', errorCode, message };
}

/** A context with the key's rate-limit fields added (a verified key, or its RATE_LIMITED refusal). */
export function withRateLimit(context: AuthorizerContext, fields: RateLimitFields): AuthorizerContext {
  return { ...context, ...fields };
}

/** The rate-limit fields as response headers (lower-case, as the functions write every header). */
function rateLimitHeaders(c: Partial<RateLimitFields>): Record<string, string> {
  return {
    ...(c.rateLimitPolicy !== undefined ? { 'ratelimit-policy': c.rateLimitPolicy } : {}),
    ...(c.rateLimit !== undefined ? { ratelimit: c.rateLimit } : {}),
    ...(c.retryAfter !== undefined ? { 'retry-after': c.retryAfter } : {}),
  };
}

const booleanish = v.union([v.boolean(), v.picklist(['true', 'false'])]);

// Only values the authorizer writes (src/keys/limits/rate-limit.ts) reach a header.
const PolicyField = v.pipe(v.string(), v.regex(/^"[a-z-]+";q=\d+;w=\d+$/));
const LimitField = v.pipe(v.string(), v.regex(/^"[a-z-]+";r=\d+;t=\d+$/));

const ContextSchema = v.variant('verdict', [
  v.object({
    verdict: v.literal('ok'),
    keyId: v.pipe(v.string(), v.minLength(1)),
    clientId: v.optional(v.pipe(v.string(), v.regex(/^cli_[0-9A-Za-z]{20}$/))),
    scopes: v.string(),
    environment: v.picklist(['live', 'test']),
    deprecated: booleanish,
    deprecatedAt: v.optional(v.pipe(v.string(), v.isoTimestamp())),
    sunsetAt: v.optional(v.pipe(v.string(), v.isoTimestamp())),
    rateLimitPolicy: v.optional(PolicyField),
    rateLimit: v.optional(LimitField),
  }),
  v.object({
    verdict: v.literal('error'),
    errorCode: v.picklist([
      'API_KEY_MISSING',
      'API_KEY_INVALID',
      'API_KEY_EXPIRED',
      'API_KEY_WRONG_ENVIRONMENT',
      'SERVICE_UNAVAILABLE',
      'RATE_LIMITED',
      'PERMISSION_DENIED',
    ]),
    message: v.string(),
    rateLimitPolicy: v.optional(PolicyField),
    rateLimit: v.optional(LimitField),
    retryAfter: v.optional(v.pipe(v.string(), v.regex(/^\d{1,6}$/))),
  }),
]);

/**
 * Reads the verdict from an authorizer context. Anything that is not a well-formed verdict (no
 * authorizer ran, a foreign context) is not a verified key.
 */
export function readVerdict(context: unknown): Verdict {
  const parsed = v.safeParse(ContextSchema, context);
  if (!parsed.success) {
    return { ok: false, errorCode: 'API_KEY_MISSING', message: 'An API key is required in the X-API-Key header', headers: {} };
  }
  const c = parsed.output;
  const headers = rateLimitHeaders(c);
  if (c.verdict === 'error') return { ok: false, errorCode: c.errorCode, message: c.message, headers };
  const deprecated = c.deprecated === true || c.deprecated === 'true';
  return {
    ok: true,
    key: {
      keyId: c.keyId,
      ...(c.clientId !== undefined ? { clientId: c.clientId } : {}),
      scopes: c.scopes.split(' ').filter((s) => s !== ''),
      environment: c.environment,
      deprecated,
      ...(deprecated && c.deprecatedAt !== undefined ? { deprecatedAt: c.deprecatedAt } : {}),
      ...(deprecated && c.sunsetAt !== undefined ? { sunsetAt: c.sunsetAt } : {}),
    },
    headers,
  };
}
