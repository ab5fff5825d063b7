import { randomBytes } from 'node:crypto';
import { CLOCK_AT_ENV, clockFromSettings, type Clock } from './clock.js';
import { ConfigError } from './errors.js';

/**
 * Settings (README, "Settings"), read from the environment once and validated: a missing or bad
 * setting throws a ConfigError that names it. The only module of src/ and functions/ that reads
 * `process.env` (eslint refuses it elsewhere).
 */
export type Stage = 'sandbox' | 'prod';
export const STAGES: readonly Stage[] = ['sandbox', 'prod'];

export interface Config {
  stage: Stage;
  legsTableName: string;
  keysTableName: string;
  /** DynamoDB endpoint; undefined means real AWS (the functions' default). */
  dynamodbEndpoint: string | undefined;
  dynamodbPort: number;
  /**
   * Ceiling of the per-container listing cache in seconds: the cache follows the change log and
   * re-reads everything at the latest after this long; 0 turns the cache off.
   */
  listingCacheTtlSeconds: number;
  /** The one clock: the real one, or shifted by CLOCK_AT (local runs only). */
  clock: Clock;
  aws: AwsEnvironment;
  /**
   * ORIGIN_SECRET: the value CloudFront sends the API in `X-Origin-Verify` (the authorizer refuses a
   * request without it); unset (local runs, tests), every request is taken as it comes.
   */
  originSecret: string | undefined;
  /** FAILED_AUTH_PER_MINUTE and FAILED_AUTH_BURST: failed authentications per source address (src/keys/limits/address-limit.ts). */
  failedAuthLimit: { rate: number; burst: number };
}

const ORIGIN_SECRET = /^[\x21-\x7e]{32,256}$/;

function originSecret(env: Env): string | undefined {
  const value = env.ORIGIN_SECRET?.trim();
  if (!value) return undefined;
  if (!ORIGIN_SECRET.test(value)) throw new ConfigError('ORIGIN_SECRET', 'must be 32-256 printable ASCII characters without spaces');
  return value;
}

/**
 * What the DynamoDB clients (src/aws/dynamodb.ts) take from the AWS SDK's own variables: Lambda
 * sets them, and so does an operator's shell for the commands' `--aws`. Not this project's settings:
 * nothing to validate.
 */
export interface AwsEnvironment {
  /** AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1. */
  region: string;
  /**
   * AWS_ACCESS_KEY_ID is set: the credentials are the environment's. Without it, a client of an
   * explicit endpoint (DynamoDB Local) signs with placeholders, which DynamoDB Local accepts.
   */
  credentialsInEnvironment: boolean;
}

export type Env = Readonly<Record<string, string | undefined>>;

const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

function tableName(env: Env, setting: string, fallback: string): string {
  const value = env[setting]?.trim() || fallback;
  if (!TABLE_NAME.test(value)) {
    throw new ConfigError(setting, `'${value}' is not a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -)`);
  }
  return value;
}

export function parseIntegerSetting(
  setting: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = raw?.trim();
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value)) throw new ConfigError(setting, `'${value}' is not a whole number`);
  const n = Number(value);
  if (n < min || n > max) throw new ConfigError(setting, `${n} is outside ${min}-${max}`);
  return n;
}

export function parseStage(setting: string, raw: string | undefined): Stage {
  const value = raw?.trim() || 'sandbox';
  if (!(STAGES as readonly string[]).includes(value)) {
    throw new ConfigError(setting, `'${value}' must be one of ${STAGES.join(', ')}`);
  }
  return value as Stage;
}

function endpoint(env: Env, setting: string): string | undefined {
  const value = env[setting]?.trim();
  if (!value) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new ConfigError(setting, `'${value}' is not an http(s) URL`);
  }
  return value;
}

/**
 * CLOCK_AT (src/clock.ts) is for local runs and tests: a function in Lambda (AWS_LAMBDA_FUNCTION_NAME
 * set) against real DynamoDB refuses it, so the deployed stages keep the real clock.
 */
export function readClock(env: Env, dynamodbEndpoint: string | undefined): Clock {
  if (env[CLOCK_AT_ENV]?.trim() && dynamodbEndpoint === undefined && env.AWS_LAMBDA_FUNCTION_NAME?.trim()) {
    throw new ConfigError(CLOCK_AT_ENV, 'is for local runs and tests only: the deployed stages keep the real clock');
  }
  return clockFromSettings(env);
}

/**
 * Reads the configuration from `env`.
 * `defaultToLocal`: the commands and the local server default DYNAMODB_ENDPOINT to DynamoDB Local on
 * DYNAMODB_PORT; the functions leave it unset, which means real AWS.
 */
export function readConfig(env: Env, options: { defaultToLocal?: boolean } = {}): Config {
  const dynamodbPort = parseIntegerSetting('DYNAMODB_PORT', env.DYNAMODB_PORT, 8000, 1, 65535);
  const explicitEndpoint = endpoint(env, 'DYNAMODB_ENDPOINT');
  const dynamodbEndpoint = explicitEndpoint ?? (options.defaultToLocal ? `http://127.0.0.1:${dynamodbPort}` : undefined);
  return {
    stage: parseStage('STAGE', env.STAGE),
    legsTableName: tableName(env, 'LEGS_TABLE_NAME', 'empty-legs'),
    keysTableName: tableName(env, 'KEYS_TABLE_NAME', 'api-keys'),
    dynamodbEndpoint,
    dynamodbPort,
    listingCacheTtlSeconds: parseIntegerSetting(
      'LISTING_CACHE_TTL_SECONDS',
      env.LISTING_CACHE_TTL_SECONDS,
      900,
      0,
      3600,
    ),
    clock: readClock(env, dynamodbEndpoint),
    aws: readAwsEnvironment(env),
    originSecret: originSecret(env),
    failedAuthLimit: {
      rate: parseIntegerSetting('FAILED_AUTH_PER_MINUTE', env.FAILED_AUTH_PER_MINUTE, 60, 1, 60_000) / 60,
      burst: parseIntegerSetting('FAILED_AUTH_BURST', env.FAILED_AUTH_BURST, 20, 1, 10_000),
    },
  };
}

