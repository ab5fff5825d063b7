import { describe, expect, it } from '@jest/globals';
import { STREAM_MAPPING, STREAM_READERS } from '../../lib/constructs/change-stream.js';
import { ENTRY_PREFIX, HEAD_ID, PAGE_PREFIX, STATE_PREFIX } from '../../src/changes/store.js';
import { SOURCES_ID } from '../../src/sources/store.js';
import { SWEEP_ID } from '../../src/sweep/store.js';
import { REINDEX_ATTRIBUTES } from '../../src/changes/store-parts/reindex.js';
import { FUNCTIONS } from '../../src/function-table.js';
import { ENQUIRIES_TABLE, KEYS_TABLE, WATCH_DELIVERIES_TABLE, WATCHES_TABLE, type TableDefinition } from '../../src/tables.js';
import { onlyResource, props, resourcesOfType, synthesize, type CfnResource } from './helpers.js';

/**
 * The legs table's stream and its two readers, both stages: the stream with both images, each
 * reader's event source mapping (from the oldest record, bisecting a failing batch, bounded retries
 * and record age, an SQS on-failure destination of its own; the matcher's filtered to the change
 * log's state records), each queue (encrypted, TLS only) and its alarm to the alarm topic, and the
 * least privilege of the consumer (the change log's), of the watches' matcher and of the feed's function.
 */
const { templates } = synthesize({ 'aws:cdk:bundling-stacks': [] });

