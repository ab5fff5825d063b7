import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { request } from 'node:http';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { generateKey } from '../../src/keys/format.js';
import { runScript, type CommandRun } from '../support/commands.js';
import { callApi, ContractViolation, contractViolations } from '../support/contract.js';
import { DEFAULT_FAILED_AUTH_LIMIT } from '../../src/keys/limits/address-limit.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';
import type { Envelope as ApiEnvelope } from '../../src/http/envelope.js';

/**
 * API keys as a client sees them: `npm start` (sandbox), keys made with `npm run keys` against the
 * server's DynamoDB Local, then plain HTTP. Every key below is rotated or revoked before its first
 * use, so the authorizer's cache never hides a change from these tests. Every response is
 * also checked against the contract, docs/openapi.yaml (callApi).
 */
const PATH = '/open/v1/empty-legs';

/** The response envelope (src/http/envelope.ts) as these tests read it. */
type Envelope = ApiEnvelope<unknown>;
interface JsonKey {
  keyId: string;
  clientId: string;
  key: string;
  environment: string;
  scopes: string[];
  name: string | null;
}

let service: RunningService;
/** Every clear key this file made or sent, for the final scans. */
const secrets: string[] = [];

function keys(args: string[]): Promise<CommandRun> {
  return runScript('keys', args, {
    AWS_REGION: 'us-east-1',
    DYNAMODB_ENDPOINT: service.dynamodbEndpoint,
    KEYS_TABLE_NAME: service.keysTableName,
    LEGS_TABLE_NAME: service.legsTableName,
  });
}

