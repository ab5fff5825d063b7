import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { checksumOf, generateKey } from '../../src/keys/format.js';
import { runScript } from '../support/commands.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';
import { rawExchange } from '../support/raw-http.js';

/**
 * Secrets stay secret: `npm start`, keys made with `npm run keys` against its DynamoDB Local
 * (valid, rotated in grace and its successor, of the other environment) and made-up ones (valid
 * checksums never issued, a wrong checksum, partial), each sent in every place a caller may put
 * it: the X-API-Key header, a query parameter (plain and percent-encoded), `Authorization: Bearer`,
 * a cookie, the path, a body, an oversized request and a malformed one. Then every line the server
 * printed after its start-up banner is searched for them. The banner (before "Listening on")
 * prints the server's own fresh key by design; that key is not used here.
 */
const PATH = '/open/v1/empty-legs';

let service: RunningService;
let port: number;
const secrets: string[] = [];

jest.setTimeout(90_000);

async function keysJson(args: string[]): Promise<{ keyId: string; key: string }> {
  const r = await runScript('keys', [...args, '--json'], {
    AWS_REGION: 'us-east-1',
    DYNAMODB_ENDPOINT: service.dynamodbEndpoint,
    KEYS_TABLE_NAME: service.keysTableName,
    LEGS_TABLE_NAME: service.legsTableName,
  });
  if (r.code !== 0) throw new Error(`npm run keys -- ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as { keyId: string; key: string };
}

beforeAll(async () => {
  service = await startLocalServer({ fewLegs: true, stage: 'sandbox', env: { POWERTOOLS_LOG_LEVEL: 'DEBUG' } });
  port = Number(new URL(service.baseUrl).port);
  const valid = await keysJson(['create', '--env', 'test', '--scopes', 'empty_leg:read']);
  const rotating = await keysJson(['create', '--env', 'test', '--scopes', 'empty_leg:read']);
  const successor = await keysJson(['rotate', rotating.keyId, '--grace', '7d']);
  const live = await keysJson(['create', '--env', 'live', '--scopes', 'empty_leg:read']);
  const head = 'elk_test_' + 'Q'.repeat(31) + 'z';
  secrets.push(
    valid.key,
    rotating.key,
    successor.key,
    live.key,
    generateKey('test'),
    generateKey('live'),
    head + checksumOf(head).split('').reverse().join(''),
  );
}, 180_000);

afterAll(async () => service?.stop());

function send(path: string, init: RequestInit = {}) {
  return fetch(`${service.baseUrl}${path}`, init).then(async (res) => ({ status: res.status, body: await res.text() }));
}

describe('a key never reaches a log line, wherever a caller puts it', () => {
  it('sends every key in every place, then finds none of them in the server output', async () => {
    let sent = 0;
    for (const key of secrets) {
      const encoded = key.replace(/_/g, '%5F');
      const partial = key.slice(0, 30);
      const answers = await Promise.all([
        send(PATH, { headers: { 'X-API-Key': key } }),
        send(`${PATH}?apiKey=${key}&size=2`, { headers: { 'X-API-Key': key } }),
        send(`${PATH}?apiKey=${encoded}`),
        send(`${PATH}?page=${key}`, { headers: { 'X-API-Key': secrets[0]! } }),
        send(`${PATH}?depCityName=${partial}`, { headers: { 'X-API-Key': secrets[0]! } }),
        send(PATH, { headers: { Authorization: `Bearer ${key}` } }),
        send(PATH, { headers: { Cookie: `apiKey=${key}; other=1`, 'User-Agent': `client ${key}` } }),
        send(`${PATH}/${key}`),
        send(`/${key}?x=${key}`),
        send(`/open/v1/${encoded}`),
        send(PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ apiKey: key }) }),
        send(`/${partial}`),
      ]);
      sent += answers.length;
      for (const a of answers) expect(a.body).toMatch(/^\{"code":/);
      // Requests the HTTP parser refuses: the raw bytes of the request must not be logged either.
      await rawExchange(port, `GET /${key}/${'x'.repeat(11_000)} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`);
      await rawExchange(port, `GET /${key}\u0001 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`);
      sent += 2;
    }
    expect(sent).toBe(secrets.length * 14);
    // Give the server a moment to flush its last lines.
    await new Promise((r) => setTimeout(r, 500));

    const output = service.output();
    const banner = output.indexOf('Listening on http');
    expect(banner).toBeGreaterThan(0);
    const log = output.slice(banner);
    // The requests were logged (and redacted), not left out.
    expect(log.match(/"message":"request"/g)?.length ?? 0).toBeGreaterThanOrEqual(secrets.length * 10);
    expect(log).toContain('apiKey=elk_test_[REDACTED]');
    expect(log).toContain('request refused by the local gateway');
    for (const key of secrets) {
      expect(log).not.toContain(key);
      expect(log).not.toContain(key.slice(9, 41)); // the random part alone
      expect(log).not.toContain(key.slice(9, 25)); // half of it
    }
    // Nothing shaped like a key at all, in any line.
    for (const line of log.split('\n')) expect(line).not.toMatch(/elk(_|%5F)(live|test)(_|%5F)[0-9A-Za-z]/i);
  });
});
