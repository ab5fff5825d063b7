import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { createDocumentClient } from '../../../src/aws/dynamodb.js';
import { readVerdict } from '../../../src/auth/verdict.js';
import { logger } from '../../../src/logger.js';
import { createAuthorizerHandler } from '../../../src/keys/authorizer-handler.js';
import { generateKey } from '../../../src/keys/format.js';
import type { Stage } from '../../../src/config.js';

const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = 'api-keys-test';
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const SECOND = 1000;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function event(headers: Record<string, string> | undefined): APIGatewayRequestAuthorizerEventV2 {
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/$default/GET/open/v1/empty-legs',
    identitySource: [],
    routeKey: 'GET /open/v1/empty-legs',
    rawPath: '/open/v1/empty-legs',
    rawQueryString: '',
    cookies: [],
    ...(headers ? { headers } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'abcdef1234',
      domainName: 'abcdef1234.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'abcdef1234',
      http: { method: 'GET', path: '/open/v1/empty-legs', protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'jest' },
      requestId: 'req-1',
      routeKey: 'GET /open/v1/empty-legs',
      stage: '$default',
      time: '01/Mar/2026:12:00:00 +0000',
      timeEpoch: T0,
    },
  };
}

const withKey = (key: string) => event({ 'x-api-key': key });

interface Fixture {
  key: string;
  item: Record<string, unknown>;
}

function fixture(env: 'test' | 'live', extra: Record<string, unknown> = {}, keyId = 'key_AAAAAAAAAAAAAAAAAAAA'): Fixture {
  const key = generateKey(env);
  return {
    key,
    item: {
      keyHash: sha256(key),
      keyId,
      name: 'partner',
      environment: env,
      scopes: ['empty_leg:read', 'other:read'],
      status: 'active',
      createdAt: new Date(T0 - 86_400_000).toISOString(),
      ...extra,
    },
  };
}

/** The usage counters' totals and shared buckets as the table would answer them: one item per key and day. */
const totals = new Map<string, { served: number; refused: number }>();
const tats = new Map<string, number>();

function store(...fixtures: Fixture[]): void {
  ddb.on(GetCommand).resolves({});
  ddb.on(UpdateCommand).callsFake((input: { Key: { keyHash: string }; ExpressionAttributeValues: Record<string, number> }) => {
    const v = input.ExpressionAttributeValues;
    const key = input.Key.keyHash;
    const t = totals.get(key) ?? { served: 0, refused: 0 };
    const tat = tats.get(key);
    if (v[':now'] !== undefined) {
      // A reservation from the shared bucket (reserveUsage): its two conditional forms.
      const full = v[':start'] !== undefined;
      const fits = full ? tat === undefined || tat < v[':now'] || tat > v[':far']! : tat !== undefined && tat >= v[':now'] && tat <= v[':last']!;
      if (!fits) {
        throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {}, Item: marshall({ ...t, ...(tat !== undefined ? { tat } : {}) }) });
      }
      tats.set(key, full ? v[':start']! : tat! + v[':cost']!);
    }
    const next = { served: t.served + v[':s']!, refused: t.refused + v[':r']! };
    totals.set(key, next);
    return { Attributes: { ...next, ...(tats.has(key) ? { tat: tats.get(key) } : {}) } };
  });
  for (const f of fixtures) ddb.on(GetCommand, { Key: { keyHash: f.item.keyHash } }).resolves({ Item: f.item });
}

/** Reads of key items (not of the keys version, src/keys/version.ts). */
// Not its client's item either (the client's limit, src/keys/limits/client-limit.ts).
const keyReads = () => ddb.commandCalls(GetCommand).filter((c) => c.args[0].input.Key?.keyHash !== '~version' && !String(c.args[0].input.Key?.keyHash).startsWith('client#'));
const reads = () => keyReads().length;

let clock = T0;
function make(stage: Stage = 'sandbox', extra: { maxEntries?: number } = {}) {
  return createAuthorizerHandler({
    client: createDocumentClient({ endpoint: 'http://127.0.0.1:9' }),
    tableName: TABLE,
    stage,
    now: () => clock,
    ...extra,
  });
}

beforeEach(() => {
  ddb.reset();
  totals.clear();
  tats.clear();
  clock = T0;
});

/** The RateLimit fields of the first request of a key with the default limit (10/s, burst 20). */
const FIRST_OF_DEFAULT = { rateLimitPolicy: '"per-key";q=20;w=2', rateLimit: '"per-key";r=19;t=1' };

