import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backoffDelay, sleep } from '../aws/backoff.js';
import { batchGet } from '../aws/batch-get.js';
import { BUCKET_ATTR, FILTER_ATTR, SORT_ATTR } from './storage.js';
import { MAX_BATCH_GET_ATTEMPTS } from './limits.js';

/**
 * The legs table's change journal: how a container learns, cheaply, that legs changed and what
 * changed, without re-reading the index buckets around them (docs/performance.md, "The change-aware
 * cache").
 *
 * Two kinds of items live in the legs table beside the legs. Their ids start with `~`, which a leg id
 * (1-64 of A-Z a-z 0-9 _ -) never does, and they carry no index attribute, so the listing index
 * never holds them:
 * - the head, id `~journal`: `v` (the version: how many change sets were ever appended) and `r`,
 *   the most recent change sets (JSON, at most HEAD_RECENT_BYTES, so that reading the head stays one
 *   read unit of 4 KB, half a unit eventually consistent);
 * - the slots, id `~journal#<v mod SLOTS>`: change set `v` (attribute `v`, changes in `c`). A slot is
 *   overwritten SLOTS versions later; a reader that finds another `v` in it has fallen behind.
 *
 * A change is the leg's id and what the listing index now holds for it: its bucket, sort key and
 * filter attribute (storage.ts), or nothing when the leg left the index (blocked, unlisted). Every
 * write path of the project appends one change set per BatchWriteItem it sends (loader.ts), after
 * the legs are written; head and slot are written in one transaction conditioned on the version
 * read, so concurrent writers never lose a change set.
 */
export const JOURNAL_HEAD_ID = '~journal';
export const JOURNAL_SLOTS = 128;
export const HEAD_RECENT_BYTES = 3_000;

export function slotId(version: number): string {
  return `${JOURNAL_HEAD_ID}#${version % JOURNAL_SLOTS}`;
}

/**
 * The id of the change that stands for "anything may have changed": a reader re-reads everything.
 * A large load appends this one change instead of thousands (writeLegs).
 */
export const RESET_ID = '*';

/** One leg's change: what the listing index holds for it now, or only its id when nothing. */
export interface LegChange {
  id: string;
  /** Bucket, sort key, filter attribute; absent when the leg is not in the index. */
  index?: { lb: string; ls: string; lf: string };
}

export interface ChangeSet {
  v: number;
  changes: LegChange[];
}

export interface JournalHead {
  version: number;
  /** The most recent change sets, oldest first (a suffix of the journal, possibly empty). */
  recent: ChangeSet[];
}

type Encoded = [id: string] | [id: string, lb: string, ls: string, lf: string];

function encodeChanges(changes: readonly LegChange[]): Encoded[] {
  return changes.map((c) => (c.index ? [c.id, c.index.lb, c.index.ls, c.index.lf] : [c.id]));
}

function decodeChanges(raw: unknown): LegChange[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: LegChange[] = [];
  for (const e of raw) {
    if (!Array.isArray(e) || !e.every((x) => typeof x === 'string')) return undefined;
    const [id, lb, ls, lf] = e;
    if (id === undefined) return undefined;
    if (e.length === 1) out.push({ id });
    else if (e.length === 4) out.push({ id, index: { lb: lb!, ls: ls!, lf: lf! } });
    else return undefined;
  }
  return out;
}

function decodeRecent(raw: unknown): ChangeSet[] {
  if (typeof raw !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed)) return [];
    const sets: ChangeSet[] = [];
    for (const s of parsed) {
      if (!Array.isArray(s) || typeof s[0] !== 'number') return [];
      const changes = decodeChanges(s[1]);
      if (!changes) return [];
      sets.push({ v: s[0], changes });
    }
    return sets;
  } catch {
    return [];
  }
}

/** The change of a storage item (what toStorageItem wrote). */
export function changeOfItem(item: Readonly<Record<string, unknown>>): LegChange {
  const id = String(item.id);
  const lb = item[BUCKET_ATTR];
  const ls = item[SORT_ATTR];
  const lf = item[FILTER_ATTR];
  return typeof lb === 'string' && typeof ls === 'string' && typeof lf === 'string' ? { id, index: { lb, ls, lf } } : { id };
}

