import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The order of a source's sync files (docs/import-format.md, "Order of sync files"): a sync file is
 * refused when a newer one was already applied for one of its sources; the last applied per source
 * is the legs table's item `~feed-sync#<source>`.
 */
export const SYNC_STATE_PREFIX = '~feed-sync#';
export const syncStateId = (source: string): string => `${SYNC_STATE_PREFIX}${source}`;

/** A sync file as its order is judged. */
export interface SyncFile {
  /** The object key (`incoming/sync/x.ndjson`), or `legs:load <path>` for the command. */
  file: string;
  versionId: string | null;
  /** When S3 stored this version (its Last-Modified), epoch ms; for the command, when it ran. */
  storedAt: number;
  /** The S3 event's sequencer, which orders the versions of one key; null when unknown. */
  sequencer: string | null;
}

/** A source whose last applied sync file is newer than the file at hand. */
export interface NewerApplied {
  source: string;
  newer: SyncFile;
}

/** Negative when `a` is older: by storedAt, then key, then (same key) the S3 sequencer. */
export function compareSyncFiles(a: SyncFile, b: SyncFile): number {
  if (a.storedAt !== b.storedAt) return a.storedAt < b.storedAt ? -1 : 1;
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.sequencer === null || b.sequencer === null) return 0;
  // S3: compare sequencers of one key as strings after right-padding the shorter with zeros.
  const width = Math.max(a.sequencer.length, b.sequencer.length);
  const [x, y] = [a.sequencer.padEnd(width, '0'), b.sequencer.padEnd(width, '0')];
  return x === y ? 0 : x < y ? -1 : 1;
}

const sameFile = (a: SyncFile, b: SyncFile) => a.file === b.file && a.versionId === b.versionId;

/** Sources read or written at once (a sync file usually has one). */
const AT_ONCE = 16;

async function eachSource<T>(sources: readonly string[], work: (source: string) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < sources.length; i += AT_ONCE) results.push(...(await Promise.all(sources.slice(i, i + AT_ONCE).map(work))));
  return results;
}

function fromItem(item: Record<string, unknown> | undefined): SyncFile | undefined {
  if (!item || typeof item.file !== 'string' || typeof item.storedAt !== 'number') return undefined;
  return {
    file: item.file,
    versionId: typeof item.versionId === 'string' ? item.versionId : null,
    storedAt: item.storedAt,
    sequencer: typeof item.sequencer === 'string' ? item.sequencer : null,
  };
}

/** The sources whose last applied sync file is newer than `file` (the same file again is not). */
export async function newerApplied(
  client: DynamoDBDocumentClient,
  tableName: string,
  sources: readonly string[],
  file: SyncFile,
): Promise<NewerApplied[]> {
  const found = await eachSource(sources, async (source): Promise<NewerApplied | undefined> => {
    const out = await client.send(new GetCommand({ TableName: tableName, Key: { id: syncStateId(source) }, ConsistentRead: true }));
    const last = fromItem(out.Item);
    return last && !sameFile(last, file) && compareSyncFiles(last, file) > 0 ? { source, newer: last } : undefined;
  });
  return found.filter((f) => f !== undefined);
}

/**
 * Records `file` as the last sync file applied for each of `sources`, unless a file stored later
 * is recorded already (then that source is returned: another sync ran at the same time).
 */
export async function recordApplied(
  client: DynamoDBDocumentClient,
  tableName: string,
  sources: readonly string[],
  file: SyncFile,
  appliedAt: Date,
): Promise<string[]> {
  const lost = await eachSource(sources, async (source): Promise<string | undefined> => {
    try {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: { id: syncStateId(source), source, ...file, appliedAt: appliedAt.toISOString() },
          ConditionExpression: 'attribute_not_exists(id) OR storedAt <= :storedAt',
          ExpressionAttributeValues: { ':storedAt': file.storedAt },
        }),
      );
      return undefined;
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      return source;
    }
  });
  return lost.filter((s) => s !== undefined);
}
