/**
 * The time budget of every DynamoDB call the functions make, and each invocation's database deadline
 * (the Lambda timeouts are in src/function-table.ts); docs/faults.md explains the numbers.
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
 * The functions' DynamoDB calls: a call takes at most
 * maxAttempts * requestTimeoutMs + (maxAttempts - 1) * maxBackoffMs, inside the list function's
 * deadline (docs/faults.md, "Time budget of a database call").
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
 * Per invocation, ms: after this long every DynamoDB call of the invocation is aborted and it answers
 * SERVICE_UNAVAILABLE; authorizer and list function together stay under 5 s (docs/faults.md).
 */
export const DATABASE_DEADLINE_MS: Readonly<Record<'authorizer' | 'listEmptyLegs' | 'getEmptyLeg' | 'listChanges' | 'listSources' | 'mcp', number>> = {
  authorizer: 1_400,
  listEmptyLegs: 3_500,
  getEmptyLeg: 3_500,
  listChanges: 3_500,
  listSources: 3_500,
  mcp: 3_500,
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
