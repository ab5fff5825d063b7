import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { FEEDS_BUCKET_ENV, readAwsEnvironment, readChangesConfig, readConfig, readIngestConfig, type Config, type Env } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

/** README "Settings": each setting's documented default, as written in its table. */
function documentedDefaults(): Map<string, string> {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('\n## Settings');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const rows = section.split('\n').filter((line) => /^\| `[A-Z_]+` \|/.test(line));
  return new Map(rows.map((row) => row.split('|').map((cell) => cell.trim())).map((cells) => [cells[1]!.replace(/`/g, ''), cells[2]!]));
}

describe('settings (src/config.ts): names and defaults as README documents them', () => {
  const documented = documentedDefaults();
  const fields: [setting: string, field: Exclude<keyof Config, 'aws' | 'dynamodbEndpoint' | 'clock' | 'originSecret' | 'failedAuthLimit'>][] = [
    ['STAGE', 'stage'],
    ['DYNAMODB_PORT', 'dynamodbPort'],
    ['LEGS_TABLE_NAME', 'legsTableName'],
    ['KEYS_TABLE_NAME', 'keysTableName'],
    ['LISTING_CACHE_TTL_SECONDS', 'listingCacheTtlSeconds'],
  ];

  it.each(fields)('%s defaults to what README says', (setting, field) => {
    expect(documented.get(setting)).toBe(`\`${String(readConfig({})[field])}\``);
  });

  it('FAILED_AUTH_BURST and FAILED_AUTH_PER_MINUTE default to what README says; ORIGIN_SECRET is unset', () => {
    const { rate, burst } = readConfig({}).failedAuthLimit;
    expect(documented.get('FAILED_AUTH_BURST')).toBe(`\`${burst}\``);
    expect(documented.get('FAILED_AUTH_PER_MINUTE')).toBe(`\`${rate * 60}\``);
    expect(documented.get('ORIGIN_SECRET')).toBe('unset');
    expect(readConfig({}).originSecret).toBeUndefined();
  });

  it('DYNAMODB_ENDPOINT: real AWS for the functions, DynamoDB Local on DYNAMODB_PORT for the commands', () => {
    expect(documented.get('DYNAMODB_ENDPOINT')).toBe('functions: real AWS; commands: `http://127.0.0.1:$DYNAMODB_PORT`');
    expect(readConfig({}).dynamodbEndpoint).toBeUndefined();
    expect(readConfig({}, { defaultToLocal: true }).dynamodbEndpoint).toBe('http://127.0.0.1:8000');
    expect(readConfig({ DYNAMODB_PORT: '8123' }, { defaultToLocal: true }).dynamodbEndpoint).toBe('http://127.0.0.1:8123');
    expect(readConfig({ DYNAMODB_ENDPOINT: 'https://dynamodb.eu-west-1.amazonaws.com' }, { defaultToLocal: true }).dynamodbEndpoint).toBe(
      'https://dynamodb.eu-west-1.amazonaws.com',
    );
  });

  it('reads each setting it is given, trimmed', () => {
    const config = readConfig({
      STAGE: ' prod ',
      DYNAMODB_PORT: '8123',
      LEGS_TABLE_NAME: 'legs-x',
      KEYS_TABLE_NAME: 'keys.y',
      LISTING_CACHE_TTL_SECONDS: '0',
    });
    expect(config).toMatchObject({ stage: 'prod', dynamodbPort: 8123, legsTableName: 'legs-x', keysTableName: 'keys.y', listingCacheTtlSeconds: 0 });
  });
});

