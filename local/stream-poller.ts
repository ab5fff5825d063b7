import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  ExpiredIteratorException,
  GetRecordsCommand,
  TrimmedDataAccessException,
  GetShardIteratorCommand,
  type DynamoDBStreamsClient,
  type _Record as SdkStreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';

/**
 * What the event source mapping does on AWS, for DynamoDB Local's stream: reads every shard in
 * order (a parent before its children), hands each batch of records to the consumer's handler as a
 * Lambda DynamoDBStreamEvent, and moves a shard's checkpoint past a batch only when the handler
 * succeeded. A failed batch is read again from the checkpoint and retried, up to `maxAttempts`,
 * then given to `onFailure` and skipped (the on-failure destination on AWS). Checkpoints live in
 * `checkpoints` (shard id to the last sequence number handled), so a new poller given the same map
 * resumes where a stopped one left off.
 */
export type StreamHandler = (event: DynamoDBStreamEvent) => Promise<unknown>;

export interface StreamPollerOptions {
  streams: DynamoDBStreamsClient;
  client: DynamoDBDocumentClient;
  tableName: string;
  handle: StreamHandler;
  /** Records per batch (the mapping's BatchSize). */
  batchSize?: number;
  /** Pause between polls when a pass found nothing, ms. */
  idleMs?: number;
  maxAttempts?: number;
  checkpoints?: Map<string, string>;
  /**
   * Where a shard without a checkpoint starts: its oldest record (default, as the stack's mapping)
   * or, for the shards there at the first poll only, after its newest (a shard found later starts at its oldest).
   */
  startAt?: 'TRIM_HORIZON' | 'LATEST';
  onFailure?: (records: readonly DynamoDBRecord[], error: unknown) => void;
}

export interface StreamPoller {
  /** Polls until stopped. */
  start(): void;
  /** Stops after the batch in hand (a stop in the middle of a batch leaves its checkpoint where it was). */
  stop(): Promise<void>;
  /** Resolves once a pass over every shard finds no record left to handle. */
  drain(): Promise<void>;
  readonly checkpoints: Map<string, string>;
}

interface ShardState {
  parent: string | undefined;
  /** Where it starts without a checkpoint. */
  start: 'TRIM_HORIZON' | 'LATEST';
  iterator: string | undefined;
  closed: boolean;
}

