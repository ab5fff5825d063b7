import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { AwsEnvironment } from '../config.js';
import { COMMAND_DYNAMODB_BUDGET, type DynamoDbCallBudget } from '../time-budget.js';
import { deadlineSignal } from './deadline.js';

/**
 * The one module that constructs DynamoDB clients; every call has a time budget and the
 * invocation's deadline (docs/storage.md, "The DynamoDB client").
 */
export interface DynamoDbClientOptions extends Partial<AwsEnvironment> {
  /** Endpoint; undefined means real AWS. */
  endpoint: string | undefined;
  /** Overrides the budget's attempts (e.g. 1 for a readiness probe). */
  maxAttempts?: number;
  budget?: Readonly<DynamoDbCallBudget>;
}

/** Node's HTTP handler, plus the abort signal of the caller's invocation deadline. */
type HandleArgs = Parameters<NodeHttpHandler['handle']>;
class DeadlineHttpHandler extends NodeHttpHandler {
  override handle(request: HandleArgs[0], options: HandleArgs[1] = {}): ReturnType<NodeHttpHandler['handle']> {
    const deadline = deadlineSignal();
    const own = options.abortSignal as AbortSignal | undefined;
    const merged = deadline ? { ...options, abortSignal: own ? AbortSignal.any([own, deadline]) : deadline } : options;
    return super.handle(request, merged).catch((err: unknown) => {
      throw ownRealmError(err);
    });
  }
}

/**
 * The SDK's retry classification and the envelope's mapper read an error's `name` and `code`; the
 * retry middleware wraps anything that is not an `Error` of its own realm (a socket error seen
 * from a VM context, as in jest) into a bare Error that has neither. Keep them.
 */
function ownRealmError(err: unknown): unknown {
  if (err instanceof Error || typeof err !== 'object' || err === null) return err;
  const e = err as { name?: unknown; code?: unknown; message?: unknown };
  return Object.assign(new Error(typeof e.message === 'string' ? e.message : 'request failed', { cause: err }), {
    ...(typeof e.name === 'string' ? { name: e.name } : {}),
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
  });
}

/** The name of the SDK's logger middleware, removed from every client (below). */
const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

/** Full jitter below min(maxBackoffMs, 25 ms * 2^(attempt-1)). */
export function retryBackoff(budget: Pick<DynamoDbCallBudget, 'maxBackoffMs'>, random: () => number = Math.random) {
  return (attempt: number): number => Math.floor(random() * Math.min(budget.maxBackoffMs, 25 * 2 ** Math.max(0, attempt - 1)));
}

/**
 * `region` and `credentialsInEnvironment` are what src/config.ts read of the environment
 * (`Config.aws`, spread in by the functions and the commands); without them, us-east-1, and a client
 * of an explicit endpoint signs with DynamoDB Local's placeholder credentials.
 */
export function createDocumentClient(options: DynamoDbClientOptions): DynamoDBDocumentClient {
  const local = options.endpoint !== undefined && !options.credentialsInEnvironment;
  const budget = options.budget ?? COMMAND_DYNAMODB_BUDGET;
  const maxAttempts = options.maxAttempts ?? budget.maxAttempts;
  const client = new DynamoDBClient({
    endpoint: options.endpoint,
    region: options.region ?? 'us-east-1',
    maxAttempts,
    retryStrategy: new ConfiguredRetryStrategy(maxAttempts, retryBackoff(budget)),
    // DynamoDB Local accepts any credentials; real AWS uses the environment's.
    ...(local ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    requestHandler: new DeadlineHttpHandler({
      connectionTimeout: budget.connectionTimeoutMs,
      requestTimeout: budget.requestTimeoutMs,
      throwOnRequestTimeout: true,
      httpAgent: { keepAlive: true },
      httpsAgent: { keepAlive: true },
    }),
  });
  // Nothing logs through the SDK: its logger middleware only copies every response (docs/performance.md, "Cold cache").
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
    unmarshallOptions: { wrapNumbers: false },
  });
}

/** Runs one conditional write: true when written, false when its condition failed (nothing written). */
export async function writtenIf(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}