export function parseHead(item: Readonly<Record<string, unknown>> | undefined): JournalHead {
  if (!item || typeof item.v !== 'number') return { version: 0, recent: [] };
  return { version: item.v, recent: decodeRecent(item.r) };
}

/** The recent change sets to keep in the head: the newest ones whose JSON fits in HEAD_RECENT_BYTES. */
function trimRecent(sets: readonly ChangeSet[]): string {
  const kept: [number, Encoded[]][] = [];
  let bytes = 2;
  for (let i = sets.length - 1; i >= 0; i--) {
    const enc: [number, Encoded[]] = [sets[i]!.v, encodeChanges(sets[i]!.changes)];
    const size = Buffer.byteLength(JSON.stringify(enc)) + 1;
    if (bytes + size > HEAD_RECENT_BYTES) break;
    bytes += size;
    kept.unshift(enc);
  }
  return JSON.stringify(kept);
}

const MAX_APPEND_ATTEMPTS = 10;

/**
 * Appends one change set: reads the head (strongly consistent), writes slot v+1 and the new head in
 * one transaction conditioned on the head still being at v; retries (with backoff) when another
 * writer got there first. Returns the new version.
 */
export async function appendChanges(
  client: DynamoDBDocumentClient,
  tableName: string,
  changes: readonly LegChange[],
): Promise<number> {
  if (changes.length === 0) throw new RangeError('An empty change set');
  for (let attempt = 1; ; attempt++) {
    const out = await client.send(new GetCommand({ TableName: tableName, Key: { id: JOURNAL_HEAD_ID }, ConsistentRead: true }));
    const head = parseHead(out.Item);
    const v = head.version + 1;
    const encoded = JSON.stringify(encodeChanges(changes));
    try {
      await client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName, Item: { id: slotId(v), v, c: encoded } } },
            {
              Put: {
                TableName: tableName,
                Item: { id: JOURNAL_HEAD_ID, v, r: trimRecent([...head.recent, { v, changes: [...changes] }]) },
                ConditionExpression: 'attribute_not_exists(id) OR v = :v',
                ExpressionAttributeValues: { ':v': head.version },
              },
            },
          ],
        }),
      );
      return v;
    } catch (err) {
      const name = err instanceof Error ? err.name : '';
      const conflict = name === 'TransactionCanceledException' || name === 'TransactionConflictException';
      if (!conflict || attempt >= MAX_APPEND_ATTEMPTS) throw err;
      await sleep(backoffDelay(attempt - 1, 10, 500));
    }
  }
}

/** How a container reads the journal (the list function's side; eventually consistent, cheap). */
export interface JournalSource {
  /** The head: the version and the most recent change sets. */
  head(): Promise<JournalHead>;
  /**
   * Change sets `from` to `to` (inclusive), in order; undefined when one of them is no longer in its
   * slot (overwritten by a later version, or missing): the reader must then re-read everything.
   */
  changeSets(from: number, to: number): Promise<ChangeSet[] | undefined>;
}

export function createJournalSource(client: DynamoDBDocumentClient, tableName: string): JournalSource {
  return {
    async head() {
      const out = await client.send(new GetCommand({ TableName: tableName, Key: { id: JOURNAL_HEAD_ID } }));
      return parseHead(out.Item);
    },
    async changeSets(from, to) {
      if (to < from) return [];
      if (to - from + 1 > Math.min(100, JOURNAL_SLOTS)) return undefined;
      const wanted = new Map<string, number>();
      for (let v = from; v <= to; v++) wanted.set(slotId(v), v);
      const got = await batchGet(client, tableName, [...wanted.keys()].map((id) => ({ id })), MAX_BATCH_GET_ATTEMPTS);
      if (got.unprocessed.length > 0) return undefined;
      const sets = new Map<number, ChangeSet>();
      for (const item of got.items) {
        const v = wanted.get(String(item.id));
        const changes = decodeChangesJson(item.c);
        if (v === undefined || item.v !== v || !changes) return undefined;
        sets.set(v, { v, changes });
      }
      const result: ChangeSet[] = [];
      for (let v = from; v <= to; v++) {
        const set = sets.get(v);
        if (!set) return undefined;
        result.push(set);
      }
      return result;
    },
  };
}

function decodeChangesJson(raw: unknown): LegChange[] | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    return decodeChanges(JSON.parse(raw));
  } catch {
    return undefined;
  }
}
