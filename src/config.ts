import { CLOCK_AT_ENV, clockFromSettings, type Clock } from './clock.js';
import { ConfigError } from './errors.js';

/**
 * Settings (README, "Settings"), read from the environment once and validated.
 * A missing or bad setting throws a ConfigError that names it.
 *
 * The only module of the runtime (src/, functions/) that reads `process.env` (eslint.config.js
 * refuses it elsewhere): the rest is handed what it needs as arguments.
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
   * Ceiling of the per-container listing cache in seconds: the cache follows the change journal and
   * re-reads everything at the latest after this long (what a write that bypasses the journal
   * waits for at most); 0 turns the cache off.
   */
  listingCacheTtlSeconds: number;
  /** The one clock: the real one, or shifted by CLOCK_AT (local runs only). */
  clock: Clock;
  aws: AwsEnvironment;
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
  };
}

export function readAwsEnvironment(env: Env): AwsEnvironment {
  return {
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1',
    credentialsInEnvironment: Boolean(env.AWS_ACCESS_KEY_ID),
  };
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
