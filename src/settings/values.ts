import { CLOCK_AT_ENV, clockFromSettings, type Clock } from '../clock.js';
import { ConfigError } from '../errors.js';

/** The settings' value rules, shared by every reader of src/settings/ (read by src/config.ts only). */
export type Stage = 'sandbox' | 'prod';
export const STAGES: readonly Stage[] = ['sandbox', 'prod'];

export type Env = Readonly<Record<string, string | undefined>>;

/** A secret setting: 32-256 printable ASCII characters without spaces. */
export const PRINTABLE_SECRET = /^[\x21-\x7e]{32,256}$/;

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

const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

export function tableName(env: Env, setting: string, fallback: string): string {
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

export function endpoint(env: Env, setting: string): string | undefined {
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

export function readAwsEnvironment(env: Env): AwsEnvironment {
  return {
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1',
    credentialsInEnvironment: Boolean(env.AWS_ACCESS_KEY_ID),
  };
}
