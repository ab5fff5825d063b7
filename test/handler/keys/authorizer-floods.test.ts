import { beforeEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { createDocumentClient } from '../../../src/aws/dynamodb.js';
import { DEFAULT_FAILED_AUTH_LIMIT } from '../../../src/keys/limits/address-limit.js';
import { createAuthorizerHandler } from '../../../src/keys/authorizer-handler.js';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../../src/auth/edge.js';
import { generateKey } from '../../../src/keys/format.js';
import { authorizerEvent, lambdaContext, listEvent } from '../../support/events.js';
import { buildListHandler } from '../../support/handlers.js';

/**
 * A flood of made-up keys (well-formed, checksum valid, in no table) from one address, through the
 * real authorizer handler and the real list function, the table mocked so that every read of a
 * key item is counted: after the address's burst of failures no read happens, the flood gets
 * `429 RATE_LIMITED` in the envelope with `Retry-After`, and valid keys are served, from that
 * address and from any other.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = 'api-keys-test';
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const FLOODER = '198.51.100.7';
const OTHER = '203.0.113.20';
const BURST = DEFAULT_FAILED_AUTH_LIMIT.burst;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const keyReads = () => ddb.commandCalls(GetCommand).filter((c) => c.args[0].input.Key?.keyHash !== '~version' && !String(c.args[0].input.Key?.keyHash).startsWith('client#')).length;

function keyItem(key: string, keyId: string): Record<string, unknown> {
  return {
    keyHash: sha256(key),
    keyId,
    environment: 'test',
    scopes: ['empty_leg:read'],
    status: 'active',
    createdAt: new Date(T0 - 86_400_000).toISOString(),
  };
}

function from(address: string, key: string, headers: Record<string, string> = {}): APIGatewayRequestAuthorizerEventV2 {
  const event = authorizerEvent(key);
  return {
    ...event,
    headers: { ...event.headers, ...headers },
    requestContext: { ...event.requestContext, http: { ...event.requestContext.http, sourceIp: address } },
  };
}

let clock = T0;
const valid = { key: generateKey('test'), keyId: 'key_ValidValidValid000' };
const newcomer = { key: generateKey('test'), keyId: 'key_NewcomerNewcomer0' };

function make(originSecret?: string) {
  return createAuthorizerHandler({
    client: createDocumentClient({ endpoint: 'http://127.0.0.1:9' }),
    tableName: TABLE,
    stage: 'sandbox',
    now: () => clock,
    ...(originSecret ? { originSecret } : {}),
  });
}

beforeEach(() => {
  ddb.reset();
  clock = T0;
  ddb.on(GetCommand).resolves({});
  ddb.on(UpdateCommand).resolves({ Attributes: { served: 1, refused: 0 } });
  for (const k of [valid, newcomer]) ddb.on(GetCommand, { Key: { keyHash: sha256(k.key) } }).resolves({ Item: keyItem(k.key, k.keyId) });
});

describe('a flood of made-up keys from one address', () => {
  it('costs one read per key for the burst, then none: 429 RATE_LIMITED with Retry-After, in the envelope', async () => {
    const authorize = make();
    const list = buildListHandler().handler;
    expect((await authorize(from(FLOODER, valid.key))).context).toMatchObject({ verdict: 'ok' });
    expect(keyReads()).toBe(1);

    const flood = 500;
    const verdicts = [];
    for (let i = 0; i < flood; i++) verdicts.push((await authorize(from(FLOODER, generateKey('test')))).context);
    // The burst of failures is answered as before, one read each; everything after it costs no read.
    expect(verdicts.slice(0, BURST).every((v) => v.verdict === 'error' && v.errorCode === 'API_KEY_INVALID')).toBe(true);
    expect(verdicts.slice(BURST).every((v) => v.verdict === 'error' && v.errorCode === 'RATE_LIMITED')).toBe(true);
    expect(keyReads()).toBe(1 + BURST);

    // What the caller gets: the list function answers the verdict in the envelope, with Retry-After.
    const limited = verdicts[flood - 1]!;
    const response = await list(listEvent(undefined, limited), lambdaContext());
    expect(response.statusCode).toBe(429);
    const body = JSON.parse(response.body ?? '') as Record<string, unknown>;
    expect(body).toMatchObject({ code: 'RATE_LIMITED', data: null, message: expect.stringMatching(/failed authentications from this address/) });
    const retryAfter = Number(response.headers?.['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    // Never more than the time the limit takes to refill from empty.
    expect(retryAfter).toBeLessThanOrEqual(BURST / DEFAULT_FAILED_AUTH_LIMIT.rate);
  });

  it('serves valid keys meanwhile: a key verified here from the flooding address, and any key from another address', async () => {
    const authorize = make();
    expect((await authorize(from(FLOODER, valid.key))).context).toMatchObject({ verdict: 'ok' });
    for (let i = 0; i < 200; i++) await authorize(from(FLOODER, generateKey('test')));
    expect((await authorize(from(FLOODER, generateKey('test')))).context).toMatchObject({ errorCode: 'RATE_LIMITED' });
    const readsBefore = keyReads();

    // From the flooding address, the key this container verified: served (from its cache).
    for (let i = 0; i < 5; i++) expect((await authorize(from(FLOODER, valid.key))).context).toMatchObject({ verdict: 'ok' });
    expect(keyReads()).toBe(readsBefore);
    // From another address: the verified key, a key never seen here (one read), and a made-up key
    // answered as usual (one read): the flood costs other addresses nothing.
    expect((await authorize(from(OTHER, valid.key))).context).toMatchObject({ verdict: 'ok' });
    expect((await authorize(from(OTHER, newcomer.key))).context).toMatchObject({ verdict: 'ok', keyId: newcomer.keyId });
    expect((await authorize(from(OTHER, generateKey('test')))).context).toMatchObject({ errorCode: 'API_KEY_INVALID' });
    expect(keyReads()).toBe(readsBefore + 2);
    // Once verified here, the newcomer passes the flooding address's limit too.
    expect((await authorize(from(FLOODER, newcomer.key))).context).toMatchObject({ verdict: 'ok' });
  });

  it('a key this container has not verified waits out the limit like the flood, then is read', async () => {
    const authorize = make();
    for (let i = 0; i < 100; i++) await authorize(from(FLOODER, generateKey('test')));
    const refused = (await authorize(from(FLOODER, newcomer.key))).context;
    expect(refused).toMatchObject({ verdict: 'error', errorCode: 'RATE_LIMITED' });
    const wait = Number((refused as { retryAfter?: string }).retryAfter);
    const reads = keyReads();
    clock += wait * 1000;
    expect((await authorize(from(FLOODER, newcomer.key))).context).toMatchObject({ verdict: 'ok' });
    expect(keyReads()).toBe(reads + 1);
  });

  it('a sustained flood gets no read at all; a pause of Retry-After gives it one more read', async () => {
    const authorize = make();
    for (let i = 0; i < BURST; i++) await authorize(from(FLOODER, generateKey('test')));
    const reads = keyReads();
    // Ten requests a second for a minute: above the refill rate, so the debt never clears.
    for (let s = 0; s < 60; s++) {
      for (let i = 0; i < 10; i++) {
        clock += 100;
        expect((await authorize(from(FLOODER, generateKey('test')))).context).toMatchObject({ errorCode: 'RATE_LIMITED' });
      }
    }
    expect(keyReads()).toBe(reads);
    const last = (await authorize(from(FLOODER, generateKey('test')))).context as { retryAfter?: string };
    clock += Number(last.retryAfter) * 1000;
    expect((await authorize(from(FLOODER, generateKey('test')))).context).toMatchObject({ errorCode: 'API_KEY_INVALID' });
    expect(keyReads()).toBe(reads + 1);
  });

  it('counts failures that cost no read too (malformed, bad checksum, missing, wrong environment)', async () => {
    const authorize = make();
    const good = generateKey('test');
    const typo = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
    const kinds = ['elk_test_short', typo, '', generateKey('live')];
    for (let i = 0; i < BURST; i++) await authorize(from(FLOODER, kinds[i % kinds.length]!));
    expect(keyReads()).toBe(0);
    expect((await authorize(from(FLOODER, generateKey('test')))).context).toMatchObject({ errorCode: 'RATE_LIMITED' });
    expect(keyReads()).toBe(0);
  });
});

describe('behind CloudFront (an origin secret configured)', () => {
  const SECRET = 'x'.repeat(40);

  it('refuses a request without the secret (it went around CloudFront) without a read', async () => {
    const authorize = make(SECRET);
    const wrong: Record<string, string>[] = [{}, { [ORIGIN_SECRET_HEADER]: 'y'.repeat(40) }, { [ORIGIN_SECRET_HEADER]: SECRET.slice(1) }];
    for (const headers of wrong) {
      const verdict = (await authorize(from(FLOODER, valid.key, headers))).context;
      expect(verdict).toMatchObject({ verdict: 'error', errorCode: 'PERMISSION_DENIED' });
    }
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
    expect((await authorize(from(FLOODER, valid.key, { [ORIGIN_SECRET_HEADER]: SECRET }))).context).toMatchObject({ verdict: 'ok' });
  });

  it("limits by the viewer's address CloudFront gives, not by CloudFront's own", async () => {
    const authorize = make(SECRET);
    const edge = '130.176.0.1';
    const via = (viewer: string) => ({ [ORIGIN_SECRET_HEADER]: SECRET, [VIEWER_ADDRESS_HEADER]: viewer });
    for (let i = 0; i < BURST; i++) await authorize(from(edge, generateKey('test'), via(`${FLOODER}:4711`)));
    expect((await authorize(from(edge, generateKey('test'), via(`${FLOODER}:4712`)))).context).toMatchObject({ errorCode: 'RATE_LIMITED' });
    // Another viewer through the same edge address is answered as usual.
    expect((await authorize(from(edge, generateKey('test'), via('[2001:db8::1]:443')))).context).toMatchObject({ errorCode: 'API_KEY_INVALID' });
    expect((await authorize(from(edge, newcomer.key, via(`${OTHER}:1000`)))).context).toMatchObject({ verdict: 'ok' });
  });
});
