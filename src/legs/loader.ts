import { processClock } from '../clock.js';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backoffDelay, sleep as waitMs } from '../aws/backoff.js';
import { appendChanges, changeOfItem, RESET_ID, type LegChange } from './journal.js';
import { changeStamp } from './snapshot.js';
import { buildSnapshot, markSnapshotStale } from './snapshot-build.js';
import { CHANGE_ATTR, toStorageItem, type StoredLeg } from './storage.js';

/**
 * Writes legs to the legs table with BatchWriteItem: 25 puts per batch, a few batches in flight,
 * UnprocessedItems retried with exponential backoff and full jitter, a bounded number of times.
 *
 * Every put replaces the whole item, so loading a file twice leaves the same table, and a leg
 * reloaded as blocked or unlisted loses its index attributes (it leaves the listing). Legs absent
 * from the input are left alone: a load adds and replaces, it never deletes.
 *
 * After each batch is written, its changes are appended to the table's change journal
 * (src/legs/journal.ts), so that warm list functions pick them up within about a second. Appends are
 * made one at a time; batches that finish while one is in flight go into the next change set
 * together (at most JOURNAL_SET_MAX legs each). A load of more than JOURNAL_RESET_ABOVE legs appends
 * one "reset" change set at the end instead: the functions re-read everything, which is cheaper for
 * them than following thousands of changes (and much faster for the loader).
 *
 * The listing snapshot (src/legs/snapshot.ts): an incremental load stamps each leg with the instant
 * of its write (`lc`), which puts it in the snapshot's delta; a large load marks the snapshot stale
 * before it writes and builds it again before it appends its reset.
 */
export const JOURNAL_SET_MAX = 100;
export const JOURNAL_RESET_ABOVE = 1_000;

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
  /** The clock of the change stamps (`lc`), epoch ms. Default: the system clock. */
  clock?: () => number;
  /**
   * After a large load, build the listing snapshot again (src/legs/snapshot-build.ts). Default true;
   * false leaves it stale until the scheduled build (the listing reads the index meanwhile).
   */
  buildSnapshot?: boolean;
}

export interface WriteLegsResult {
  /** Legs written (distinct ids). */
  written: number;
  /** BatchWriteItem requests that were sent, retries included. */
  requests: number;
  /** Of those, retries of unprocessed items. */
  retries: number;
  /** A large load: the listing snapshot built at its end, or why not (the listing reads the index until the next build). */
  snapshot?: { built: true; entries: number } | { built: false; reason: string };
}

export class LoadError extends Error {
  override name = 'LoadError';
}

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } };

/** Serialises journal appends, coalescing the changes that wait into one change set. */
function journalAppender(client: DynamoDBDocumentClient, tableName: string): (changes: LegChange[]) => Promise<void> {
  const waiting: { changes: LegChange[]; done: (err?: Error) => void }[] = [];
  let running = false;
  const run = async (): Promise<void> => {
    running = true;
    while (waiting.length > 0) {
      const taken: typeof waiting = [];
      let count = 0;
      while (waiting.length > 0 && (taken.length === 0 || count + waiting[0]!.changes.length <= JOURNAL_SET_MAX)) {
        const next = waiting.shift()!;
        taken.push(next);
        count += next.changes.length;
      }
      try {
        await appendChanges(client, tableName, taken.flatMap((t) => t.changes));
        for (const t of taken) t.done();
      } catch (err) {
        for (const t of taken) t.done(err instanceof Error ? err : new Error(String(err)));
      }
    }
    running = false;
  };
  return (changes) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ changes, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!running) void run();
    });
}


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
  const bulk = byId.size > JOURNAL_RESET_ABOVE;
  const clock = options.clock ?? processClock;
  // An incremental load stamps every leg with the instant of its write (writeBatch): the listing
  // snapshot's delta (src/legs/snapshot.ts). A large load does not: it marks the snapshot stale
  // first, and builds it again at its end.
  const requests: WriteRequest[] = [...byId.values()].map((leg) => ({ PutRequest: { Item: toStorageItem(leg) } }));
  if (bulk) await markSnapshotStale(client, tableName, clock);
  const rebuildAfterLoad = async (): Promise<WriteLegsResult['snapshot']> => {
    if (options.buildSnapshot === false) return { built: false, reason: 'left to the scheduled build' };
    try {
      // The legs just written, as the index now holds them: the build's read of the index may lag.
      const overlay = new Map(requests.map((r) => [String(r.PutRequest.Item.id), changeOfItem(r.PutRequest.Item)]));
      const built = await buildSnapshot(client, tableName, { overlay, clock });
      return built.published ? { built: true, entries: built.entries } : { built: false, reason: 'another large load began meanwhile' };
    } catch (err) {
      return { built: false, reason: err instanceof Error ? err.message : String(err) };
    }
  };
  const appendToJournal = journalAppender(client, tableName);
  const journalError = (err: unknown): LoadError => {
    const message = err instanceof Error ? err.message : String(err);
    return new LoadError(
      `Writing the change journal of ${tableName} failed: ${message}; ${result.written} legs were written, and ` +
        `running functions may not show them until their cache ceiling passes. Loading the file again is safe.`,
      { cause: err },
    );
  };
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
        // Stamped as it is sent (a retry too): a stamp is never much earlier than its write.
        if (!bulk) {
          const stamp = changeStamp(clock());
          for (const r of pending) r.PutRequest.Item[CHANGE_ATTR] = stamp;
        }
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
        if (!failed && !bulk) {
          await appendToJournal(batches[index]!.map((r) => changeOfItem(r.PutRequest.Item))).catch((err: unknown) => {
            throw journalError(err);
          });
        }
      } catch (err) {
        if (!failed) firstError = err instanceof Error ? err : new LoadError(String(err));
        failed = true;
        return;
      }
      options.onProgress?.(result.written, requests.length);
    }
  };

  await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, () => worker()));
  if (bulk && result.written > 0) {
    // The snapshot first, so that the containers the reset makes re-read everything read it, not
    // the index; not after a failed load (the snapshot stays stale: the listing reads the index).
    if (firstError === undefined) result.snapshot = await rebuildAfterLoad();
    // Also after a failed bulk load: what was written must be seen.
    await appendToJournal([{ id: RESET_ID }]).catch((err: unknown) => {
      firstError ??= journalError(err);
    });
  }
  if (firstError) throw firstError;
  return result;
}
