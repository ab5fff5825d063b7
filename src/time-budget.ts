/**
 * How long each part of the service may take: the Lambda timeouts of the functions are in the
 * table of src/function-table.ts (the CDK stack sets them, the local gateway enforces them); here, the
 * time budget of every DynamoDB call the functions make (src/aws/dynamodb.ts, src/aws/deadline.ts). docs/faults.md explains the
 * numbers and shows what a caller gets when the database stalls or is down.
 */
export interface DynamoDbCallBudget {
  /** TCP connect, per attempt. */
  connectionTimeoutMs: number;
  /** From sending a request to its response headers, per attempt (it throws, not just warns). */
  requestTimeoutMs: number;
  /** Attempts per call, the first included. */
  maxAttempts: number;
  /** Upper bound of the wait before a retry (full jitter below it). */
  maxBackoffMs: number;
}

/**
 * The functions' DynamoDB calls. A call takes at most
 * maxAttempts * requestTimeoutMs + (maxAttempts - 1) * maxBackoffMs = 2 * 1,500 + 100 = 3,100 ms,
 * which fits inside the list function's deadline; the authorizer's deadline cuts the retry short.
 * DynamoDB answers a GetItem in single-digit milliseconds and a 1 MB Query page in well under a
 * second, so a second without response headers means a stalled connection or server: one retry
 * (on a fresh connection) is worth it, more would not fit.
 */
export const FUNCTION_DYNAMODB_BUDGET: Readonly<DynamoDbCallBudget> = {
  connectionTimeoutMs: 500,
  requestTimeoutMs: 1_500,
  maxAttempts: 2,
  maxBackoffMs: 100,
};

/**
 * The commands' calls (keys, legs:load, npm start's set-up, the benchmark's loading): larger
 * batches and table creation, run by an operator who can wait, still never forever.
 */
export const COMMAND_DYNAMODB_BUDGET: Readonly<DynamoDbCallBudget> = {
  connectionTimeoutMs: 2_000,
  requestTimeoutMs: 10_000,
  maxAttempts: 3,
  maxBackoffMs: 1_000,
};

/**
 * Per invocation: after this long, every DynamoDB call of the invocation is aborted and the
 * invocation answers SERVICE_UNAVAILABLE. Authorizer + list function = 4.9 s, so even a database
 * that answers the authorizer slowly and then stalls under the list function gets a 503 within
 * 5 s of the request, far inside the functions' Lambda timeouts (5 s and 10 s). The by-id function
 * (one GetItem) and the change feed have the list function's budget.
 */
export const DATABASE_DEADLINE_MS: Readonly<Record<'authorizer' | 'listEmptyLegs' | 'getEmptyLeg' | 'listChanges', number>> = {
  authorizer: 1_400,
  listEmptyLegs: 3_500,
  getEmptyLeg: 3_500,
  listChanges: 3_500,
};

/** Time kept back from the Lambda deadline to answer and log after giving up on the database. */
export const ANSWER_MARGIN_MS = 500;

/**
 * The database deadline of one invocation: the function's fixed budget, shortened when the Lambda
 * invocation has less time left than that (minus the margin to answer). At least 1 ms.
 */
export function invocationDeadlineMs(
  fn: keyof typeof DATABASE_DEADLINE_MS,
  context?: { getRemainingTimeInMillis(): number },
): number {
  const fixed = DATABASE_DEADLINE_MS[fn];
  const remaining = context ? context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS : fixed;
  return Math.max(1, Math.min(fixed, remaining));
}
