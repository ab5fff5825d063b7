import { GetCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backoffDelay, sleep } from '../../aws/backoff.js';
import { ENQUIRIES_BY_CLIENT_INDEX, ENQUIRIES_BY_SELLER_INDEX, OPEN_ENQUIRIES_BY_LEG_INDEX } from '../../tables.js';
import type { EnquiryRecord, EnquiryStatus } from '../domain/enquiry.js';
import { deleteAfter, type Move, statusAfter } from '../domain/lifecycle.js';
import type { AnsweredAnswer } from '../domain/enquiry.js';

/**
 * The enquiries table (docs/enquiries.md, "Storage"): an enquiry's item carries its record and the
 * keys of the indexes it is in: `bc`/`sc` and `bs` (its client's and its seller's lists, newest
 * first), `ol` (its leg, while open). A client's open count (`count#<client>`) changes in the same
 * transaction as each creation and close, so no interleaving passes the limit.
 */
export interface EnquiryTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

const itemKey = (id: string) => ({ pk: `enq#${id}` });
const countKey = (clientId: string) => ({ pk: `count#${clientId}` });
/** The lists' sort key: newest first is a reverse Query. */
export const listKeyOf = (r: Pick<EnquiryRecord, 'createdAt' | 'id'>) => `${r.createdAt}#${r.id}`;

function itemOf(r: EnquiryRecord): Record<string, unknown> {
  return { ...itemKey(r.id), ...r, bc: r.clientId, sc: r.sellerClientId, bs: listKeyOf(r), ...(r.status === 'open' ? { ol: r.legId } : {}) };
}

const RECORD_FIELDS = ['id', 'clientId', 'legId', 'source', 'sellerClientId', 'status', 'createdAt', 'expiresAt', 'passengers', 'contact', 'message', 'reference', 'notifyUrl', 'secret', 'answer', 'closedAt', 'expiredReason'] as const;

export function recordOf(item: Record<string, unknown>): EnquiryRecord {
  const r = Object.fromEntries(RECORD_FIELDS.map((k) => [k, item[k] ?? null])) as unknown as EnquiryRecord;
  return r;
}

/** The outcome of a counted transaction: done, or the item at `refusedAt` refused it (a condition failed). */
export type Outcome = { kind: 'done' } | { kind: 'refused'; index: number };

const TRANSACTION_ATTEMPTS = 20;

/** A transaction, tried again while other writers cancel it (TransactionConflict); a failed condition is answered, not thrown. */
export async function transact(t: EnquiryTable, items: TransactItems): Promise<Outcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      await t.client.send(new TransactWriteCommand({ TransactItems: items }));
      return { kind: 'done' };
    } catch (err) {
      const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
      const index = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (index >= 0) return { kind: 'refused', index };
      const conflict = (err as Error).name === 'TransactionConflictException' || reasons.some((r) => r.Code === 'TransactionConflict');
      if (!conflict || attempt >= TRANSACTION_ATTEMPTS) throw err;
      await sleep(backoffDelay(Math.min(attempt - 1, 6), 10, 400));
    }
  }
}

/**
 * Stores a new enquiry, its client's count raised (refused at index 0 when it holds `maxOpen`), with
 * the `extra` items (the idempotency key's answer) in the same transaction.
 */
export function createEnquiry(t: EnquiryTable, record: EnquiryRecord, maxOpen: number, extra: TransactItems): Promise<Outcome> {
  return transact(t, [
    {
      Update: {
        TableName: t.tableName,
        Key: countKey(record.clientId),
        UpdateExpression: 'ADD n :one',
        ConditionExpression: 'attribute_not_exists(n) OR n < :max',
        ExpressionAttributeValues: { ':one': 1, ':max': maxOpen },
      },
    },
    { Put: { TableName: t.tableName, Item: itemOf(record), ConditionExpression: 'attribute_not_exists(pk)' } },
    ...extra,
  ]);
}

export async function getEnquiry(t: EnquiryTable, id: string): Promise<EnquiryRecord | undefined> {
  const item = (await t.client.send(new GetCommand({ TableName: t.tableName, Key: itemKey(id), ConsistentRead: true }))).Item;
  return item === undefined || typeof item.id !== 'string' ? undefined : recordOf(item);
}

