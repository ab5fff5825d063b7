import type { S3Event } from 'aws-lambda';
import { documentClient } from '../../src/aws/function-clients.js';
import { s3Client } from '../../src/aws/s3-client.js';
import { functionConfig } from '../../src/config.js';
import { feedsBucketName } from '../../src/feeds/config.js';
import { ingestS3Event } from '../../src/feeds/ingest.js';

/** Objects created under incoming/ of the feeds bucket: validate, load, report (src/feeds/ingest.ts). */
const config = functionConfig();
const bucket = feedsBucketName(process.env);

export const handler = async (event: S3Event): Promise<void> => {
  await ingestS3Event(event, { s3: s3Client, dynamo: documentClient, legsTableName: config.legsTableName, stage: config.stage, bucket });
};