async function keysJson(args: string[]): Promise<JsonKey> {
  const r = await keys([...args, '--json']);
  if (r.code !== 0) throw new Error(`npm run keys -- ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  const out = JSON.parse(r.stdout) as JsonKey;
  secrets.push(out.key);
  return out;
}

async function get(key: string | null) {
  return callApi<Envelope>(`${service.baseUrl}${PATH}`, { headers: key === null ? {} : { 'X-API-Key': key } });
}

/** GET of the listing from another loopback address (`localAddress`), checked against the contract. */
function getFrom(localAddress: string, key: string): Promise<{ status: number; headers: Headers; body: Envelope }> {
  const url = new URL(`${service.baseUrl}${PATH}`);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: url.port, path: url.pathname, localAddress, headers: { 'X-API-Key': key } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
          const response = new Response(text, { status: res.statusCode ?? 0, headers });
          const body = JSON.parse(text) as Envelope;
          const problems = contractViolations('GET', url, response, body);
          if (problems.length > 0) reject(new ContractViolation(problems.join('\n')));
          else resolve({ status: response.status, headers: response.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** One character changed, to another base62 character. */
function typo(key: string, at: number): string {
  const ch = key[at] === 'a' ? 'b' : 'a';
  return key.slice(0, at) + ch + key.slice(at + 1);
}

jest.setTimeout(60_000);

beforeAll(async () => {
  service = await startLocalServer({ stage: 'sandbox', fewLegs: true });
  secrets.push(service.apiKey);
}, 120_000);

afterAll(async () => service?.stop());

describe('API keys over HTTP (local server, sandbox)', () => {
  it('serves the key printed at start, without the deprecated header', async () => {
    const { res, body } = await get(service.apiKey);
    expect(res.status).toBe(200);
    expect(body.code).toBe('OK');
    expect(res.headers.get('x-api-key-deprecated')).toBeNull();
  });

  it.each([
    ['no header', null, 'API_KEY_MISSING'],
    ['a blank header', '   ', 'API_KEY_MISSING'],
    ['garbage', 'let-me-in', 'API_KEY_INVALID'],
    ['a made-up key with a wrong checksum', 'elk_test_' + 'A'.repeat(32) + '000000', 'API_KEY_INVALID'],
    ['a well-formed key that was never issued', generateKey('test'), 'API_KEY_INVALID'],
  ])('answers 401 to %s', async (_name, key, code) => {
    const { res, body } = await get(key);
    expect(res.status).toBe(401);
    expect(body).toMatchObject({ code, data: null });
    expect(body.traceId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 401 API_KEY_INVALID to a typo of a valid key, in the random part and in the checksum', async () => {
    for (const at of [9, 25, 44]) {
      const { res, body } = await get(typo(service.apiKey, at));
      expect(res.status).toBe(401);
      expect(body.code).toBe('API_KEY_INVALID');
    }
  });

  it('answers 401 API_KEY_INVALID to a revoked key', async () => {
    const k = await keysJson(['create', '--env', 'test', '--scopes', 'empty_leg:read']);
    expect((await keys(['revoke', k.keyId])).code).toBe(0);
    const { res, body } = await get(k.key);
    expect(res.status).toBe(401);
    expect(body.code).toBe('API_KEY_INVALID');
  });

  it('answers 401 API_KEY_EXPIRED to a key rotated with --grace 0; its successor works', async () => {
    const old = await keysJson(['create', '--env', 'test', '--scopes', 'empty_leg:read']);
    const next = await keysJson(['rotate', old.keyId, '--grace', '0']);
    const expired = await get(old.key);
    expect(expired.res.status).toBe(401);
    expect(expired.body.code).toBe('API_KEY_EXPIRED');
    const ok = await get(next.key);
    expect(ok.res.status).toBe(200);
  });

  it('answers 401 API_KEY_WRONG_ENVIRONMENT to a live key on sandbox, saying it is a live (prod) key', async () => {
    const live = await keysJson(['create', '--env', 'live', '--scopes', 'empty_leg:read']);
    const { res, body } = await get(live.key);
    expect(res.status).toBe(401);
    expect(body.code).toBe('API_KEY_WRONG_ENVIRONMENT');
    expect(body.message).toMatch(/live/);
    expect(body.message).toMatch(/prod/);
  });

  it('answers 403 PERMISSION_DENIED to a key without empty_leg:read', async () => {
    const other = await keysJson(['create', '--env', 'test', '--scopes', 'booking:read']);
    const { res, body } = await get(other.key);
    expect(res.status).toBe(403);
    expect(body).toMatchObject({ code: 'PERMISSION_DENIED', data: null });
  });

  it('marks responses to the old key during grace with X-API-Key-Deprecated, Deprecation and Sunset, not the new key', async () => {
    const old = await keysJson(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--name', 'rotating partner']);
    const next = await keysJson(['rotate', old.keyId, '--grace', '7d']);
    expect(next.name).toBe('rotating partner');
    const listed = await keys(['list', '--json']);
    const record = (JSON.parse(listed.stdout) as { keyId: string; rotatedAt: string; graceUntil: string }[]).find((k) => k.keyId === old.keyId)!;
    const a = await get(old.key);
    expect(a.res.status).toBe(200);
    expect(a.res.headers.get('x-api-key-deprecated')).toBe('true');
    // RFC 9745: `@` + epoch seconds of the rotation; RFC 8594: the HTTP-date the grace ends.
    expect(a.res.headers.get('deprecation')).toBe(`@${Math.floor(Date.parse(record.rotatedAt) / 1000)}`);
    expect(a.res.headers.get('sunset')).toBe(new Date(record.graceUntil).toUTCString());
    expect(Date.parse(a.res.headers.get('sunset')!)).toBe(Math.floor(Date.parse(record.graceUntil) / 1000) * 1000);
    const b = await get(next.key);
    expect(b.res.status).toBe(200);
    expect(b.res.headers.get('x-api-key-deprecated')).toBeNull();
    expect(b.res.headers.get('deprecation')).toBeNull();
    expect(b.res.headers.get('sunset')).toBeNull();
  });

  it('answers 429 RATE_LIMITED with Retry-After to a key past its limit (a bounded burst), while another key is served', async () => {
    const limited = await keysJson(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--rate', '1', '--burst', '5']);
    const other = await keysJson(['create', '--env', 'test', '--scopes', 'empty_leg:read', '--rate', '1', '--burst', '5']);
    // 12 requests at once on loopback, and the other key's request among them.
    const [otherAnswer, ...answers] = await Promise.all([get(other.key), ...Array.from({ length: 12 }, () => get(limited.key))]);
    const served = answers.filter((a) => a.res.status === 200);
    const refused = answers.filter((a) => a.res.status === 429);
    // The burst (5), plus what 1/s refills while the 12 are answered.
    expect(served.length).toBeGreaterThanOrEqual(5);
    expect(served.length).toBeLessThanOrEqual(7);
    expect(refused.length).toBe(answers.length - served.length);
    for (const { res, body } of refused) {
      expect(body).toMatchObject({ code: 'RATE_LIMITED', data: null });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(5);
      expect(res.headers.get('ratelimit')).toMatch(/^"per-key";r=0;t=\d+$/);
    }
    for (const { res } of [...served, ...refused]) expect(res.headers.get('ratelimit-policy')).toBe('"per-key";q=5;w=5');
    expect(served.every((a) => a.res.headers.get('retry-after') === null)).toBe(true);
    // The other key, same limit, same moment: served, its quota untouched by the first key's.
    expect(otherAnswer.res.status).toBe(200);
    expect(otherAnswer.res.headers.get('ratelimit')).toBe('"per-key";r=4;t=1');
    // And the limited key is served again once its Retry-After has passed: the longest one, as the
    // answers come back in any order (a refill served after an earlier refusal was decided).
    const wait = Math.max(...refused.map((a) => Number(a.res.headers.get('retry-after'))));
    await new Promise((r) => setTimeout(r, 1000 * wait));
    expect((await get(limited.key)).res.status).toBe(200);
  });

  it('a flood of made-up keys from one address gets 429 RATE_LIMITED with Retry-After; valid keys are served from it and from another', async () => {
    const flooder = '127.0.0.2';
    // The start key, verified by this server (one authorizer container) before the flood.
    expect((await getFrom(flooder, service.apiKey)).status).toBe(200);
    const answers = [];
    for (let i = 0; i < DEFAULT_FAILED_AUTH_LIMIT.burst + 30; i++) answers.push(await getFrom(flooder, generateKey('test')));
    const refused = answers.filter((a) => a.status === 401);
    const limited = answers.filter((a) => a.status === 429);
    // The burst of failures, plus what the limit refilled while the flood was answered.
    expect(refused.length).toBeGreaterThanOrEqual(DEFAULT_FAILED_AUTH_LIMIT.burst);
    expect(refused.length).toBeLessThan(DEFAULT_FAILED_AUTH_LIMIT.burst + 10);
    expect(limited.length).toBe(answers.length - refused.length);
    expect(answers.at(-1)!.status).toBe(429);
    for (const a of limited) {
      expect(a.body).toMatchObject({ code: 'RATE_LIMITED', data: null });
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Valid keys: the verified one from the flooding address, and any from another address.
    expect((await getFrom(flooder, service.apiKey)).status).toBe(200);
    const fresh = await keysJson(['create', '--env', 'test', '--scopes', 'empty_leg:read']);
    expect((await getFrom('127.0.0.3', fresh.key)).status).toBe(200);
    expect((await getFrom('127.0.0.3', generateKey('test'))).body).toMatchObject({ code: 'API_KEY_INVALID' });
    expect((await get(service.apiKey)).res.status).toBe(200);
  });

  it('no clear key appears in the server log or anywhere in the keys table', async () => {
    const sent = secrets.concat([9, 25, 44].map((at) => typo(service.apiKey, at)));
    expect(sent.length).toBe(14); // the start key, 10 keys made here, 3 typos
    // Give the server a moment to flush its last log lines.
    await new Promise((r) => setTimeout(r, 200));
    const log = service.output();
    expect(log).toMatch(/api key (verified|refused)/);
    const requestLog = log.slice(log.search(/Listening on http/));
    for (const key of sent) {
      expect(requestLog).not.toContain(key);
      expect(requestLog).not.toContain(key.slice(9, 41)); // the random part alone
    }
    // The start banner (before "Listening on") shows the start key, by design; no other key.
    for (const key of sent.filter((k) => k !== service.apiKey)) expect(log).not.toContain(key);

    const client = createDocumentClient({ endpoint: service.dynamodbEndpoint, region: 'local' });
    try {
      const items = (await client.send(new ScanCommand({ TableName: service.keysTableName }))).Items ?? [];
      // The start key and the 10 made here, beside the keys version (src/keys/version.ts), the
      // usage counters (src/keys/limits/usage.ts), the clients' items and history (src/api-keys/).
      // Key items only: the client items and the history (src/api-keys/) share the table too.
      expect(items.filter((i) => /^[0-9a-f]{64}$/.test(String(i.keyHash))).length).toBe(11);
      expect(items.some((i) => String(i.keyHash).startsWith('usage#'))).toBe(true);
      const dump = JSON.stringify(items, (_k, v: unknown) => (v instanceof Set ? Array.from(v as ReadonlySet<unknown>) : v));
      for (const key of sent) {
        expect(dump).not.toContain(key);
        expect(dump).not.toContain(key.slice(9, 41));
      }
    } finally {
      client.destroy();
    }
  });
});

describe('a client manages its own keys over HTTP (/open/v1/api-keys)', () => {
  const BASE = '/open/v1/api-keys';
  const call = (key: string, path: string, init: { method?: string; body?: unknown } = {}) =>
    callApi<Envelope>(`${service.baseUrl}${BASE}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'X-API-Key': key, ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  type View = { id: string; state: string; scopes: string[]; clientId: string; sunsetAt: string | null; key?: string };
  const data = <T>(body: Envelope) => body.data as T;

  /** Polls `probe` until it holds, at most the revocation bound and a second (10 s + 1 s). */
  async function within(ms: number, probe: () => Promise<boolean>): Promise<number> {
    const started = performance.now();
    for (;;) {
      if (await probe()) return performance.now() - started;
      if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  let writer: JsonKey;
  let other: JsonKey;
  const apiSecrets: string[] = [];

  beforeAll(async () => {
    writer = await keysJson(['create', '--env', 'test', '--scopes', 'api_key:read,api_key:write,empty_leg:read', '--name', 'manager']);
    other = await keysJson(['create', '--env', 'test', '--scopes', 'empty_leg:read']);
  }, 60_000);

  it('GET self answers the calling key, whatever its scopes, counted against its rate limit', async () => {
    const { res, body } = await call(other.key, '/self');
    expect(res.status).toBe(200);
    expect(data<View>(body)).toMatchObject({ id: other.keyId, state: 'active', scopes: ['empty_leg:read'], sunsetAt: null });
    // Its client's limit, all its keys together: the default (docs/api.md, "Rate limits").
    expect(data<View & { clientRateLimit: unknown }>(body).clientRateLimit).toEqual({ rate: 20, burst: 40 });
    expect(res.headers.get('ratelimit')).toMatch(/^"per-key";r=\d+;t=\d+$/);
    expect(JSON.stringify(body)).not.toContain(other.key);
  });

  it('refuses a scope the client is not approved for (403 naming it), and keys without api_key:read', async () => {
    const denied = await call(writer.key, '', { method: 'POST', body: { name: 'watcher', scopes: ['empty_leg:read', 'watch:write'] } });
    expect(denied.res.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(denied.body.message).toContain("'watch:write'");
    expect((await call(other.key, '')).body).toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it('creates, rotates with a grace (deprecated headers), revokes within the bound, refuses the last write key (409), and records it all', async () => {
    const created = await call(writer.key, '', { method: 'POST', body: { name: 'reader', scopes: ['empty_leg:read'] } });
    expect(created.res.status).toBe(201);
    const reader = data<View>(created.body);
    apiSecrets.push(reader.key!);
    expect(reader).toMatchObject({ clientId: writer.clientId, state: 'active', scopes: ['empty_leg:read'] });
    expect((await get(reader.key!)).res.status).toBe(200);

    const listed = await call(writer.key, '');
    const records = data<{ records: View[] }>(listed.body).records;
    expect(records.map((r) => r.id).sort()).toEqual([writer.keyId, reader.id].sort());
    expect(JSON.stringify(listed.body)).not.toMatch(/elk_test_/);

    // Another client's key: 404 for every change.
    expect((await call(writer.key, `/${other.keyId}/rotate`, { method: 'POST' })).res.status).toBe(404);
    expect((await call(writer.key, `/${other.keyId}`, { method: 'DELETE' })).res.status).toBe(404);

    const rotated = await call(writer.key, `/${writer.keyId}/rotate`, { method: 'POST', body: { graceHours: 1 } });
    expect(rotated.res.status).toBe(201);
    const { key: next, previous } = data<{ key: View; previous: View }>(rotated.body);
    apiSecrets.push(next.key!);
    expect(previous).toMatchObject({ id: writer.keyId, state: 'in_grace', successorId: next.id });
    expect(Date.parse(previous.sunsetAt!) - Date.parse(data<{ key: { createdAt: string } }>(rotated.body).key.createdAt)).toBe(3_600_000);
    // The old key works on, marked deprecated (once the authorizers follow the rotation).
    await within(11_000, async () => (await call(writer.key, '/self')).res.headers.get('x-api-key-deprecated') === 'true');
    const old = await call(writer.key, '/self');
    expect(old.res.status).toBe(200);
    expect(old.res.headers.get('sunset')).toBe(new Date(previous.sunsetAt!).toUTCString());
    expect((await call(next.key!, '/self')).res.headers.get('x-api-key-deprecated')).toBeNull();

    const revoked = await call(next.key!, `/${reader.id}`, { method: 'DELETE' });
    expect(revoked.res.status).toBe(200);
    expect(data<View>(revoked.body).state).toBe('revoked');
    await within(11_000, async () => (await get(reader.key!)).res.status === 401);

    // The new key is the client's only active key with api_key:write (the old one is in grace).
    const last = await call(next.key!, `/${next.id}`, { method: 'DELETE' });
    expect(last.res.status).toBe(409);
    expect(last.body).toMatchObject({ code: 'LAST_WRITE_KEY' });
    expect((await call(next.key!, `/${writer.keyId}/rotate`, { method: 'POST' })).body).toMatchObject({ code: 'KEY_NOT_ACTIVE' });

    const history = await keys(['history', reader.clientId, '--json']);
    expect(history.code).toBe(0);
    const entries = JSON.parse(history.stdout) as { action: string; keyId: string; via: string; actorKeyId: string | null; at: string }[];
    expect(entries.map((e) => [e.action, e.keyId, e.via, e.actorKeyId])).toEqual([
      ['create', writer.keyId, 'command', null],
      ['create', reader.id, 'api', writer.keyId],
      ['rotate', writer.keyId, 'api', writer.keyId],
      ['revoke', reader.id, 'api', next.id],
    ]);
    expect(entries.every((e) => !Number.isNaN(Date.parse(e.at)))).toBe(true);
    const text = await keys(['history', reader.clientId]);
    expect(text.stdout).toContain(`api, key ${next.id}`);
    for (const secret of [...apiSecrets, writer.key]) expect(history.stdout + text.stdout).not.toContain(secret);
  });

  it('keeps no secret made through the API in the server log or the keys table', async () => {
    await new Promise((r) => setTimeout(r, 200));
    const log = service.output();
    const client = createDocumentClient({ endpoint: service.dynamodbEndpoint, region: 'local' });
    try {
      const items = (await client.send(new ScanCommand({ TableName: service.keysTableName }))).Items ?? [];
      const dump = JSON.stringify(items, (_k, v: unknown) => (v instanceof Set ? Array.from(v as ReadonlySet<unknown>) : v));
      expect(apiSecrets.length).toBe(2);
      for (const key of apiSecrets) {
        expect(log).not.toContain(key.slice(9, 41));
        expect(dump).not.toContain(key.slice(9, 41));
      }
    } finally {
      client.destroy();
    }
  });
});
