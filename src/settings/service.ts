import { ConfigError } from '../errors.js';
import type { Clock } from '../clock.js';
import { endpoint, parseIntegerSetting, parseStage, PRINTABLE_SECRET, readAwsEnvironment, readClock, tableName, type AwsEnvironment, type Env, type Stage } from './values.js';

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

function originSecret(env: Env): string | undefined {
  const value = env.ORIGIN_SECRET?.trim();
  if (!value) return undefined;
  if (!PRINTABLE_SECRET.test(value)) throw new ConfigError('ORIGIN_SECRET', 'must be 32-256 printable ASCII characters without spaces');
  return value;
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
