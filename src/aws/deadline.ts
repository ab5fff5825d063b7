import { AsyncLocalStorage } from 'node:async_hooks';
import { setMaxListeners } from 'node:events';

/**
 * A deadline for all the DynamoDB calls of one invocation: `withDeadline(ms, work)` aborts every
 * request of `work`, in flight or to come, after `ms`, and rejects then with a `TimeoutError`
 * whatever `work` waits on; the error mapper answers it SERVICE_UNAVAILABLE (docs/faults.md).
 */
const current = new AsyncLocalStorage<AbortSignal>();

export class DeadlineError extends Error {
  override name = 'TimeoutError';
  readonly code = 'ETIMEDOUT';

  constructor(readonly deadlineMs: number) {
    super(`The database did not answer within the invocation's deadline of ${deadlineMs} ms`);
  }
}

/** The abort signal of the deadline the caller runs under, if any. */
export function deadlineSignal(): AbortSignal | undefined {
  return current.getStore();
}

export async function withDeadline<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const controller = new AbortController();
  // Every request in flight listens to it; an invocation's reads are bounded, not ten.
  setMaxListeners(1_000, controller.signal);
  const outer = current.getStore();
  const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
  if (signal !== controller.signal) setMaxListeners(1_000, signal);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new DeadlineError(ms);
      reject(error);
      controller.abort(error);
    }, ms);
  });
  try {
    return await Promise.race([current.run(signal, work), expired]);
  } finally {
    clearTimeout(timer);
  }
}
