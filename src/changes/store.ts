import { GetCommand, ScanCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../aws/batch-get.js';
import { listedRecord } from '../legs/get-leg.js';
import { MAX_BATCH_GET_ATTEMPTS } from '../legs/limits.js';
import { toApiRecord, type EmptyLeg } from '../legs/model.js';
import { BUCKET_ATTR } from '../legs/storage.js';
import { EXPIRE_AFTER_MS, type ChangeType, type LegState, type LogEntry, type LogGroup } from './log.js';

/**
 * The change log's items, in the legs table beside the legs (ids starting with `~`, which no leg id
 * does, and no index attribute, so the listing never holds them):
 * - the head, id `~changes`: `q`, the number of the last entry committed (0 or absent: none);
 * - the entries, id `~change#<q>`: `k` the type (l, u, w), `l` the leg's id, `a` when it was
 *   committed (epoch ms), `r` the record's JSON text (not for `withdrawn`), `ttl` (epoch s);
 * - the legs' states, id `~feed#<leg id>`: `n` the last stream sequence number applied, `d` the
 *   digest of the record last given (absent: not listed), `t` the `changedAt` its transition was
 *   given (a retried batch gives it again), `ttl` once withdrawn.
 * A group of entries, their legs' states and the head are written in one transaction, conditioned
 * on the head and the states being what the writer read: the entries are numbered without gaps,
 * in commit order, and a record is never applied twice (src/changes/log.ts).
 */
export const HEAD_ID = '~changes';
export const ENTRY_PREFIX = '~change#';
export const STATE_PREFIX = '~feed#';
/** The ids of every change-log item start with this (the consumer's IAM condition). */
export const CHANGE_LOG_ID_PREFIXES = [HEAD_ID, ENTRY_PREFIX, STATE_PREFIX] as const;

/** Items a Scan of the initial listing evaluates at least per request. */
const SCAN_PAGE_MIN = 100;

/** Entries per transaction: with their states and the head, within TransactWriteItems' 100 actions. */
export const GROUP_SIZE = 49;

const TYPE_CODE: Record<ChangeType, string> = { listed: 'l', updated: 'u', withdrawn: 'w' };
const CODE_TYPE: Record<string, ChangeType> = { l: 'listed', u: 'updated', w: 'withdrawn' };

/** A stored entry, as the feed gives it, with its number and commit instant. */
export interface StoredEntry extends LogEntry {
  seq: number;
  committedAt: number;
}

export interface ChangeLogStore {
  /** The number of the last entry committed (strongly consistent). */
  head(): Promise<number>;
  /** The stored states of these legs (strongly consistent). */
  states(ids: readonly string[]): Promise<Map<string, LegState>>;
  /** Commits a group at `at` (epoch ms): false when the head or a state changed since it was read. */
  append(group: LogGroup, at: number): Promise<boolean>;
  /** Entries `from` to `to` (inclusive) in order, undefined where one is missing (expired). */
  entries(from: number, to: number): Promise<(StoredEntry | undefined)[]>;
  /**
   * Up to `limit` legs the unfiltered listing lists at `now`, in the table's order, after the leg
   * `afterId`; `next` is the last leg read (to resume after), undefined when the table is done.
   */
  listed(afterId: string | undefined, limit: number, now: number): Promise<{ legs: EmptyLeg[]; next: string | undefined }>;
}

const entryId = (seq: number) => `${ENTRY_PREFIX}${seq}`;

function parseEntry(item: Readonly<Record<string, unknown>>): StoredEntry | undefined {
  const type = typeof item.k === 'string' ? CODE_TYPE[item.k] : undefined;
  if (type === undefined || typeof item.q !== 'number' || typeof item.l !== 'string' || typeof item.a !== 'number') return undefined;
  let leg: EmptyLeg | null = null;
  if (type !== 'withdrawn') {
    if (typeof item.r !== 'string') return undefined;
    leg = toApiRecord(JSON.parse(item.r) as Record<string, unknown>);
  }
  return { seq: item.q, type, id: item.l, changedAt: new Date(item.a).toISOString(), committedAt: item.a, leg };
}

export function createChangeLogStore(client: DynamoDBDocumentClient, tableName: string): ChangeLogStore {
  return {
    async head() {
      const out = await client.send(new GetCommand({ TableName: tableName, Key: { id: HEAD_ID }, ConsistentRead: true }));
      return typeof out.Item?.q === 'number' ? out.Item.q : 0;
    },

    async states(ids) {
      const found = new Map<string, LegState>();
      const unique = [...new Set(ids)];
      for (let i = 0; i < unique.length; i += 100) {
        const keys = unique.slice(i, i + 100).map((id) => ({ id: `${STATE_PREFIX}${id}` }));
        const got = await batchGet(client, tableName, keys, MAX_BATCH_GET_ATTEMPTS, { consistent: true });
        if (got.unprocessed.length > 0) throw new Error('The change log states could not be read (unprocessed keys)');
        for (const item of got.items) {
          if (typeof item.n !== 'string') continue;
          found.set(String(item.id).slice(STATE_PREFIX.length), {
            sequenceNumber: item.n,
            digest: typeof item.d === 'string' ? item.d : null,
            ...(typeof item.t === 'string' ? { changedAt: item.t } : {}),
          });
        }
      }
      return found;
    },

    async append(group, at) {
      const head = await this.head();
      const ttl = Math.floor((at + EXPIRE_AFTER_MS) / 1000);
      const entries = group.entries.map((e, i) => ({
        Put: {
          TableName: tableName,
          Item: {
            id: entryId(head + 1 + i),
            q: head + 1 + i,
            k: TYPE_CODE[e.type],
            l: e.id,
            a: at,
            ...(e.leg === null ? {} : { r: JSON.stringify(e.leg) }),
            ttl,
          },
          ConditionExpression: 'attribute_not_exists(id)',
        },
      }));
      const states = [...group.states].map(([id, { next, prior }]) => ({
        Put: {
          TableName: tableName,
          Item: {
            id: `${STATE_PREFIX}${id}`,
            n: next.sequenceNumber,
            ...(next.changedAt === undefined ? {} : { t: next.changedAt }),
            ...(next.digest === null ? { ttl } : { d: next.digest }),
          },
          ...(prior === undefined
            ? { ConditionExpression: 'attribute_not_exists(id)' }
            : { ConditionExpression: 'n = :n', ExpressionAttributeValues: { ':n': prior.sequenceNumber } }),
        },
      }));
      const seq = head + group.entries.length;
      const headPut = {
        Put: {
          TableName: tableName,
          Item: { id: HEAD_ID, q: seq, a: at },
          ...(head === 0 ? { ConditionExpression: 'attribute_not_exists(id) OR q = :q' } : { ConditionExpression: 'q = :q' }),
          ExpressionAttributeValues: { ':q': head },
        },
      };
      try {
        await client.send(new TransactWriteCommand({ TransactItems: [...entries, ...states, headPut] }));
        return true;
      } catch (err) {
        const name = err instanceof Error ? err.name : '';
        if (name === 'TransactionCanceledException' || name === 'TransactionConflictException') return false;
        throw err;
      }
    },

    async entries(from, to) {
      if (to < from) return [];
      const found = new Map<number, StoredEntry>();
      for (let start = from; start <= to; start += 100) {
        const keys: { id: string }[] = [];
        for (let q = start; q <= Math.min(to, start + 99); q++) keys.push({ id: entryId(q) });
        const got = await batchGet(client, tableName, keys, MAX_BATCH_GET_ATTEMPTS, { consistent: true });
        if (got.unprocessed.length > 0) throw new Error('The change log entries could not be read (unprocessed keys)');
        for (const item of got.items) {
          const entry = parseEntry(item);
          if (entry) found.set(entry.seq, entry);
        }
      }
      const result: (StoredEntry | undefined)[] = [];
      for (let q = from; q <= to; q++) result.push(found.get(q));
      return result;
    },

    async listed(afterId, limit, now) {
      const legs: EmptyLeg[] = [];
      const at = new Date(now);
      let start: Record<string, unknown> | undefined = afterId === undefined ? undefined : { id: afterId };
      for (;;) {
        const out = await client.send(
          new ScanCommand({
            TableName: tableName,
            // Items evaluated, before the filter; a page may hold more legs than wanted: it ends at the last one given.
            Limit: Math.max(SCAN_PAGE_MIN, limit - legs.length),
            FilterExpression: 'attribute_exists(#b)',
            ExpressionAttributeNames: { '#b': BUCKET_ATTR },
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        for (const item of out.Items ?? []) {
          const leg = listedRecord(item, at);
          if (!leg) continue;
          legs.push(leg);
          if (legs.length === limit) return { legs, next: leg.id };
        }
        start = out.LastEvaluatedKey;
        if (!start) return { legs, next: undefined };
      }
    },
  };
}
