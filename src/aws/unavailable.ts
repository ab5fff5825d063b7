/**
 * What a failed database call means, said once. The one error mapper (src/http/envelope.ts) answers
 * SERVICE_UNAVAILABLE when `isUnavailable`; the commands (cli/connect.ts) say the database is not
 * reachable when `isUnreachable`.
 */

/** errno codes of a connection that could not be made, or broke: the endpoint did not answer. */
const UNREACHABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Error names of a request that got no answer in time: a connection or request timeout of the SDK's
 * HTTP handler, an invocation's database deadline (src/aws/deadline.ts), middy's own timeout guard,
 * a request torn down by the deadline's abort signal.
 */
const NO_ANSWER_NAMES = new Set(['TimeoutError', 'AbortError', 'RequestTimeout', 'RequestTimeoutException']);

/** Answers that mean "not now": throttling, or the service failing on its side. */
const BUSY_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
]);

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  cause?: unknown;
  errors?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

function asErrorLike(value: unknown): ErrorLike | undefined {
  return typeof value === 'object' && value !== null ? value : undefined;
}

/**
 * True when the database did not answer: refused or broken connection, unknown host, time-out,
 * deadline. Looks through `cause` and through the attempts of an AggregateError (Node's
 * happy-eyeballs connect), a few levels deep.
 */
export function isUnreachable(error: unknown, depth = 0): boolean {
  const e = asErrorLike(error);
  if (!e || depth > 4) return false;
  if (typeof e.code === 'string' && UNREACHABLE_ERRNO.has(e.code)) return true;
  if (typeof e.name === 'string' && NO_ANSWER_NAMES.has(e.name)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isUnreachable(inner, depth + 1))) return true;
  return isUnreachable(e.cause, depth + 1);
}

/** True when a retry later may succeed: unreachable, throttled, or a 5xx from the service. */
export function isUnavailable(error: unknown): boolean {
  const e = asErrorLike(error);
  if (!e) return false;
  if (isUnreachable(e)) return true;
  if (typeof e.name === 'string' && BUSY_NAMES.has(e.name)) return true;
  const status = e.$metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 500;
}
