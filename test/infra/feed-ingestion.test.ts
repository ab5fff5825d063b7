import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { INGEST_FAILURE_RETENTION_DAYS, INGEST_FUNCTION_LOGICAL_ID } from '../../lib/constructs/feed-ingestion.js';
import { STAGE_CONFIGS } from '../../lib/stage-config.js';
import { stackName } from '../../src/deployment.js';
import { STAGES } from '../../src/config.js';
import { FEED_METRICS } from '../../src/feeds/metrics.js';
import { resourcesOfType, synthesize, type CfnResource } from './helpers.js';

/** The feeds bucket, the ingest function, its grants and alarms, in both stages (cdk-nag runs in synthesize). */
let templates: Record<(typeof STAGES)[number], Template>;
beforeAll(() => {
  // Bundling skipped: the bundles are checked in stack.test.ts.
  templates = synthesize({ 'aws:cdk:bundling-stacks': [] }).templates;
});

const props = (r: CfnResource) => r.Properties ?? {};
const json = (x: unknown) => JSON.stringify(x);

describe.each(STAGES)('stage %s', (stage) => {
  const t = () => templates[stage];
  const config = STAGE_CONFIGS[stage];
  const feedsBucket = () => {
    const found = Object.entries(resourcesOfType(t(), 'AWS::S3::Bucket')).filter(([, r]) => (json(props(r).BucketName) ?? '').includes('feeds'));
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  it('the feeds bucket is encrypted, private, versioned, retained, logged, with lifecycle rules on old versions and files', () => {
    const [, bucket] = feedsBucket();
    const p = props(bucket);
    expect(p.BucketEncryption).toEqual({ ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] });
    expect(p.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(p.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(p.LoggingConfiguration).toEqual({ DestinationBucketName: expect.anything() as unknown, LogFilePrefix: 'feeds/' });
    const rules = (p.LifecycleConfiguration as { Rules: Record<string, unknown>[] }).Rules;
    expect(rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: config.feeds.noncurrentVersionDays } }),
        expect.objectContaining({ Prefix: 'incoming/', ExpirationInDays: config.feeds.fileDays }),
        expect.objectContaining({ Prefix: 'reports/', ExpirationInDays: config.feeds.fileDays }),
      ]),
    );
  });

  const failureQueue = () => {
    // The ingest function's own queue (the stack has others: the change consumer's, the webhooks').
    const found = Object.entries(resourcesOfType(t(), 'AWS::SQS::Queue')).filter(([id]) => id.startsWith('FeedsIngestFailures'));
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  it('no feed file lost: a failed invocation is retried twice, then its event goes to an encrypted, TLS-only queue whose messages expire before the files they name', () => {
    const [queueId, queue] = failureQueue();
    expect(props(queue)).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: INGEST_FAILURE_RETENTION_DAYS * 86_400 });
    // Every message names a file that is still in the bucket: files under incoming/ outlive the queue's messages.
    expect(INGEST_FAILURE_RETENTION_DAYS).toBeLessThan(config.feeds.fileDays);
    const policy = Object.values(resourcesOfType(t(), 'AWS::SQS::QueuePolicy')).find((p) => json(props(p).Queues).includes(queueId))!;
    expect(json(props(policy).PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    const configs = Object.values(resourcesOfType(t(), 'AWS::Lambda::EventInvokeConfig')).map(props);
    expect(configs).toEqual([
      {
        FunctionName: { Ref: INGEST_FUNCTION_LOGICAL_ID },
        Qualifier: '$LATEST',
        MaximumRetryAttempts: 2,
        MaximumEventAgeInSeconds: 6 * 3600,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
      },
    ]);
  });

  it('alarms, to the alarm topic, as soon as one failed feed event is in the queue', () => {
    const [queueId] = failureQueue();
    const alarm = Object.values(resourcesOfType(t(), 'AWS::CloudWatch::Alarm'))
      .map(props)
      .find((a) => a.AlarmName === `${stackName(stage)}-FeedIngestFailed`)!;
    expect(alarm).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(json(alarm.AlarmActions)).toContain('AlarmTopic');
    expect(json(alarm.OKActions)).toContain('AlarmTopic');
  });

  it('every bucket refuses requests without TLS', () => {
    for (const [id] of Object.entries(resourcesOfType(t(), 'AWS::S3::Bucket'))) {
      const policies = Object.values(resourcesOfType(t(), 'AWS::S3::BucketPolicy')).filter((p) => json(props(p).Bucket) === json({ Ref: id }));
      expect(policies).toHaveLength(1);
      expect(json(props(policies[0]!).PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    }
  });

  it('objects created under incoming/ (and only there) invoke the ingest function, which S3 may invoke for this bucket only', () => {
    const [, bucket] = feedsBucket();
    expect(props(bucket).NotificationConfiguration).toEqual({
      LambdaConfigurations: [
        {
          Event: 's3:ObjectCreated:*',
          Filter: { S3Key: { Rules: [{ Name: 'prefix', Value: 'incoming/' }] } },
          Function: { 'Fn::GetAtt': [INGEST_FUNCTION_LOGICAL_ID, 'Arn'] },
        },
      ],
    });
    t().hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 's3.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [INGEST_FUNCTION_LOGICAL_ID, 'Arn'] },
      SourceAccount: { Ref: 'AWS::AccountId' },
      SourceArn: Match.anyValue(),
    });
  });

  it('the ingest function: feeds one at a time, 10 minutes, told the bucket and the legs table', () => {
    const f = resourcesOfType(t(), 'AWS::Lambda::Function')[INGEST_FUNCTION_LOGICAL_ID]!;
    const p = props(f);
    expect(p.ReservedConcurrentExecutions).toBe(config.feeds.reservedConcurrency);
    expect(p.Timeout).toBe(600);
    const env = (p.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(Object.keys(env).sort()).toEqual(['FEEDS_BUCKET_NAME', 'LEGS_TABLE_NAME', 'NODE_OPTIONS', 'POWERTOOLS_LOG_LEVEL', 'POWERTOOLS_SERVICE_NAME', 'STAGE']);
    expect(json(env.FEEDS_BUCKET_NAME)).toContain(`empty-legs-${stage}-feeds`);
  });

  it('least privilege: read incoming/*, write reports/*, never delete, send to the failure queue only, Scan, BatchWriteItem, GetItem and PutItem (the sync order) on the legs table, no index, its own logs; nothing else', () => {
    const f = resourcesOfType(t(), 'AWS::Lambda::Function')[INGEST_FUNCTION_LOGICAL_ID]!;
    const roleId = (props(f).Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    const policies = Object.values(resourcesOfType(t(), 'AWS::IAM::Policy')).filter((p) => json(props(p).Roles) === json([{ Ref: roleId }]));
    expect(policies).toHaveLength(1);
    const statements = (props(policies[0]!).PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement;
    const grants = statements.map((s) => [([] as string[]).concat(s.Action).sort().join(','), json(s.Resource)]);
    expect(grants.map(([a]) => a).sort()).toEqual(
      ['dynamodb:BatchWriteItem,dynamodb:GetItem,dynamodb:PutItem,dynamodb:Scan', 'logs:CreateLogStream,logs:PutLogEvents', 's3:GetObject,s3:GetObjectVersion', 's3:PutObject', 'sqs:SendMessage'].sort(),
    );
    const resourceOf = (action: string) => grants.find(([a]) => a === action)![1]!;
    // The failure queue only; and no grant deletes a feed file.
    expect(resourceOf('sqs:SendMessage')).toBe(json({ 'Fn::GetAtt': [failureQueue()[0], 'Arn'] }));
    expect(json(statements)).not.toMatch(/Delete/);
    expect(resourceOf('s3:GetObject,s3:GetObjectVersion')).toMatch(/\/incoming\/\*"\]\]\}$/);
    expect(resourceOf('s3:PutObject')).toMatch(/\/reports\/\*"\]\]\}$/);
    expect(resourceOf('dynamodb:BatchWriteItem,dynamodb:GetItem,dynamodb:PutItem,dynamodb:Scan')).toMatch(/^\{"Fn::GetAtt":\["DataLegsTable[0-9A-F]+","Arn"\]\}$/);
    // no managed policies on the role
    expect(props(resourcesOfType(t(), 'AWS::IAM::Role')[roleId]!).ManagedPolicyArns).toBeUndefined();
  });

  it(`alarms on a refused feed and on ingest errors${stage === 'prod' ? ', and when no feed loaded for 24 hours' : ''}, to the alarm topic`, () => {
    const alarms = Object.values(resourcesOfType(t(), 'AWS::CloudWatch::Alarm')).map(props);
    const named = (suffix: string) => alarms.find((a) => a.AlarmName === `${stackName(stage)}-${suffix}`);
    const refused = named('FeedRefused')!;
    expect(refused).toMatchObject({
      MetricName: FEED_METRICS.refused,
      Namespace: FEED_METRICS.namespace,
      Dimensions: [{ Name: 'Stage', Value: stage }],
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(json(refused.AlarmActions)).toContain('AlarmTopic');
    expect(named('IngestFunctionErrors')).toMatchObject({ MetricName: 'Errors', Threshold: 1 });
    const stale = named('NoFeedLoaded24h');
    if (!config.feeds.staleAlarm) {
      expect(stale).toBeUndefined();
      return;
    }
    expect(stale).toMatchObject({
      MetricName: FEED_METRICS.loaded,
      Period: 3600,
      EvaluationPeriods: 24,
      DatapointsToAlarm: 24,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    expect(json(stale!.AlarmActions)).toContain('AlarmTopic');
  });

  it('outputs the feeds bucket name and the failure queue URL', () => {
    t().hasOutput('FeedsBucketName', { Value: Match.anyValue() });
    t().hasOutput('FeedIngestFailuresQueueUrl', { Value: { Ref: failureQueue()[0] } });
  });
});

it('prod alarms when no feed loaded for 24 hours; sandbox does not', () => {
  expect([STAGE_CONFIGS.prod.feeds.staleAlarm, STAGE_CONFIGS.sandbox.feeds.staleAlarm]).toEqual([true, false]);
});