export function readAwsEnvironment(env: Env): AwsEnvironment {
  return {
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1',
    credentialsInEnvironment: Boolean(env.AWS_ACCESS_KEY_ID),
  };
}

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
  if (value && !ORIGIN_SECRET.test(value)) throw new ConfigError(CHANGE_CURSOR_KEY_ENV, 'must be 32-256 printable ASCII characters without spaces');
  if (!value && base.dynamodbEndpoint === undefined) throw new ConfigError(CHANGE_CURSOR_KEY_ENV, 'missing: the secret the change feed signs its cursors with');
  return { ...base, cursorKey: value || randomBytes(32).toString('base64url') };
}

let loadedChanges: ChangesConfig | undefined;

/** The change feed function's configuration: read from process.env once. */
export function changesFunctionConfig(): ChangesConfig {
  loadedChanges ??= readChangesConfig(process.env);
  return loadedChanges;
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

/** Where a webhook may go (src/watches/target.ts): `public` on AWS, `local` under npm start only. */
export type WebhookTargets = 'public' | 'local';

/** The watches' settings (docs/watches.md, "Settings"). */
export interface WatchesConfig extends Config {
  watchesTableName: string;
  deliveriesTableName: string;
  /** The SQS queue between matching and delivery; undefined locally (the local queue stands in). */
  webhookQueueUrl: string | undefined;
  /** The local queue's table (npm start, tests), when there is no WEBHOOK_QUEUE_URL. */
  localQueueTableName: string;
  webhookTargets: WebhookTargets;
  /** Delays before each retry, seconds: attempt n+1 waits the n-th (with jitter). */
  retryScheduleSeconds: readonly number[];
  /** An endpoint failing for this long (no 2xx) is disabled. */
  disableAfterSeconds: number;
}

/** The retry schedule of the AWS stages: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27.6 h in all). */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** Five days failing: the endpoint is disabled. */
export const DEFAULT_DISABLE_AFTER_SECONDS = 5 * 86_400;

function retrySchedule(env: Env): readonly number[] {
  const raw = env.WEBHOOK_RETRY_SCHEDULE?.trim();
  if (!raw) return DEFAULT_RETRY_SCHEDULE_SECONDS;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 20 || parts.some((p) => !/^\d{1,6}$/.test(p) || Number(p) > 86_400)) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE', `'${raw}' must be 1-20 delays in whole seconds (0-86400) separated by commas`);
  }
  return parts.map(Number);
}

export function readWatchesConfig(env: Env, options: { defaultToLocal?: boolean } = {}): WatchesConfig {
  const base = readConfig(env, options);
  const targets = env.WEBHOOK_TARGETS?.trim() || 'public';
  if (targets !== 'public' && targets !== 'local') throw new ConfigError('WEBHOOK_TARGETS', `'${targets}' must be public or local`);
  if (targets === 'local' && base.dynamodbEndpoint === undefined) {
    throw new ConfigError('WEBHOOK_TARGETS', 'local is for npm start only; the deployed stages call public https targets');
  }
  const queueUrl = env.WEBHOOK_QUEUE_URL?.trim() || undefined;
  if (queueUrl !== undefined && !/^https:\/\/\S+$/.test(queueUrl)) throw new ConfigError('WEBHOOK_QUEUE_URL', `'${queueUrl}' is not an SQS queue URL`);
  return {
    ...base,
    watchesTableName: tableName(env, 'WATCHES_TABLE_NAME', 'watches'),
    deliveriesTableName: tableName(env, 'WATCH_DELIVERIES_TABLE_NAME', 'watch-deliveries'),
    webhookQueueUrl: queueUrl,
    localQueueTableName: tableName(env, 'WEBHOOK_LOCAL_QUEUE_TABLE_NAME', 'webhook-queue'),
    webhookTargets: targets,
    retryScheduleSeconds: retrySchedule(env),
    disableAfterSeconds: parseIntegerSetting('WEBHOOK_DISABLE_AFTER_SECONDS', env.WEBHOOK_DISABLE_AFTER_SECONDS, DEFAULT_DISABLE_AFTER_SECONDS, 60, 30 * 86_400),
  };
}

let loadedWatches: WatchesConfig | undefined;

/** The watch functions' configuration: read from process.env once. */
export function watchesFunctionConfig(): WatchesConfig {
  loadedWatches ??= readWatchesConfig(process.env);
  return loadedWatches;
}

/** The rates fetch's address: read from process.env once. */
export function ratesUrlSetting(): string {
  return readRatesUrl(process.env);
}

let loaded: Config | undefined;

/** The functions' configuration: read from process.env once, at first use (module scope). */
export function functionConfig(): Config {
  loaded ??= readConfig(process.env);
  return loaded;
}

/** The ingest function's configuration: read from process.env once, at module scope. */
export function ingestFunctionConfig(): IngestConfig {
  return readIngestConfig(process.env);
}
