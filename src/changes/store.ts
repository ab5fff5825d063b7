import type { ChangeHead, ChangeSet } from '../kernel/leg-change.js';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../aws/batch-get.js';
import { CHANGE_PAGE_SIZE } from '../kernel/leg-change.js';
import { MAX_BATCH_GET_ATTEMPTS } from '../aws/batch-limits.js';
import { toApiRecord, type EmptyLeg } from '../kernel/model.js';
import { changeSetOf, codeOf, decodeRecent, recentCode, trimRecent } from './store-parts/index-codes.js';
import { packRecord } from '../kernel/record-pack.js';
import { EXPIRE_AFTER_MS, type ChangeType, type LegState, type LogEntry, type LogGroup } from './log.js';
import type { StaleSources, WithdrawReason } from './transition.js';
import type { IndexRepair } from '../kernel/leg-change.js';
import { reindexLeg } from './store-parts/reindex.js';
import { keptFactsOf } from './moves.js';
import { scanListing, stateListing } from './store-parts/initial-listing.js';
import { stateFacts } from './transition.js';
import { factsOfStored, storedFacts, type LegFacts } from '../kernel/leg/blocks.js';

/**
 * The change log's items in the legs table (docs/storage.md, "The change log's items"): entries
 * numbered without gaps in commit order, written with the legs' states and the head in one transaction.
 */
export const HEAD_ID = '~changes';
export const PAGE_PREFIX = '~changes#p';
/** Entries per index page. */
export const PAGE_SIZE = CHANGE_PAGE_SIZE;
export const ENTRY_PREFIX = '~change#';
export const STATE_PREFIX = '~feed#';
/** The ids of every change-log item start with this (the consumer's IAM condition). */
export const CHANGE_LOG_ID_PREFIXES = [HEAD_ID, ENTRY_PREFIX, STATE_PREFIX, PAGE_PREFIX] as const;

/** Entries per transaction: with their states, the head and two index pages, within TransactWriteItems' 100 actions. */
export const GROUP_SIZE = 48;

const TYPE_CODE: Record<ChangeType, string> = { listed: 'l', updated: 'u', withdrawn: 'w' };
const CODE_TYPE: Record<string, ChangeType> = { l: 'listed', u: 'updated', w: 'withdrawn' };

/** A `withdrawn` entry's reason as stored (`w`, on the entry and the leg's state); an older entry without one reads `unlisted`. */
const REASON_CODE: Record<WithdrawReason, string> = { deleted: 'd', sold: 's', blocked: 'b', unlisted: 'u', expired: 'e', stale: 't' };
export const CODE_REASON: Readonly<Record<string, WithdrawReason>> = Object.fromEntries(Object.entries(REASON_CODE).map(([r, c]) => [c, r as WithdrawReason]));

const pageId = (seq: number) => `${PAGE_PREFIX}${Math.floor(seq / PAGE_SIZE)}`;

/** A stored entry, as the feed gives it, with its number and commit instant. */
export interface StoredEntry extends LogEntry {
  seq: number;
  committedAt: number;
}