/** A stream record of the SDK as Lambda delivers it (the creation time in epoch seconds). */
export function toLambdaRecord(record: SdkStreamRecord, eventSourceARN: string): DynamoDBRecord {
  const d = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: record.eventSource,
    awsRegion: record.awsRegion,
    eventSourceARN,
    dynamodb: {
      ...(d.ApproximateCreationDateTime ? { ApproximateCreationDateTime: Math.floor(d.ApproximateCreationDateTime.getTime() / 1000) } : {}),
      Keys: d.Keys as NonNullable<DynamoDBRecord['dynamodb']>['Keys'],
      ...(d.NewImage ? { NewImage: d.NewImage as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'] } : {}),
      ...(d.OldImage ? { OldImage: d.OldImage as NonNullable<DynamoDBRecord['dynamodb']>['OldImage'] } : {}),
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType,
    },
  };
}

export function createStreamPoller(options: StreamPollerOptions): StreamPoller {
  const { streams, tableName, handle } = options;
  const batchSize = options.batchSize ?? 100;
  const idleMs = options.idleMs ?? 200;
  const maxAttempts = options.maxAttempts ?? 3;
  const checkpoints = options.checkpoints ?? new Map<string, string>();
  const shards = new Map<string, ShardState>();
  let streamArn: string | undefined;
  let running = false;
  let loop: Promise<void> | undefined;
  let pass: Promise<number> | undefined;
  const attempts = new Map<string, number>();

  async function arn(): Promise<string> {
    if (streamArn) return streamArn;
    const out = await options.client.send(new DescribeTableCommand({ TableName: tableName }));
    const latest = out.Table?.LatestStreamArn;
    if (!latest) throw new Error(`Table ${tableName} has no stream`);
    return (streamArn = latest);
  }

  async function refreshShards(): Promise<void> {
    const StreamArn = await arn();
    const start = shards.size === 0 ? (options.startAt ?? 'TRIM_HORIZON') : 'TRIM_HORIZON';
    let ExclusiveStartShardId: string | undefined;
    do {
      const out = await streams.send(new DescribeStreamCommand({ StreamArn, ExclusiveStartShardId }));
      for (const shard of out.StreamDescription?.Shards ?? []) {
        if (!shard.ShardId || shards.has(shard.ShardId)) continue;
        shards.set(shard.ShardId, { parent: shard.ParentShardId, start, iterator: undefined, closed: false });
      }
      ExclusiveStartShardId = out.StreamDescription?.LastEvaluatedShardId;
    } while (ExclusiveStartShardId);
  }

  async function iteratorFor(shardId: string, state: ShardState): Promise<string | undefined> {
    const after = checkpoints.get(shardId);
    const out = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: await arn(),
        ShardId: shardId,
        ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: state.start }),
      }),
    );
    return out.ShardIterator;
  }

  /** One batch of one shard; the number of records handled. */
  async function pollShard(shardId: string, state: ShardState): Promise<number> {
    if (state.iterator === undefined) {
      state.iterator = await iteratorFor(shardId, state);
      // Read again without a checkpoint (a failed batch, an expired iterator), a shard starts at its oldest: nothing is skipped.
      state.start = 'TRIM_HORIZON';
    }
    if (!state.iterator) {
      state.closed = true;
      return 0;
    }
    let out;
    try {
      out = await streams.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: batchSize }));
    } catch (err) {
      if (!(err instanceof ExpiredIteratorException) && !(err instanceof TrimmedDataAccessException)) throw err;
      state.iterator = undefined;
      // DynamoDB Local can refuse an iterator taken before a shard's first record as trimmed: the
      // shard is read again from its checkpoint, and the pass counts as failed, not as drained.
      if (err instanceof TrimmedDataAccessException) throw err;
      return 0;
    }
    const records = out.Records ?? [];
    if (records.length === 0) {
      state.iterator = out.NextShardIterator;
      if (!out.NextShardIterator) state.closed = true;
      return 0;
    }
    const event = { Records: records.map((r) => toLambdaRecord(r, streamArn!)) };
    try {
      await handle(event);
    } catch (err) {
      const n = (attempts.get(shardId) ?? 0) + 1;
      // Read the batch again from the checkpoint next time.
      state.iterator = undefined;
      if (n < maxAttempts) {
        attempts.set(shardId, n);
        throw err;
      }
      attempts.delete(shardId);
      options.onFailure?.(event.Records, err);
    }
    attempts.delete(shardId);
    const last = records.at(-1)?.dynamodb?.SequenceNumber;
    if (last) checkpoints.set(shardId, last);
    state.iterator = out.NextShardIterator;
    if (!out.NextShardIterator) state.closed = true;
    return records.length;
  }

  /** One pass over the open shards whose parent is done; the records handled. */
  async function pollOnce(): Promise<number> {
    await refreshShards();
    let handled = 0;
    for (const [id, state] of shards) {
      if (state.closed) continue;
      const parent = state.parent === undefined ? undefined : shards.get(state.parent);
      if (parent && !parent.closed) continue;
      handled += await pollShard(id, state);
    }
    return handled;
  }

  function onePass(): Promise<number> {
    pass ??= pollOnce().finally(() => {
      pass = undefined;
    });
    return pass;
  }

  return {
    checkpoints,
    start() {
      if (running) return;
      running = true;
      loop = (async () => {
        while (running) {
          let handled = 0;
          try {
            handled = await onePass();
          } catch {
            // Retried on the next pass (the batch is read again from its checkpoint).
          }
          if (handled === 0 && running) await new Promise((r) => setTimeout(r, idleMs));
        }
      })();
    },
    async stop() {
      running = false;
      await loop;
      await pass?.catch(() => undefined);
    },
    async drain() {
      for (let failures = 0; ; ) {
        try {
          if ((await onePass()) === 0) return;
        } catch (err) {
          if (++failures >= maxAttempts * 4) throw err;
        }
      }
    },
  };
}
