import { createFunctionClient } from '../../src/aws/function-clients.js';
import { s3Client } from '../../src/aws/s3-client.js';
import { ingestFunctionConfig } from '../../src/config.js';
import { createIngestHandler } from '../../src/feeds/ingest.js';

/** Objects created under incoming/ of the feeds bucket: validate, load, report (src/feeds/ingest.ts). */
const config = ingestFunctionConfig();
const dynamo = createFunctionClient(config);
export const handler = createIngestHandler({
  s3: s3Client,
  dynamo,
  legsTableName: config.legsTableName,
  stage: config.stage,
  bucket: config.feedsBucketName,
  now: () => new Date(config.clock()),
});