describe('a bad setting fails naming it', () => {
  const refused = (read: () => unknown, setting: string) => {
    let error: unknown;
    try {
      read();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).setting).toBe(setting);
    expect((error as ConfigError).message).toMatch(new RegExp(`^Invalid setting ${setting}: `));
  };

  it.each<[Env, string]>([
    [{ STAGE: 'staging' }, 'STAGE'],
    [{ DYNAMODB_PORT: '0' }, 'DYNAMODB_PORT'],
    [{ DYNAMODB_PORT: '65536' }, 'DYNAMODB_PORT'],
    [{ DYNAMODB_PORT: 'eighty' }, 'DYNAMODB_PORT'],
    [{ DYNAMODB_ENDPOINT: 'localhost:8000' }, 'DYNAMODB_ENDPOINT'],
    [{ DYNAMODB_ENDPOINT: 'ftp://127.0.0.1:8000' }, 'DYNAMODB_ENDPOINT'],
    [{ LEGS_TABLE_NAME: 'x' }, 'LEGS_TABLE_NAME'],
    [{ KEYS_TABLE_NAME: 'api keys' }, 'KEYS_TABLE_NAME'],
    [{ LISTING_CACHE_TTL_SECONDS: '3601' }, 'LISTING_CACHE_TTL_SECONDS'],
    [{ LISTING_CACHE_TTL_SECONDS: '1.5' }, 'LISTING_CACHE_TTL_SECONDS'],
  ])('%j: %s', (env, setting) => {
    refused(() => readConfig(env), setting);
  });

  it.each<[Env, string]>([
    [{}, 'missing'],
    [{ [FEEDS_BUCKET_ENV]: '  ' }, 'missing'],
    [{ [FEEDS_BUCKET_ENV]: 'Feeds_Bucket' }, 'not an S3 bucket name'],
  ])('the ingest function without a usable FEEDS_BUCKET_NAME (%j)', (env, rule) => {
    refused(() => readIngestConfig(env), 'FEEDS_BUCKET_NAME');
    expect(() => readIngestConfig(env)).toThrow(rule);
  });

  it("the ingest function: its bucket beside the functions' settings, which it checks the same way", () => {
    expect(readIngestConfig({ FEEDS_BUCKET_NAME: 'empty-legs-sandbox-feeds', STAGE: 'prod' })).toMatchObject({
      feedsBucketName: 'empty-legs-sandbox-feeds',
      stage: 'prod',
    });
    refused(() => readIngestConfig({ FEEDS_BUCKET_NAME: 'empty-legs-sandbox-feeds', STAGE: 'live' }), 'STAGE');
  });
});

describe("what the DynamoDB clients take from the AWS SDK's variables", () => {
  it.each<[Env, string]>([
    [{ AWS_REGION: 'eu-west-3', AWS_DEFAULT_REGION: 'us-west-2' }, 'eu-west-3'],
    [{ AWS_DEFAULT_REGION: 'us-west-2' }, 'us-west-2'],
    [{ AWS_REGION: ' ', AWS_DEFAULT_REGION: 'us-west-2' }, 'us-west-2'],
    [{}, 'us-east-1'],
  ])('region from %j: %s', (env, region) => {
    expect(readAwsEnvironment(env).region).toBe(region);
    expect(readConfig(env).aws.region).toBe(region);
  });

  it('credentials in the environment when AWS_ACCESS_KEY_ID is set', () => {
    expect(readAwsEnvironment({ AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE' }).credentialsInEnvironment).toBe(true);
    expect(readAwsEnvironment({}).credentialsInEnvironment).toBe(false);
    expect(readAwsEnvironment({ AWS_ACCESS_KEY_ID: '' }).credentialsInEnvironment).toBe(false);
  });
});

describe("the change feed's cursor key (CHANGE_CURSOR_KEY)", () => {
  it('is required on AWS, checked when given, and made at start against DynamoDB Local (a new one per start)', () => {
    expect(() => readChangesConfig({})).toThrow('CHANGE_CURSOR_KEY');
    expect(() => readChangesConfig({ CHANGE_CURSOR_KEY: 'short' })).toThrow(ConfigError);
    const given = 'x'.repeat(48);
    expect(readChangesConfig({ CHANGE_CURSOR_KEY: given }).cursorKey).toBe(given);
    const local = { DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' };
    const a = readChangesConfig(local).cursorKey;
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(readChangesConfig(local).cursorKey).not.toBe(a);
  });
});
