import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backoffDelay, sleep as waitMs } from '../aws/backoff.js';
import { toStorageItem, type StoredLeg } from '../kernel/leg-item.js';

/**
 * Writes legs with BatchWriteItem: 25 puts a batch, a few in flight, unprocessed items retried with
 * backoff and jitter a bounded number of times. A put replaces the whole item (loading twice is
 * safe); legs absent from the input are left alone. The change log sees every write (src/changes/).
 */
export const BATCH_SIZE = 25;

export interface WriteLegsOptions {
  /** Batches in flight at once. Default 4. */
  concurrency?: number;
  /** Attempts per batch, the first included, before giving up on its unprocessed items. Default 8. */
  maxAttempts?: number;
  /** First backoff ceiling in ms; doubles per retry. Default 50. */
  baseDelayMs?: number;
  /** Backoff ceiling in ms. Default 5000. */
  maxDelayMs?: number;
  /** For tests: how to wait, and the random source of the jitter (0 <= r < 1). */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Called after each batch is fully written, with the running count. */
  onProgress?: (written: number, total: number) => void;
}

export interface WriteLegsResult {
  /** Legs written (distinct ids). */
  written: number;
  /** BatchWriteItem requests that were sent, retries included. */
  requests: number;
  /** Of those, retries of unprocessed items. */
  retries: number;
}

export class LoadError extends Error {
  override name = 'LoadError';
}

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } };

export async function writeLegs(
  client: DynamoDBDocumentClient,
  tableName: string,
  legs: readonly StoredLeg[],
  options: WriteLegsOptions = {},
): Promise<WriteLegsResult> {
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const maxAttempts = Math.max(1, options.maxAttempts ?? 8);
  const baseDelayMs = options.baseDelayMs ?? 50;
  const maxDelayMs = options.maxDelayMs ?? 5_000;
  const sleep = options.sleep ?? waitMs;
  const random = options.random ?? Math.random;

  // BatchWriteItem refuses two puts of one key in a request; the last leg of an id wins.
  const byId = new Map<string, StoredLeg>();
  for (const leg of legs) {
    byId.delete(leg.id);
    byId.set(leg.id, leg);
  }
  const requests: WriteRequest[] = [...byId.values()].map((leg) => ({ PutRequest: { Item: toStorageItem(leg) } }));
  const batches: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += BATCH_SIZE) batches.push(requests.slice(i, i + BATCH_SIZE));

  const result: WriteLegsResult = { written: 0, requests: 0, retries: 0 };
  let next = 0;
  let failed = false;
  let firstError: Error | undefined;

  const writeBatch = async (batch: WriteRequest[], number: number): Promise<void> => {
    let pending = batch;
    for (let attempt = 1; ; attempt++) {
      let unprocessed: WriteRequest[];
      try {
        result.requests += 1;
        const out = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        unprocessed = (out.UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const what = err instanceof Error && err.name === 'ResourceNotFoundException' ? ` (does table ${tableName} exist?)` : '';
        throw new LoadError(`Writing to ${tableName} failed${what}: ${message}; ${result.written} legs were written`, {
          cause: err,
        });
      }
      result.written += pending.length - unprocessed.length;
      if (unprocessed.length === 0 || failed) return; // done, or another batch failed: stop
      if (attempt >= maxAttempts) {
        throw new LoadError(
          `Writing to ${tableName}: ${unprocessed.length} of the ${batch.length} legs of batch ${number} were still ` +
            `unprocessed after ${attempt} attempts (DynamoDB is throttling); ${result.written} legs were written. ` +
            `Loading the file again is safe.`,
        );
      }
      result.retries += 1;
      await sleep(backoffDelay(attempt - 1, baseDelayMs, maxDelayMs, random));
      pending = unprocessed;
    }
  };

  const worker = async (): Promise<void> => {
    while (!failed && next < batches.length) {
      const index = next++;
      try {
        await writeBatch(batches[index]!, index + 1);
      } catch (err) {
        if (!failed) firstError = err instanceof Error ? err : new LoadError(String(err));
        failed = true;
        return;
      }
      options.onProgress?.(result.written, requests.length);
    }
  };

  await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, () => worker()));
  if (firstError) throw firstError;
  return result;
}
