import { BatchGetItemCommand, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand as DocBatchGetCommand,
  GetCommand as DocGetCommand,
  QueryCommand as DocQueryCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { SNAPSHOT_PART_PREFIX } from '../src/snapshot/snapshot.js';
import { LEGS_INDEX } from '../src/tables.js';
import { CHANGE_LOG_ID_PREFIXES } from '../src/changes/store.js';
import { itemSize, wireItemSize, type WireValue } from './capacity.js';

/**
 * A recorder on the functions' own DynamoDB client: it asks DynamoDB for the capacity each read
 * consumed (ReturnConsumedCapacity=TOTAL on Query, BatchGetItem and GetItem) and records, per
 * call, what came back: the consumed read units as DynamoDB reports them (measured, not
 * estimated), the items and their size, and for a Query its bucket and input.
 *
 * It wraps the client's `send`, where every command passes. A document-client
 * command (lib-dynamodb) is in plain-object form, in and out; a client command (client-dynamodb) is
 * in wire form (`{ S: ... }`): the call records which. It keeps only references while the handler
 * runs; sizes are computed by `summarizeCall` afterwards, outside the timed section.
 */
export type Operation = 'Query' | 'BatchGetItem' | 'GetItem';

export interface RawCall {
  operation: Operation;
  /** Plain-object form (document client) rather than wire form. */
  document: boolean;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  ms: number;
}

export interface RecordedCall {
  operation: Operation;
  tableName: string | undefined;
  indexName: string | undefined;
  /** `:b` of a Query of the listing index: the bucket it read. */
  bucket: string | undefined;
  /** The buckets of the listing snapshot's parts a BatchGetItem read (src/snapshot/snapshot.ts). */
  snapshotBuckets: string[];
  /** A BatchGetItem of the change log's items (ids with one of CHANGE_LOG_ID_PREFIXES). */
  changeLogItems: boolean;
  /** The id a GetItem read (the change log's head, the snapshot's manifest). */
  getId: string | undefined;
  /** The Query's input (plain-object form when `document`), to replay it elsewhere. */
  queryInput: Record<string, unknown> | undefined;
  document: boolean;
  items: number;
  /** DynamoDB size of the items returned. */
  itemBytes: number;
  readUnits: number;
  ms: number;
}

export interface CallRecorder {
  /** The calls recorded since the last reset, and a fresh list. */
  reset(): RawCall[];
}

/** The commands recorded: which operation each is, and whether it is the document client's. */
const COMMANDS: readonly { type: abstract new (...args: never[]) => object; operation: Operation; document: boolean }[] = [
  { type: DocQueryCommand, operation: 'Query', document: true },
  { type: DocBatchGetCommand, operation: 'BatchGetItem', document: true },
  { type: DocGetCommand, operation: 'GetItem', document: true },
  { type: QueryCommand, operation: 'Query', document: false },
  { type: BatchGetItemCommand, operation: 'BatchGetItem', document: false },
  { type: GetItemCommand, operation: 'GetItem', document: false },
];

type WireItem = Record<string, WireValue>;

/** The string value of an expression attribute value, in either form. */
export function stringValue(value: unknown, document: boolean): string | undefined {
  if (document) return typeof value === 'string' ? value : undefined;
  const s = (value as { S?: unknown } | undefined)?.S;
  return typeof s === 'string' ? s : undefined;
}

/** Sum of `CapacityUnits` over a ConsumedCapacity object or list. */
export function consumedUnits(consumed: unknown): number {
  const list: unknown[] = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce<number>((sum, c) => sum + ((c as { CapacityUnits?: number }).CapacityUnits ?? 0), 0);
}

/** True for the id of a change log item (src/changes/store.ts). */
export function isChangeLogId(id: unknown): boolean {
  return typeof id === 'string' && CHANGE_LOG_ID_PREFIXES.some((prefix) => id.startsWith(prefix));
}

export function summarizeCall(call: RawCall): RecordedCall {
  const { operation, input, output } = call;
  let items: WireItem[] = [];
  if (operation === 'Query') items = (output.Items as WireItem[] | undefined) ?? [];
  else if (operation === 'GetItem') items = output.Item ? [output.Item as WireItem] : [];
  else for (const list of Object.values((output.Responses as Record<string, WireItem[]> | undefined) ?? {})) items.push(...list);
  const values = input.ExpressionAttributeValues as Record<string, unknown> | undefined;
  const bucket = operation === 'Query' && input.IndexName === LEGS_INDEX.indexName ? stringValue(values?.[':b'], call.document) : undefined;
  const snapshotBuckets: string[] = [];
  let changeLogItems = false;
  if (operation === 'BatchGetItem') {
    for (const request of Object.values((input.RequestItems as Record<string, { Keys?: Record<string, unknown>[] }> | undefined) ?? {})) {
      for (const key of request.Keys ?? []) {
        const id = call.document ? key.id : (key.id as { S?: unknown } | undefined)?.S;
        if (typeof id === 'string' && id.startsWith(SNAPSHOT_PART_PREFIX)) snapshotBuckets.push(id.slice(SNAPSHOT_PART_PREFIX.length).split('#')[0]!);
        if (isChangeLogId(id)) changeLogItems = true;
      }
    }
  }
  const size = call.document ? itemSize : wireItemSize;
  return {
    operation,
    tableName:
      typeof input.TableName === 'string' ? input.TableName : Object.keys((input.RequestItems as Record<string, unknown>) ?? {})[0],
    indexName: typeof input.IndexName === 'string' ? input.IndexName : undefined,
    bucket,
    snapshotBuckets,
    changeLogItems,
    getId: operation === 'GetItem' ? stringValue((input.Key as Record<string, unknown> | undefined)?.id, call.document) : undefined,
    queryInput: operation === 'Query' ? input : undefined,
    document: call.document,
    items: items.length,
    itemBytes: items.reduce((sum, item) => sum + size(item), 0),
    readUnits: consumedUnits(output.ConsumedCapacity),
    ms: call.ms,
  };
}

type Send = (command: object, options?: unknown) => Promise<unknown>;

export function recordCalls(client: Pick<DynamoDBDocumentClient, 'send'>): CallRecorder {
  let calls: RawCall[] = [];
  const send = (client.send as Send).bind(client);
  const recorded: Send = async (command, options) => {
    const kind = COMMANDS.find((c) => command instanceof c.type);
    if (kind === undefined) return send(command, options);
    const input = (command as { input: Record<string, unknown> }).input;
    input.ReturnConsumedCapacity = 'TOTAL';
    const started = performance.now();
    const output = (await send(command, options)) as Record<string, unknown>;
    const ms = performance.now() - started;
    calls.push({ operation: kind.operation, document: kind.document, input: { ...input }, output, ms });
    return output;
  };
  (client as { send: Send }).send = recorded;
  return {
    reset() {
      const out = calls;
      calls = [];
      return out;
    },
  };
}
