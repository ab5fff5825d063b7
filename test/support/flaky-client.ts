import { BatchWriteCommand, type BatchWriteCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * A DynamoDB client that passes every command to a real one (DynamoDB Local) but can make
 * BatchWriteItem misbehave the way DynamoDB does: write only part of a batch and hand the rest back
 * as UnprocessedItems, or fail outright from the Nth request on. Counts the BatchWriteItem requests.
 */
export interface FlakyOptions {
  /** Of each batch, write only this many items and return the rest as unprocessed (first attempts only). */
  processOnly?: number;
  /** Throw on this BatchWriteItem request (1-based) and every later one. */
  failFrom?: number;
}

export interface FlakyClient {
  client: DynamoDBDocumentClient;
  batchWrites: number;
  unprocessedReturned: number;
}

type Put = { PutRequest: { Item: Record<string, unknown> } };

export function flakyClient(real: DynamoDBDocumentClient, options: FlakyOptions): FlakyClient {
  const state: FlakyClient = { client: real, batchWrites: 0, unprocessedReturned: 0 };
  const seen = new Set<string>();
  const send = async (command: unknown): Promise<unknown> => {
    if (!(command instanceof BatchWriteCommand)) return real.send(command as never);
    state.batchWrites += 1;
    if (options.failFrom !== undefined && state.batchWrites >= options.failFrom) {
      throw Object.assign(new Error('simulated network failure'), { name: 'TimeoutError' });
    }
    const input = command.input;
    const [table, requests] = Object.entries(input.RequestItems ?? {})[0] as [string, Put[]];
    if (options.processOnly === undefined) return real.send(command);
    // Only batches seen for the first time are cut short, so retries make progress.
    const fresh = requests.filter((r) => !seen.has(String(r.PutRequest.Item.id)));
    for (const r of requests) seen.add(String(r.PutRequest.Item.id));
    const now = fresh.length === requests.length ? requests.slice(0, options.processOnly) : requests;
    const later = fresh.length === requests.length ? requests.slice(options.processOnly) : [];
    if (now.length > 0) await real.send(new BatchWriteCommand({ RequestItems: { [table]: now } }));
    state.unprocessedReturned += later.length;
    return { UnprocessedItems: later.length > 0 ? { [table]: later } : {}, $metadata: {} } satisfies BatchWriteCommandOutput;
  };
  state.client = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'send') return send;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return state;
}