/** The open count of a client (0 before its first enquiry). */
export async function openCount(t: EnquiryTable, clientId: string): Promise<number> {
  const item = (await t.client.send(new GetCommand({ TableName: t.tableName, Key: countKey(clientId), ConsistentRead: true }))).Item;
  return typeof item?.n === 'number' ? item.n : 0;
}

/** A move applied to an open enquiry: 'done', or 'not-open' when it was no longer open (its condition failed). */
export async function closeEnquiry(t: EnquiryTable, record: EnquiryRecord, move: Move, nowMs: number, answer: AnsweredAnswer | null): Promise<'done' | 'not-open'> {
  const closedAt = new Date(nowMs).toISOString();
  const outcome = await transact(t, [
    {
      Update: {
        TableName: t.tableName,
        Key: itemKey(record.id),
        UpdateExpression: 'SET #s = :to, closedAt = :at, answer = :answer, expiredReason = :reason, #ttl = :ttl REMOVE ol',
        ConditionExpression: '#s = :open',
        ExpressionAttributeNames: { '#s': 'status', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':to': statusAfter(move),
          ':open': 'open' satisfies EnquiryStatus,
          ':at': closedAt,
          ':answer': answer,
          ':reason': move.kind === 'expire' ? move.reason : null,
          ':ttl': deleteAfter(nowMs),
        },
      },
    },
    { Update: { TableName: t.tableName, Key: countKey(record.clientId), UpdateExpression: 'ADD n :minus', ExpressionAttributeValues: { ':minus': -1 } } },
  ]);
  return outcome.kind === 'done' ? 'done' : 'not-open';
}

export interface Page {
  records: EnquiryRecord[];
  /** The key to go on from; undefined after the last. */
  next: Record<string, unknown> | undefined;
}

/** Reads at most this many index pages for one answer (a `status` filter that keeps few). */
const MAX_READS = 5;

/** One page of a client's (`role` broker) or seller's enquiries, newest first, of `status` if given. */
export async function listEnquiries(
  t: EnquiryTable,
  query: { role: 'broker' | 'seller'; clientId: string; status: EnquiryStatus | undefined; size: number; after: Record<string, unknown> | undefined },
): Promise<Page> {
  const index = query.role === 'broker' ? ENQUIRIES_BY_CLIENT_INDEX : ENQUIRIES_BY_SELLER_INDEX;
  const records: EnquiryRecord[] = [];
  let start = query.after;
  for (let read = 0; read < MAX_READS && records.length < query.size; read++) {
    const out = await t.client.send(
      new QueryCommand({
        TableName: t.tableName,
        IndexName: index.indexName,
        KeyConditionExpression: '#p = :c',
        ...(query.status !== undefined ? { FilterExpression: '#s = :s' } : {}),
        ExpressionAttributeNames: { '#p': index.partitionKey, ...(query.status !== undefined ? { '#s': 'status' } : {}) },
        ExpressionAttributeValues: { ':c': query.clientId, ...(query.status !== undefined ? { ':s': query.status } : {}) },
        ScanIndexForward: false,
        Limit: query.size - records.length,
        ...(start !== undefined ? { ExclusiveStartKey: start } : {}),
      }),
    );
    records.push(...(out.Items ?? []).map(recordOf));
    start = out.LastEvaluatedKey;
    if (start === undefined) break;
  }
  return { records, next: start };
}

/** The ids of a leg's open enquiries, at most `limit`, and whether more remain. */
export async function openEnquiryIdsOfLeg(t: EnquiryTable, legId: string, limit: number): Promise<string[]> {
  const out = await t.client.send(
    new QueryCommand({
      TableName: t.tableName,
      IndexName: OPEN_ENQUIRIES_BY_LEG_INDEX.indexName,
      KeyConditionExpression: '#l = :l',
      ExpressionAttributeNames: { '#l': OPEN_ENQUIRIES_BY_LEG_INDEX.partitionKey },
      ExpressionAttributeValues: { ':l': legId },
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((i) => String(i.pk).slice('enq#'.length));
}