export interface ChangeLogStore {
  /** The number of the last entry committed (strongly consistent). */
  head(): Promise<number>;
  /** The head as the listing's caches follow it (eventually consistent): its number and recent index changes. */
  recent(): Promise<ChangeHead>;
  /** The stored states of these legs (strongly consistent). */
  states(ids: readonly string[]): Promise<Map<string, LegState>>;
  /** Commits a group at `at` (epoch ms): false when the head or a state changed since it was read. */
  append(group: LogGroup, at: number): Promise<boolean>;
  /** The number of the last entry committed before `instant` (epoch ms), 0 when no such entry is kept. */
  seqBefore(instant: number): Promise<number>;
  /** The index changes of entries `from` to `to` (inclusive), in order, undefined where one is missing (expired). */
  indexChanges(from: number, to: number): Promise<(ChangeSet | undefined)[]>;
  /** Entries `from` to `to` (inclusive) in order, undefined where one is missing (expired). */
  entries(from: number, to: number): Promise<(StoredEntry | undefined)[]>;
  /**
   * Up to `limit` legs the unfiltered listing lists at `now`, in the `listedLegs` index's order, after
   * the position `afterKey` (a leg's `ls`), hand-made puts not yet indexed included; `next` is the
   * position to go on after (it may come with fewer legs: the Scan is capped), undefined when done.
   */
  listed(afterKey: string | undefined, limit: number, now: number, stale?: StaleSources): Promise<{ legs: EmptyLeg[]; next: string | undefined; facts?: (LegFacts | undefined)[] }>;
  /** Writes a leg's derived attributes if its item is still `image`: false when it changed since (src/changes/store-parts/reindex.ts). */
  reindex(id: string, image: Readonly<Record<string, unknown>>, repair: IndexRepair): Promise<boolean>;
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
  const reason = type === 'withdrawn' ? { reason: (typeof item.w === 'string' ? CODE_REASON[item.w] : undefined) ?? 'unlisted' } : {};
  const facts = factsOfStored(item.p);
  return { seq: item.q, type, id: item.l, changedAt: new Date(item.a).toISOString(), committedAt: item.a, leg, ...reason, ...(leg && facts ? { facts } : {}) };
}

const withdrawnReason = (reason: WithdrawReason | undefined) => (reason === undefined ? {} : { w: REASON_CODE[reason] });

