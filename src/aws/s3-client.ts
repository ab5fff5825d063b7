import { S3Client } from '@aws-sdk/client-s3';

/**
 * The ingest function's S3 client: created once per container, at module scope. Only the ingest
 * function imports this module (the list function's bundle stays without the S3 SDK).
 */
export const s3Client = new S3Client({});
