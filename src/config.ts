import { ConfigError } from './errors.js';

/**
 * Settings (README, "Settings"), read from the environment once and validated.
 * A missing or bad setting throws a ConfigError that names it.
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
 * Reads the configuration from `env`.
 * `defaultToLocal`: the commands and the local server default DYNAMODB_ENDPOINT to DynamoDB Local on
 * DYNAMODB_PORT; the functions leave it unset, which means real AWS.
 */
export function readConfig(env: Env, options: { defaultToLocal?: boolean } = {}): Config {
  const dynamodbPort = parseIntegerSetting('DYNAMODB_PORT', env.DYNAMODB_PORT, 8000, 1, 65535);
  const explicitEndpoint = endpoint(env, 'DYNAMODB_ENDPOINT');
  return {
    stage: parseStage('STAGE', env.STAGE),
    legsTableName: tableName(env, 'LEGS_TABLE_NAME', 'empty-legs'),
    keysTableName: tableName(env, 'KEYS_TABLE_NAME', 'api-keys'),
    dynamodbEndpoint:
      explicitEndpoint ?? (options.defaultToLocal ? `http://127.0.0.1:${dynamodbPort}` : undefined),
    dynamodbPort,
    listingCacheTtlSeconds: parseIntegerSetting(
      'LISTING_CACHE_TTL_SECONDS',
      env.LISTING_CACHE_TTL_SECONDS,
      900,
      0,
      3600,
    ),
  };
}

let loaded: Config | undefined;

/** The functions' configuration: read from process.env once, at first use (module scope). */
export function functionConfig(): Config {
  loaded ??= readConfig(process.env);
  return loaded;
}