describe('authorizer handler: verdicts', () => {
  it('verifies an active key and hands key id, scopes and environment to the function', async () => {
    const f = fixture('test');
    store(f);
    const result = await make()(withKey(f.key));
    expect(result).toEqual({
      isAuthorized: true,
      context: {
        verdict: 'ok',
        keyId: 'key_AAAAAAAAAAAAAAAAAAAA',
        // A key stored without a client has one of its own, derived from its id.
        clientId: 'cli_AAAAAAAAAAAAAAAAAAAA',
        scopes: 'empty_leg:read other:read',
        environment: 'test',
        deprecated: false,
        ...FIRST_OF_DEFAULT,
        // The client's address, for the access log.
        clientIp: '192.0.2.1',
      },
    });
    expect(readVerdict(result.context)).toEqual({
      ok: true,
      key: {
        keyId: 'key_AAAAAAAAAAAAAAAAAAAA',
        clientId: 'cli_AAAAAAAAAAAAAAAAAAAA',
        scopes: ['empty_leg:read', 'other:read'],
        environment: 'test',
        deprecated: false,
      },
      headers: { 'ratelimit-policy': FIRST_OF_DEFAULT.rateLimitPolicy, ratelimit: FIRST_OF_DEFAULT.rateLimit },
    });
    const call = keyReads()[0]!.args[0].input;
    expect(call).toEqual({ TableName: TABLE, Key: { keyHash: sha256(f.key) }, ConsistentRead: true });
  });

  it('finds the header whatever its case, and ignores surrounding spaces', async () => {
    const f = fixture('test');
    store(f);
    const h = make();
    expect((await h(event({ 'X-Api-Key': f.key }))).context).toMatchObject({ verdict: 'ok' });
    expect((await h(event({ 'x-api-key': ` ${f.key} ` }))).context).toMatchObject({ verdict: 'ok' });
  });

  it('marks a key in grace as deprecated', async () => {
    const f = fixture('test', { status: 'rotated', rotatedAt: new Date(T0 - 1000).toISOString(), graceUntil: new Date(T0 + 7 * 86_400_000).toISOString() });
    store(f);
    const result = await make()(withKey(f.key));
    expect(result.context).toMatchObject({ verdict: 'ok', deprecated: true });
    expect(readVerdict(result.context)).toMatchObject({ ok: true, key: { deprecated: true } });
  });

  it('hands the rotation time and the grace deadline of a key in grace to the function, and none for an active key', async () => {
    const rotatedAt = new Date(T0 - 1000).toISOString();
    const graceUntil = new Date(T0 + 7 * 86_400_000).toISOString();
    const f = fixture('test', { status: 'rotated', rotatedAt, graceUntil });
    store(f);
    const result = await make()(withKey(f.key));
    expect(result.context).toMatchObject({ deprecatedAt: rotatedAt, sunsetAt: graceUntil });
    expect(readVerdict(result.context)).toMatchObject({ ok: true, key: { deprecatedAt: rotatedAt, sunsetAt: graceUntil } });
    const active = fixture('test');
    store(active);
    const fresh = await make()(withKey(active.key));
    expect(fresh.context).not.toHaveProperty('sunsetAt');
    expect(fresh.context).not.toHaveProperty('deprecatedAt');
  });

  it.each([
    ['no headers at all', event(undefined)],
    ['no X-API-Key header', event({ accept: 'application/json' })],
    ['an empty header', withKey('')],
    ['a blank header', withKey('   ')],
  ])('answers API_KEY_MISSING for %s, without a read', async (_name, e) => {
    store();
    const result = await make()(e);
    expect(result).toEqual({ isAuthorized: true, context: { verdict: 'error', errorCode: 'API_KEY_MISSING', message: expect.any(String), clientIp: '192.0.2.1' } });
    expect(reads()).toBe(0);
  });

  it.each([
    ['garbage', 'not-a-key'],
    ['a wrong prefix', 'sk_live_' + 'a'.repeat(39)],
    ['a wrong length', generateKey('test').slice(0, -2)],
    ['a bad alphabet', generateKey('test').slice(0, 20) + '!' + generateKey('test').slice(21)],
  ])('answers API_KEY_INVALID for %s, without a read', async (_name, raw) => {
    store();
    const result = await make()(withKey(raw));
    expect(result.context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_INVALID' });
    expect(reads()).toBe(0);
  });

  it('answers API_KEY_INVALID for a typo (bad checksum), without a read', async () => {
    const f = fixture('test');
    store(f);
    const i = 20;
    const typo = f.key.slice(0, i) + (f.key[i] === 'a' ? 'b' : 'a') + f.key.slice(i + 1);
    const result = await make()(withKey(typo));
    expect(result.context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_INVALID' });
    expect(reads()).toBe(0);
  });

  it('answers API_KEY_INVALID for an unknown key (one read)', async () => {
    store();
    const result = await make()(withKey(generateKey('test')));
    expect(result.context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_INVALID' });
    expect(reads()).toBe(1);
  });

  it('answers API_KEY_INVALID for a revoked key', async () => {
    const f = fixture('test', { status: 'revoked', revokedAt: new Date(T0 - 1000).toISOString() });
    store(f);
    expect((await make()(withKey(f.key))).context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_INVALID' });
  });

  it('answers API_KEY_EXPIRED for a rotated key past its grace', async () => {
    const f = fixture('test', { status: 'rotated', rotatedAt: new Date(T0 - 10_000).toISOString(), graceUntil: new Date(T0 - 1).toISOString() });
    store(f);
    expect((await make()(withKey(f.key))).context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_EXPIRED' });
  });

  it('answers API_KEY_EXPIRED for a key rotated with zero grace (deadline = now)', async () => {
    const f = fixture('test', { status: 'rotated', rotatedAt: new Date(T0).toISOString(), graceUntil: new Date(T0).toISOString() });
    store(f);
    expect((await make()(withKey(f.key))).context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_EXPIRED' });
  });

  it('answers API_KEY_WRONG_ENVIRONMENT for a live key on sandbox, saying it is a live/prod key, without a read', async () => {
    const f = fixture('live');
    store(f);
    const result = await make('sandbox')(withKey(f.key));
    expect(result.context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_WRONG_ENVIRONMENT' });
    const message = (result.context as { message: string }).message;
    expect(message).toMatch(/live/);
    expect(message).toMatch(/prod/);
    expect(reads()).toBe(0);
  });

  it('answers API_KEY_WRONG_ENVIRONMENT for a test key on prod, saying it is a sandbox key', async () => {
    const f = fixture('test');
    store(f);
    const result = await make('prod')(withKey(f.key));
    expect(result.context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_WRONG_ENVIRONMENT' });
    expect((result.context as { message: string }).message).toMatch(/test key.*sandbox/);
    expect(reads()).toBe(0);
  });

  it('verifies a live key on prod', async () => {
    const f = fixture('live');
    store(f);
    expect((await make('prod')(withKey(f.key))).context).toMatchObject({ verdict: 'ok', environment: 'live' });
  });

  it('refuses a stored item whose environment does not match the key prefix', async () => {
    const f = fixture('test', { environment: 'live' });
    store(f);
    expect((await make()(withKey(f.key))).context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_INVALID' });
  });
});

describe('authorizer handler: cache', () => {
  it('serves the second request from the cache (one read for two requests)', async () => {
    const f = fixture('test');
    store(f);
    const h = make();
    await h(withKey(f.key));
    clock += 30 * SECOND;
    expect((await h(withKey(f.key))).context).toMatchObject({ verdict: 'ok' });
    expect(reads()).toBe(1);
  });

  it('reads again after 60 s, so a key changed by hand in the table (no keys version bump) is seen within 60 s', async () => {
    const f = fixture('test');
    store(f);
    const h = make();
    expect((await h(withKey(f.key))).context).toMatchObject({ verdict: 'ok' });
    // Revoked in the table right after the read.
    ddb.on(GetCommand, { Key: { keyHash: f.item.keyHash } }).resolves({ Item: { ...f.item, status: 'revoked', revokedAt: new Date(T0 + 1).toISOString() } });
    clock = T0 + 60 * SECOND - 1;
    expect((await h(withKey(f.key))).context).toMatchObject({ verdict: 'ok' });
    expect(reads()).toBe(1);
    clock = T0 + 60 * SECOND;
    expect((await h(withKey(f.key))).context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_INVALID' });
    expect(reads()).toBe(2);
  });

  it('never serves a key past its grace deadline from the cache', async () => {
    const graceUntil = new Date(T0 + 20 * SECOND).toISOString();
    const f = fixture('test', { status: 'rotated', rotatedAt: new Date(T0 - 1000).toISOString(), graceUntil });
    store(f);
    const h = make();
    expect((await h(withKey(f.key))).context).toMatchObject({ verdict: 'ok', deprecated: true });
    clock = T0 + 20 * SECOND - 1;
    expect((await h(withKey(f.key))).context).toMatchObject({ verdict: 'ok', deprecated: true });
    expect(reads()).toBe(1);
    clock = T0 + 21 * SECOND;
    expect((await h(withKey(f.key))).context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_EXPIRED' });
    // The cache entry ended at the deadline: the table was read again, well before 60 s.
    expect(reads()).toBe(2);
  });

  it('remembers an unknown key briefly (negative cache), then reads again', async () => {
    store();
    const h = make();
    const key = generateKey('test');
    await h(withKey(key));
    clock += 4 * SECOND;
    expect((await h(withKey(key))).context).toMatchObject({ verdict: 'error', errorCode: 'API_KEY_INVALID' });
    expect(reads()).toBe(1);
    clock += 2 * SECOND;
    await h(withKey(key));
    expect(reads()).toBe(2);
  });

  it('sees a key created after its negative entry expired', async () => {
    const f = fixture('test');
    store();
    const h = make();
    expect((await h(withKey(f.key))).context).toMatchObject({ errorCode: 'API_KEY_INVALID' });
    store(f);
    clock += 5 * SECOND;
    expect((await h(withKey(f.key))).context).toMatchObject({ verdict: 'ok' });
  });

  it('bounds the caches (least recently used entries are dropped)', async () => {
    store();
    const h = make('sandbox', { maxEntries: 3 });
    const keys = Array.from({ length: 4 }, () => generateKey('test'));
    for (const k of keys) await h(withKey(k));
    expect(reads()).toBe(4);
    expect(h.authorizer.cacheSizes().unknown).toBe(3);
    await h(withKey(keys[3]!)); // still cached
    expect(reads()).toBe(4);
    await h(withKey(keys[0]!)); // evicted
    expect(reads()).toBe(5);
  });

  it('turns a DynamoDB failure into SERVICE_UNAVAILABLE and does not cache it', async () => {
    const f = fixture('test');
    ddb.on(GetCommand).rejects(Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' }));
    const h = make();
    expect((await h(withKey(f.key))).context).toEqual({ verdict: 'error', errorCode: 'SERVICE_UNAVAILABLE', message: expect.any(String), clientIp: '192.0.2.1' });
    expect((await h(withKey(f.key))).context).toMatchObject({ errorCode: 'SERVICE_UNAVAILABLE' });
    expect(reads()).toBe(2);
    ddb.reset();
    store(f);
    expect((await h(withKey(f.key))).context).toMatchObject({ verdict: 'ok' });
    expect(reads()).toBe(1);
  });

  it('turns a damaged item into SERVICE_UNAVAILABLE, never a verified key', async () => {
    const f = fixture('test', { scopes: undefined, status: 'weird' });
    store(f);
    expect((await make()(withKey(f.key))).context).toMatchObject({ verdict: 'error', errorCode: 'SERVICE_UNAVAILABLE' });
  });
});

describe('authorizer handler: rate limits', () => {
  const limited = () => fixture('test', { rateLimit: { rate: 1, burst: 2 } }, 'key_LimitedLimited0000');
  const other = () => fixture('test', {}, 'key_OtherOtherOther000');

  it('serves a key its burst, refuses the next request RATE_LIMITED with Retry-After, and serves it again a second later', async () => {
    const f = limited();
    store(f);
    const h = make();
    const first = await h(withKey(f.key));
    expect(first.context).toMatchObject({ verdict: 'ok', rateLimitPolicy: '"per-key";q=2;w=2', rateLimit: '"per-key";r=1;t=1' });
    expect((await h(withKey(f.key))).context).toMatchObject({ verdict: 'ok', rateLimit: '"per-key";r=0;t=1' });
    const refused = await h(withKey(f.key));
    expect(refused.isAuthorized).toBe(true); // never denied: the function answers the envelope
    expect(refused.context).toEqual({
      verdict: 'error',
      errorCode: 'RATE_LIMITED',
      message: expect.stringContaining('retry after 1 s'),
      rateLimitPolicy: '"per-key";q=2;w=2',
      rateLimit: '"per-key";r=0;t=1',
      retryAfter: '1',
      clientIp: '192.0.2.1',
    });
    // What the function reads from it: the code and the three headers.
    expect(readVerdict(refused.context)).toEqual({
      ok: false,
      errorCode: 'RATE_LIMITED',
      message: expect.any(String),
      headers: { 'ratelimit-policy': '"per-key";q=2;w=2', ratelimit: '"per-key";r=0;t=1', 'retry-after': '1' },
    });
    clock += SECOND;
    expect((await h(withKey(f.key))).context).toMatchObject({ verdict: 'ok' });
  });

  it('does not limit another key', async () => {
    const a = limited();
    const b = other();
    store(a, b);
    const h = make();
    for (let i = 0; i < 5; i++) await h(withKey(a.key));
    expect((await h(withKey(a.key))).context).toMatchObject({ errorCode: 'RATE_LIMITED' });
    for (let i = 0; i < 20; i++) expect((await h(withKey(b.key))).context).toMatchObject({ verdict: 'ok' });
  });

  it("counts served and refused requests in the key's day item: a reservation per request of a burst, then at most once per 10 s", async () => {
    const f = limited();
    store(f);
    const h = make();
    for (let i = 0; i < 4; i++) await h(withKey(f.key)); // the first request writes at once
    clock += 10 * SECOND;
    await h(withKey(f.key));
    // The key's counters (its client's, usage#cli_..., are counted alike: the client's limit).
    const writes = ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input).filter((w) => String(w.Key?.keyHash).startsWith('usage#key_'));
    const values = (w: (typeof writes)[number]) => w.ExpressionAttributeValues as Record<string, number>;
    // The burst: each request reserved from the key's shared bucket (one write each; the first
    // tries the form of a bucket in use, and then, there being none yet, the other); then the
    // container's own bucket, its refusals written with its next write.
    expect(writes.map((w): unknown[] => [w.Key?.keyHash, values(w)[':s'], values(w)[':r']])).toEqual([
      ['usage#key_LimitedLimited0000#2026-03-01', 1, 0],
      ['usage#key_LimitedLimited0000#2026-03-01', 1, 0],
      ['usage#key_LimitedLimited0000#2026-03-01', 1, 0],
      ['usage#key_LimitedLimited0000#2026-03-01', 1, 2],
    ]);
    expect(writes[0]!.TableName).toBe(TABLE);
  });

  it('keeps serving when the counter cannot be written (fail open), and reports it as a metric', async () => {
    const f = fixture('test');
    store(f);
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' }));
    const out = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      const h = make();
      for (let i = 0; i < 3; i++) expect((await h(withKey(f.key))).context).toMatchObject({ verdict: 'ok' });
      const metric = out.mock.calls.map((c) => String(c[0])).find((line) => line.includes('UsageWriteFailures'));
      expect(JSON.parse(metric!)).toMatchObject({ Stage: 'sandbox', UsageWriteFailures: 1 });
      expect(error).toHaveBeenCalledWith(expect.stringContaining('usage counter write failed'), expect.objectContaining({ keyId: f.item.keyId }));
    } finally {
      out.mockRestore();
      error.mockRestore();
    }
  });
});

describe('authorizer handler: logs', () => {
  let lines: string[] = [];
  const capture = (...args: unknown[]) => {
    lines.push(JSON.stringify(args, (_k, v: unknown) => (v instanceof Error ? { name: v.name, message: v.message } : v)));
  };
  beforeEach(() => {
    lines = [];
    jest.spyOn(logger, 'info').mockImplementation(capture);
    jest.spyOn(logger, 'error').mockImplementation(capture);
    jest.spyOn(logger, 'warn').mockImplementation(capture);
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('logs key ids and hash prefixes, never the key or its full hash', async () => {
    const good = fixture('test');
    const live = fixture('live');
    const unknownKey = generateKey('test');
    const h = make();
    store(good);
    await h(withKey(good.key));
    await h(withKey(live.key));
    await h(withKey(unknownKey));
    await h(withKey(good.key.slice(0, -1) + (good.key.endsWith('a') ? 'b' : 'a')));
    ddb.on(GetCommand).rejects(new Error('boom'));
    await h(withKey(generateKey('test')));
    expect(lines.length).toBeGreaterThanOrEqual(5);
    const text = lines.join('\n');
    expect(text).toContain('key_AAAAAAAAAAAAAAAAAAAA');
    expect(text).toContain(sha256(unknownKey).slice(0, 12));
    for (const secret of [good.key, live.key, unknownKey]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(9, 41)); // the random part alone
      expect(text).not.toContain(sha256(secret));
    }
  });
});

describe('functions/authorizer/handler.ts', () => {
  it('reads the stage and the keys table from the environment, once, like a Lambda container', async () => {
    process.env.STAGE = 'prod';
    process.env.KEYS_TABLE_NAME = 'keys-from-env';
    try {
      const { handler } = await import('../../../functions/authorizer/handler.js');
      const live = fixture('live');
      store(live);
      expect((await handler(withKey(live.key))).context).toMatchObject({ verdict: 'ok', environment: 'live' });
      expect(ddb.commandCalls(GetCommand)[0]!.args[0].input.TableName).toBe('keys-from-env');
      const test = fixture('test');
      expect((await handler(withKey(test.key))).context).toMatchObject({ errorCode: 'API_KEY_WRONG_ENVIRONMENT' });
    } finally {
      delete process.env.STAGE;
      delete process.env.KEYS_TABLE_NAME;
    }
  });
});
