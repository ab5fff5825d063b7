import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult, Context } from 'aws-lambda';
import { processClock } from '../clock.js';
import { DeadlineError, withDeadline } from '../aws/deadline.js';
import { logger } from '../logger.js';
import { invocationDeadlineMs } from '../time-budget.js';
import { rejectedContext, type AuthorizerContext } from '../auth/verdict.js';
import { emfLine, RATE_LIMIT_METRICS } from '../metrics.js';
import { getKeyByHash } from './store.js';
import { readKeysVersion } from './version.js';
import { createRateLimiter } from './limits/limiter.js';
import type { RateLimiter } from './limits/limiter-ports.js';
import { createClientCheck } from './limits/client-check.js';
import { readClientRateLimit } from './limits/client-limit.js';
import { addUsage, reserveUsage } from './limits/usage.js';
import { MESSAGES } from './messages.js';
import { apiKeyHeader, requestSource, type RequestSource } from './request-source.js';
import { createKeyAuthorizer, DEFAULT_MAX_ENTRIES, REVOCATION_BOUND_MS, type KeyAuthorizer, type KeyAuthorizerOptions } from './authorizer.js';

/** Time a write of the usage counters may take before the limiter goes on without it (fail open). */
export const USAGE_WRITE_BUDGET_MS = 300;

/** The verdict as handed to API Gateway: with the client's address for the access log. */
export type HandedContext = AuthorizerContext & { clientIp?: string };
export type AuthorizerResult = APIGatewaySimpleAuthorizerWithContextResult<HandedContext>;
type HandlerContext = Pick<Context, 'awsRequestId'> & Partial<Pick<Context, 'getRemainingTimeInMillis'>>;
export type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEventV2, context?: HandlerContext) => Promise<AuthorizerResult>;

export interface AuthorizerHandlerOptions extends Omit<KeyAuthorizerOptions, 'lookup'> {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Least time between two writes of a key's usage counters by this container (src/keys/limits/limiter.ts). */
  usageSyncIntervalMs?: number;
  /** A usage write's (and a client limit read's) deadline, USAGE_WRITE_BUDGET_MS unless given (tests on a busy DynamoDB Local). */
  usageBudgetMs?: number;
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
  const { client, tableName, usageSyncIntervalMs, usageBudgetMs = USAGE_WRITE_BUDGET_MS, originSecret, ...rest } = options;
  const limiterOf = (): RateLimiter =>
    createRateLimiter({
      ...(options.now ? { now: options.now } : {}),
      ...(usageSyncIntervalMs !== undefined ? { syncIntervalMs: usageSyncIntervalMs } : {}),
      // Its own short deadline: a slow or failed write never fails the request (fail open).
      counter: (keyId, day, add) => withDeadline(usageBudgetMs, () => addUsage(client, tableName, keyId, day, add)),
      reserve: (keyId, day, add, pool) => withDeadline(usageBudgetMs, () => reserveUsage(client, tableName, keyId, day, add, pool)),
      onSyncError: (keyId, error) => {
        logger.error('usage counter write failed; enforcing this container\'s share of the limit', { keyId, error: error as Error });
        process.stdout.write(`${emfLine(RATE_LIMIT_METRICS.namespace, { [RATE_LIMIT_METRICS.dimension]: options.stage }, { [RATE_LIMIT_METRICS.writeFailures]: 1 }, new Date((options.now ?? processClock)()))}\n`);
      },
    });
  const limiter = options.limiter ?? limiterOf();
  const now = options.now ?? processClock;
  // The client's counters sit beside its keys' (usage#<clientId>#<day>): a client id never is a key id.
  // A limiter given (tests) and no client check: none.
  const clientCheck =
    options.clientCheck ??
    (options.limiter ? undefined : createClientCheck({
      limiter: limiterOf(),
      read: (clientId) => withDeadline(usageBudgetMs, () => readClientRateLimit(client, tableName, clientId)),
      now,
      ttlMs: options.revocationBoundMs ?? REVOCATION_BOUND_MS,
      maxEntries: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      onReadError: (clientId, error) => logger.warn("client's rate limit unread; the default applies", { clientId, error: error as Error }),
    }));
  const authorizer = createKeyAuthorizer({
    keysVersion: () => readKeysVersion(client, tableName),
    ...rest,
    limiter,
    ...(clientCheck ? { clientCheck } : {}),
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
