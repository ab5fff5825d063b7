import { describe, expect, it } from '@jest/globals';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { createStreamPoller } from '../../../local/stream-poller.js';

/**
 * The local stream poller (what the event source mapping does on AWS) over a stream that refuses
 * its first iterator as trimmed, as DynamoDB Local does for an iterator taken before a shard's
 * first record: the shard is read again from its checkpoint, every record handled once.
 */
const STREAM = 'arn:aws:dynamodb:local:000000000000:table/legs/stream/1';
const record = (seq: string) => ({ eventID: seq, eventName: 'INSERT' as const, dynamodb: { SequenceNumber: seq, Keys: { id: { S: seq } } } });

function setup() {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
  const streams = new DynamoDBStreamsClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  mockClient(client).on(DescribeTableCommand).resolves({ Table: { LatestStreamArn: STREAM } });
  const s = mockClient(streams);
  s.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 'shard-1' }] } });
  s.on(GetShardIteratorCommand).resolvesOnce({ ShardIterator: 'taken-before-the-first-record' }).resolves({ ShardIterator: 'fresh' });
  s.on(GetRecordsCommand, { ShardIterator: 'taken-before-the-first-record' }).rejects(
    new TrimmedDataAccessException({ message: 'The operation attempted to read past the oldest stream record in a shard.', $metadata: {} }),
  );
  s.on(GetRecordsCommand, { ShardIterator: 'fresh' }).resolves({ Records: [record('100'), record('200')], NextShardIterator: 'next' });
  s.on(GetRecordsCommand, { ShardIterator: 'next' }).resolves({ Records: [], NextShardIterator: 'next' });
  const handled: string[] = [];
  const poller = createStreamPoller({
    streams,
    client,
    tableName: 'legs',
    handle: (event: DynamoDBStreamEvent) => {
      for (const r of event.Records) handled.push(r.dynamodb!.SequenceNumber!);
      return Promise.resolve();
    },
  });
  return { poller, handled, s };
}

describe('local stream poller: an iterator refused as trimmed', () => {
  it('takes a new iterator and handles every record once; drain() ends only once the shard is read', async () => {
    const { poller, handled, s } = setup();
    await poller.drain();
    expect(handled).toEqual(['100', '200']);
    expect(s.commandCalls(GetShardIteratorCommand)).toHaveLength(2);
    expect(poller.checkpoints.get('shard-1')).toBe('200');
  });
});
