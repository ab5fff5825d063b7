import { randomBytes } from 'node:crypto';
import { ConfigError } from '../errors.js';
import type { Env } from './values.js';
import { PRINTABLE_SECRET } from './values.js';
import { readConfig, type Config } from './service.js';

/** The change feed's setting: the secret its cursors are signed with (docs/deploy.md, "13. The change log"). */
export const CHANGE_CURSOR_KEY_ENV = 'CHANGE_CURSOR_KEY';

export interface ChangesConfig extends Config {
  cursorKey: string;
}

/**
 * CHANGE_CURSOR_KEY: 32-256 printable ASCII characters, set by the stack from its secret. Unset
 * against DynamoDB Local (npm start, sam local, tests), a random key is made at start: cursors
 * then hold until the process ends. Unset on AWS is an error.
 */
export function readChangesConfig(env: Env): ChangesConfig {
  const base = readConfig(env);
  const value = env[CHANGE_CURSOR_KEY_ENV]?.trim();
  if (value && !PRINTABLE_SECRET.test(value)) throw new ConfigError(CHANGE_CURSOR_KEY_ENV, 'must be 32-256 printable ASCII characters without spaces');
  if (!value && base.dynamodbEndpoint === undefined) throw new ConfigError(CHANGE_CURSOR_KEY_ENV, 'missing: the secret the change feed signs its cursors with');
  return { ...base, cursorKey: value || randomBytes(32).toString('base64url') };
}

/** The ECB's daily file: the default address of the scheduled rates fetch. */
export const ECB_DAILY_URL = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml';

/** The scheduled rates fetch's address (RATES_URL, docs/rates.md): an http(s) URL, the ECB's daily file by default. */
export function readRatesUrl(env: Env): string {
  const value = env.RATES_URL?.trim() || ECB_DAILY_URL;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new ConfigError('RATES_URL', `'${value}' is not an http(s) URL`);
  return value;
}

/** The ingest function's own setting: the feeds bucket whose events it accepts. */
export const FEEDS_BUCKET_ENV = 'FEEDS_BUCKET_NAME';

export interface IngestConfig extends Config {
  feedsBucketName: string;
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function feedsBucketName(env: Env): string {
  const value = env[FEEDS_BUCKET_ENV]?.trim();
  if (!value) throw new ConfigError(FEEDS_BUCKET_ENV, 'missing: the name of the feeds bucket');
  if (!BUCKET_NAME.test(value)) throw new ConfigError(FEEDS_BUCKET_ENV, `'${value}' is not an S3 bucket name`);
  return value;
}

export function readIngestConfig(env: Env): IngestConfig {
  return { ...readConfig(env), feedsBucketName: feedsBucketName(env) };
}
