import { ConfigError } from '../errors.js';
import type { Env } from '../config.js';

/** The ingest function's own setting: the feeds bucket it accepts events of. */
export const FEEDS_BUCKET_ENV = 'FEEDS_BUCKET_NAME';

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function feedsBucketName(env: Env): string {
  const value = env[FEEDS_BUCKET_ENV]?.trim();
  if (!value) throw new ConfigError(FEEDS_BUCKET_ENV, 'missing: the name of the feeds bucket');
  if (!BUCKET_NAME.test(value)) throw new ConfigError(FEEDS_BUCKET_ENV, `'${value}' is not an S3 bucket name`);
  return value;
}