type Statement = { Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, string[]>> };
function statementsOf(template: (typeof templates)['prod'], logicalId: string): Statement[] {
  const fn = resourcesOfType(template, 'AWS::Lambda::Function')[logicalId]!;
  const roleId = ((props(fn).Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'])[0];
  const policies = Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).filter((p: CfnResource) =>
    JSON.stringify(props(p).Roles).includes(roleId),
  );
  return policies.flatMap((p) => (props(p).PolicyDocument as { Statement: Statement[] }).Statement);
}
const actions = (s: Statement) => [s.Action].flat().sort();
const tableIdOf = (template: (typeof templates)['prod'], def: TableDefinition): string =>
  onlyResource(template, 'AWS::DynamoDB::Table', (r) => JSON.stringify(props(r).KeySchema).includes(`"AttributeName":"${def.partitionKey}","KeyType":"HASH"`) && JSON.stringify(props(r).KeySchema).includes(`"${def.sortKey ?? def.partitionKey}"`))[0];
/** The statements of `logicalId` on the table `tableId` (its ARN, not its stream's or an index's). */
const onTable = (statements: Statement[], tableId: string): Statement[] =>
  statements.filter((s) => JSON.stringify(s.Resource) === JSON.stringify({ 'Fn::GetAtt': [tableId, 'Arn'] }));
const isMapping = (id: string) => (r: CfnResource) => JSON.stringify(props(r).FunctionName) === JSON.stringify({ Ref: id });
const isFailureQueue = (_r: CfnResource, id: string) => id.startsWith('ChangesConsumerFailures');
const isMatcherFailureQueue = (_r: CfnResource, id: string) => id.startsWith('ChangesMatcherFailures');

describe.each(['sandbox', 'prod'] as const)('stage %s', (stage) => {
  const t = templates[stage];
  const onlyAttributes = (names: string[]) => ({ 'ForAllValues:StringEquals': { 'dynamodb:Attributes': names }, StringEqualsIfExists: { 'dynamodb:Select': ['SPECIFIC_ATTRIBUTES'] } });
  /** The keys table as the matcher and the delivery worker may read it: clients' items (keyedUntil) and key states by the indexes; no Scan, no hash, no write. */
  const expectClientReadsOnly = (all: Statement[]) => {
    const keysId = tableIdOf(t, KEYS_TABLE);
    const onKeys = all.filter((s) => JSON.stringify(s.Resource).includes(`"${keysId}"`));
    expect(onKeys.flatMap(actions).sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:Query']);
    expect(onTable(all, keysId).map((s) => s.Condition)).toEqual([
      { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['client#*'] }, ...onlyAttributes(['keyHash', 'keyedUntil']) },
    ]);
    const query = onKeys.find((s) => actions(s).includes('dynamodb:Query'))!;
    expect(JSON.stringify(query.Resource)).toContain('/index/byClient');
    expect(JSON.stringify(query.Resource)).toContain('/index/byKeyId');
    expect(query.Condition).toEqual(onlyAttributes(['keyId', 'clientId', 'status', 'graceUntil']));
  };

  it('least privilege: the delivery worker reads only clients\' items of the keys table (keyedUntil) and key states by the indexes, never a hash, no Scan', () => {
    const all = statementsOf(t, FUNCTIONS.deliverWebhooks.logicalId);
    expectClientReadsOnly(all);
    expect(all.flatMap(actions)).not.toContain('dynamodb:Scan');
  });

  it('the legs table has a stream of new and old images', () => {
    const [, table] = onlyResource(t, 'AWS::DynamoDB::Table', (r) => JSON.stringify(props(r).KeySchema).includes('"id"'));
    expect(props(table).StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  it('the consumer reads it from the oldest record, bisects a failing batch, retries a bounded number of times, then sends it to the queue', () => {
    const [, mapping] = onlyResource(t, 'AWS::Lambda::EventSourceMapping', isMapping(FUNCTIONS.consumeChanges.logicalId));
    const [queueId] = onlyResource(t, 'AWS::SQS::Queue', isFailureQueue);
    expect(props(mapping)).toMatchObject({
      FunctionName: { Ref: FUNCTIONS.consumeChanges.logicalId },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: STREAM_MAPPING.batchSize,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: STREAM_MAPPING.retryAttempts,
      MaximumRecordAgeInSeconds: STREAM_MAPPING.maxRecordAgeHours * 3600,
      ParallelizationFactor: 1,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
    expect(JSON.stringify(props(mapping).EventSourceArn)).toContain('StreamArn');
  });

  it('the on-failure queue is encrypted, refuses requests without TLS, and a message in it raises an alarm to the alarm topic', () => {
    const [queueId, queue] = onlyResource(t, 'AWS::SQS::Queue', isFailureQueue);
    expect(props(queue).SqsManagedSseEnabled).toBe(true);
    const policy = Object.values(resourcesOfType(t, 'AWS::SQS::QueuePolicy')).find((p) => JSON.stringify(props(p).Queues).includes(queueId));
    expect(JSON.stringify(policy)).toContain('aws:SecureTransport');
    const [, alarm] = onlyResource(t, 'AWS::CloudWatch::Alarm', (r) => String(props(r).AlarmName).endsWith('-ChangeConsumerFailed'));
    expect(props(alarm)).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1, Namespace: 'AWS/SQS' });
    const [topicId] = onlyResource(t, 'AWS::SNS::Topic');
    expect(props(alarm).AlarmActions).toEqual([{ Ref: topicId }]);
  });

  it('least privilege of the enquiries: their function writes items and queries the two lists, the consumer queries openByLeg and updates; no Scan, no other index', () => {
    const enquiriesId = tableIdOf(t, ENQUIRIES_TABLE);
    const on = (logicalId: string) => statementsOf(t, logicalId).filter((s) => JSON.stringify(s.Resource).includes(`"${enquiriesId}"`));
    const fn = on(FUNCTIONS.enquiries.logicalId);
    expect(onTable(fn, enquiriesId).flatMap(actions).sort()).toEqual(['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    const query = fn.find((s) => actions(s).includes('dynamodb:Query'))!;
    expect(JSON.stringify(query.Resource)).toContain('/index/byClient');
    expect(JSON.stringify(query.Resource)).toContain('/index/bySeller');
    expect(JSON.stringify(query.Resource)).not.toContain('/index/openByLeg');
    const consumer = on(FUNCTIONS.consumeChanges.logicalId);
    expect(onTable(consumer, enquiriesId).flatMap(actions).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    const expiry = consumer.find((s) => actions(s).includes('dynamodb:Query'))!;
    expect(JSON.stringify(expiry.Resource)).toContain('/index/openByLeg');
    for (const s of [...fn, ...consumer]) expect(actions(s)).not.toContain('dynamodb:Scan');
  });

  it("least privilege: the consumer reads the stream, reads and writes only the change log's items and a leg's derived attributes; the feed reads only the log, and scans only the listedLegs index", () => {
    const [legsId] = onlyResource(t, 'AWS::DynamoDB::Table', (r) => JSON.stringify(props(r).KeySchema).includes('"id"'));
    const all = statementsOf(t, FUNCTIONS.consumeChanges.logicalId);
    const consumer = [...onTable(all, legsId), ...all.filter((s) => JSON.stringify(s.Resource).includes('StreamArn'))];
    const onItems = consumer.find((s) => actions(s).includes('dynamodb:PutItem'))!;
    expect(actions(onItems)).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(onItems.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [HEAD_ID, `${ENTRY_PREFIX}*`, `${STATE_PREFIX}*`, `${PAGE_PREFIX}*`] },
    });
    // A leg's item: UpdateItem naming only its derived attributes and what they derive from (src/changes/store-parts/reindex.ts).
    const onLegs = onTable(all, legsId).filter((s) => s !== onItems);
    // And the sources registry, read with each batch (which sources are stale): GetItem of its one item.
    expect(onLegs.map((s) => [actions(s), s.Condition])).toEqual([
      [['dynamodb:UpdateItem'], { 'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...REINDEX_ATTRIBUTES] } }],
      [['dynamodb:GetItem'], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [SOURCES_ID] } }],
    ]);
    for (const forbidden of ['dynamodb:Scan', 'dynamodb:Query', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
      expect(consumer.flatMap(actions)).not.toContain(forbidden);
    }
    expect(consumer.flatMap(actions)).toEqual(expect.arrayContaining(['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream']));
    const stream = consumer.find((s) => actions(s).includes('dynamodb:GetRecords'))!;
    expect(JSON.stringify(stream.Resource)).toContain('StreamArn');

    const feed = statementsOf(t, FUNCTIONS.listChanges.logicalId).filter((s) => actions(s).some((a) => a.startsWith('dynamodb:')));
    expect(feed.map((s) => actions(s).join())).toEqual(['dynamodb:BatchGetItem,dynamodb:GetItem', 'dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:GetItem']);
    // The sources registry for include=provenance, the sweep's state for a first read: GetItem of one item each.
    expect(feed[2]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [SOURCES_ID] } });
    expect(feed[3]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [SWEEP_ID] } });
    expect(feed[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [HEAD_ID, `${ENTRY_PREFIX}*`] } });
    // The full sync reads the listed legs, never the table's history (docs/storage.md, "The listed legs index").
    expect(feed[1]!.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [legsId, 'Arn'] }, '/index/listedLegs']] });
  });

  it("the matcher reads the same stream apart: its own mapping, filtered to the change log's state records, its own on-failure queue and alarm", () => {
    const [, mapping] = onlyResource(t, 'AWS::Lambda::EventSourceMapping', isMapping(FUNCTIONS.matchWatches.logicalId));
    const [queueId, queue] = onlyResource(t, 'AWS::SQS::Queue', isMatcherFailureQueue);
    expect(props(mapping)).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: STREAM_MAPPING.batchSize,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: STREAM_MAPPING.retryAttempts,
      ParallelizationFactor: STREAM_READERS.matchWatches.parallelizationFactor,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
    const [filter] = (props(mapping).FilterCriteria as { Filters: { Pattern: string }[] }).Filters;
    expect(JSON.parse(filter!.Pattern)).toEqual({ eventName: ['INSERT', 'MODIFY'], dynamodb: { Keys: { id: { S: [{ prefix: STATE_PREFIX }] } } } });
    expect(props(queue).SqsManagedSseEnabled).toBe(true);
    const [, alarm] = onlyResource(t, 'AWS::CloudWatch::Alarm', (r) => String(props(r).AlarmName).endsWith('-WatchMatcherFailed'));
    expect(props(alarm)).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1, Namespace: 'AWS/SQS', Dimensions: [{ Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }] });
    const [topicId] = onlyResource(t, 'AWS::SNS::Topic');
    expect(props(alarm).AlarmActions).toEqual([{ Ref: topicId }]);
    // The consumer has nothing of the watches' any more.
    const consumer = statementsOf(t, FUNCTIONS.consumeChanges.logicalId);
    expect(onTable(consumer, tableIdOf(t, WATCHES_TABLE))).toEqual([]);
    expect(consumer.flatMap(actions).filter((a) => a.startsWith('sqs:')).length).toBeGreaterThan(0);
  });

  it('least privilege: the matcher reads only the attributes matching needs of the watches (no secret, no URL), batch-reads and batch-writes deliveries, reads only clients\' items of the keys table (no Scan), gets the rates item only, sends to the webhook queue only', () => {
    const all = statementsOf(t, FUNCTIONS.matchWatches.logicalId);
    const watches = onTable(all, tableIdOf(t, WATCHES_TABLE));
    expect(watches.map((s) => [actions(s).join(), s.Condition])).toEqual([
      ['dynamodb:BatchGetItem,dynamodb:Scan', onlyAttributes(['clientId', 'watchId', 'filters', 'status', 'include', 'group'])],
      ['dynamodb:GetItem', { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['~version'] } }],
    ]);
    const deliveries = onTable(all, tableIdOf(t, WATCH_DELIVERIES_TABLE));
    expect(deliveries.map((s) => actions(s).join())).toEqual(['dynamodb:BatchGetItem,dynamodb:BatchWriteItem']);
    expectClientReadsOnly(all);
    const [legsId] = onlyResource(t, 'AWS::DynamoDB::Table', (r) => JSON.stringify(props(r).KeySchema).includes('"id"'));
    // The legs table: the legs of a flight watch's flights (`legs:read`: by id, and the listing index's buckets), the rates in force (a watch's currency) and the sources registry (`kind`, `verifiedOnly`) by their keys.
    expect(onTable(all, legsId).map((s) => [actions(s).join(), s.Condition])).toEqual([
      ['dynamodb:GetItem', { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['~rates'] } }],
      ['dynamodb:GetItem', { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['~sources'] } }],
      ['dynamodb:BatchGetItem,dynamodb:GetItem', undefined],
    ]);
    const [queueId] = onlyResource(t, 'AWS::SQS::Queue', (_r, id) => id.startsWith('WebhooksQueue'));
    const [failuresId] = onlyResource(t, 'AWS::SQS::Queue', isMatcherFailureQueue);
    // SQS: the webhook queue (the matcher's messages) and the on-failure destination (the mapping's), sending only.
    const sqs = all.filter((s) => actions(s).some((a) => a.startsWith('sqs:')));
    expect(sqs.map((s) => (s.Resource as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]).sort()).toEqual([failuresId, queueId].sort());
    for (const s of sqs) {
      expect(actions(s)).toContain('sqs:SendMessage');
      expect(actions(s).every((a) => a === 'sqs:SendMessage' || a.startsWith('sqs:GetQueue'))).toBe(true);
    }
    const env = (props(resourcesOfType(t, 'AWS::Lambda::Function')[FUNCTIONS.matchWatches.logicalId]!).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(env.WEBHOOK_QUEUE_URL).toEqual({ Ref: queueId });
    expect(env.WATCHES_TABLE_NAME).toEqual({ Ref: tableIdOf(t, WATCHES_TABLE) });
    expect(env.WATCH_DELIVERIES_TABLE_NAME).toEqual({ Ref: tableIdOf(t, WATCH_DELIVERIES_TABLE) });
    expect(env.LEGS_TABLE_NAME).toEqual({ Ref: legsId });
  });
});
