import { afterAll, afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sdkStreamMixin } from '@smithy/core/serde';
import type { S3Event } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { createIngestHandler } from '../../../src/feeds/ingest.js';
import { type FeedReport } from '../../../src/feeds/report.js';
import { MAX_ERRORS_KEPT } from '../../../src/loading/import/file-limits.js';
import { fcParams } from '../../support/fast-check.js';
import { hostileFile } from '../../support/hostile-files.js';

/**
 * The ingest handler on generated hostile files (test/support/hostile-files.ts), S3 and DynamoDB
 * mocked: the invocation succeeds (Lambda does not retry a file that will never load), the report
 * says refused with its errors capped, and nothing reaches the database, in either mode.
 */
const BUCKET = 'feeds-test';
const s3 = mockClient(S3Client);
const ddb = mockClient(DynamoDBDocumentClient);
const metrics: string[] = [];
const handler = createIngestHandler({
  s3: new S3Client({ region: 'us-east-1' }),
  dynamo: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
  legsTableName: 'legs',
  stage: 'sandbox',
  bucket: BUCKET,
  now: () => new Date('2026-11-21T08:00:00Z'),
  emit: (line) => metrics.push(line),
});

function event(key: string): S3Event {
  return {
    Records: [
      {
        eventTime: '2026-11-21T07:59:00.000Z',
        s3: { bucket: { name: BUCKET }, object: { key, versionId: 'v1', sequencer: '01' } },
      },
    ],
  } as unknown as S3Event;
}

describe('ingest of hostile files', () => {
  let stdout: jest.Spied<typeof process.stdout.write>;
  beforeEach(() => {
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => stdout.mockRestore());
  afterAll(() => {
    s3.restore();
    ddb.restore();
  });

  it('refuses every one without throwing, reports it, and writes nothing of it', async () => {
    await fc.assert(
      fc.asyncProperty(hostileFile, fc.constantFrom('incoming/h.ndjson', 'incoming/sync/h.ndjson'), fc.integer({ min: 1, max: 70_000 }), async (bytes, key, chunk) => {
        s3.reset();
        ddb.reset();
        metrics.length = 0;
        const reports: FeedReport[] = [];
        s3.on(GetObjectCommand).callsFake(() => {
          const parts: Buffer[] = [];
          for (let i = 0; i < bytes.length; i += chunk) parts.push(bytes.subarray(i, i + chunk));
          return { Body: sdkStreamMixin(Readable.from(parts)), LastModified: new Date('2026-11-21T07:59:00Z') };
        });
        s3.on(PutObjectCommand).callsFake((input: { Body: string }) => {
          reports.push(JSON.parse(input.Body) as FeedReport);
          return {};
        });
        await handler(event(key));
        expect(ddb.calls()).toHaveLength(0);
        expect(reports).toHaveLength(1);
        const [report] = reports;
        expect(report).toMatchObject({ status: 'refused', written: 0, unlisted: 0 });
        expect(report!.reason).toMatch(/nothing was written/);
        expect(report!.errors.length).toBeGreaterThan(0);
        expect(report!.errors.length).toBeLessThanOrEqual(MAX_ERRORS_KEPT);
        expect(metrics.map((m) => (JSON.parse(m) as Record<string, unknown>).FeedsRefused)).toEqual([1]);
      }),
      fcParams(40),
    );
  });
});