export function createChangeLogStore(client: DynamoDBDocumentClient, tableName: string): ChangeLogStore {
  /** The index pages holding entries `seqs`, by id. */
  async function readPages(seqs: readonly number[], consistent: boolean): Promise<Map<string, Record<string, unknown>>> {
    const ids = [...new Set(seqs.map(pageId))];
    const pages = new Map<string, Record<string, unknown>>();
    for (let i = 0; i < ids.length; i += 100) {
      const got = await batchGet(client, tableName, ids.slice(i, i + 100).map((id) => ({ id })), MAX_BATCH_GET_ATTEMPTS, { consistent });
      if (got.unprocessed.length > 0) throw new Error('The change log pages could not be read (unprocessed keys)');
      for (const item of got.items) pages.set(String(item.id), item);
    }
    return pages;
  }

  async function readHead(consistent: boolean): Promise<ChangeHead> {
    const out = await client.send(new GetCommand({ TableName: tableName, Key: { id: HEAD_ID }, ConsistentRead: consistent }));
    const q: unknown = out.Item?.q;
    return typeof q === 'number' ? { version: q, recent: decodeRecent(out.Item?.r) } : { version: 0, recent: [] };
  }

  return {
    async head() {
      return (await readHead(true)).version;
    },

    recent() {
      return readHead(false);
    },

    reindex: (id, image, repair) => reindexLeg(client, tableName, id, image, repair),

    async seqBefore(instant) {
      // Commit instants grow with the number: step back from the head, then bisect.
      const committedAt = async (q: number): Promise<number> => {
        const out = await client.send(new GetCommand({ TableName: tableName, Key: { id: entryId(q) }, ProjectionExpression: 'a', ConsistentRead: true }));
        return typeof out.Item?.a === 'number' ? out.Item.a : Number.NEGATIVE_INFINITY;
      };
      let hi = (await readHead(true)).version;
      if (hi === 0 || (await committedAt(hi)) < instant) return hi;
      let step = 1;
      let lo = Math.max(0, hi - step);
      while (lo > 0 && (await committedAt(lo)) >= instant) {
        hi = lo;
        step *= 2;
        lo = Math.max(0, hi - step);
      }
      // a(lo) < instant (or lo = 0), a(hi) >= instant
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if ((await committedAt(mid)) < instant) lo = mid;
        else hi = mid;
      }
      return lo;
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
            ...(typeof item.d === 'string' ? { kept: keptFactsOf(item) } : {}),
          });
        }
      }
      return found;
    },

    async append(group, at) {
      const { version: head, recent } = await readHead(true);
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
            ...(e.reason === undefined ? {} : { w: REASON_CODE[e.reason] }),
            ...(e.leg === null || e.facts === undefined ? {} : { p: storedFacts(e.facts) }),
            ttl,
          },
          ConditionExpression: 'attribute_not_exists(id)',
        },
      }));
      // A state carries the record its last entry gave (`r`, compressed: the state stays within one
      // write unit): its stream is what the watches' matcher reads (src/changes/log-stream.ts).
      const shown = new Map(group.entries.map((e) => [e.id, e.leg]));
      const reasons = new Map(group.entries.map((e) => [e.id, e.reason]));
      const facts = new Map(group.entries.map((e) => [e.id, e.facts]));
      // A listed leg's state is in the listedLegs index too (src/changes/store-parts/initial-listing.ts).
      const indexed = new Map(group.entries.map((e) => [e.id, e.index]));
      const states = [...group.states].map(([id, { next, prior }]) => ({
        Put: {
          TableName: tableName,
          Item: {
            id: `${STATE_PREFIX}${id}`,
            n: next.sequenceNumber,
            ...(next.changedAt === undefined ? {} : { t: next.changedAt }),
            ...(next.digest === null
              ? { ttl, ...withdrawnReason(reasons.get(id)) }
              : {
                  d: next.digest,
                  r: packRecord(shown.get(id) ?? null),
                  ...stateListing(indexed.get(id)),
                  ...stateFacts(indexed.get(id)),
                  ...(facts.get(id) ? { p: storedFacts(facts.get(id)!) } : {}),
                }),
          },
          ...(prior === undefined
            ? { ConditionExpression: 'attribute_not_exists(id)' }
            : { ConditionExpression: 'n = :n', ExpressionAttributeValues: { ':n': prior.sequenceNumber } }),
        },
      }));
      const pages = new Map<string, { names: Record<string, string>; values: Record<string, unknown> }>();
      group.entries.forEach((e, i) => {
        const q = head + 1 + i;
        const page = pages.get(pageId(q)) ?? { names: { '#ttl': 'ttl' }, values: { ':ttl': ttl } };
        page.names[`#c${q}`] = `c${q}`;
        page.values[`:c${q}`] = recentCode(q, e).slice(1);
        pages.set(pageId(q), page);
      });
      const pageUpdates = [...pages].map(([id, { names, values }]) => ({
        Update: {
          TableName: tableName,
          Key: { id },
          UpdateExpression: `SET ${Object.keys(names).map((n) => `${n} = :${n.slice(1)}`).join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      }));
      const seq = head + group.entries.length;
      const headPut = {
        Put: {
          TableName: tableName,
          Item: { id: HEAD_ID, q: seq, a: at, r: trimRecent([...recent.map(codeOf), ...group.entries.map((e, i) => recentCode(head + 1 + i, e))]) },
          ...(head === 0 ? { ConditionExpression: 'attribute_not_exists(id) OR q = :q' } : { ConditionExpression: 'q = :q' }),
          ExpressionAttributeValues: { ':q': head },
        },
      };
      try {
        await client.send(new TransactWriteCommand({ TransactItems: [...entries, ...states, ...pageUpdates, headPut] }));
        return true;
      } catch (err) {
        const name = err instanceof Error ? err.name : '';
        if (name === 'TransactionCanceledException' || name === 'TransactionConflictException') return false;
        throw err;
      }
    },

    async indexChanges(from, to) {
      if (to < from) return [];
      const seqs = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      const entryCode = (pages: ReadonlyMap<string, Record<string, unknown>>, q: number): unknown => pages.get(pageId(q))?.[`c${q}`];
      // Eventually consistent first (half the read units); the pages a stale replica lacked, strongly consistent.
      const pages = await readPages(seqs, false);
      const stale = seqs.filter((q) => !Array.isArray(entryCode(pages, q)));
      if (stale.length > 0) for (const [id, item] of await readPages(stale, true)) pages.set(id, item);
      return seqs.map((q) => {
        const code = entryCode(pages, q);
        return Array.isArray(code) ? changeSetOf([q, ...(code as unknown[])]) : undefined;
      });
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

    listed: (afterKey, limit, now, stale) => scanListing(client, tableName, STATE_PREFIX, afterKey, limit, now, stale),
  };
}
