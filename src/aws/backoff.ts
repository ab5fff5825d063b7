/**
 * Full-jitter exponential backoff for retrying DynamoDB's unprocessed items and keys: a random wait
 * in [0, min(max, base * 2^retry)). `retry` counts from 0 for the first retry.
 */
export function backoffDelay(retry: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(maxMs, baseMs * 2 ** retry));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
