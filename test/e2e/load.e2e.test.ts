import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKey } from '../../src/keys/format.js';
import { KEY_RULES, type LoadKeys } from '../../bench/load/mix.js';
import { runLoad, type LoadReport } from '../../bench/load/run.js';
import { runScript } from '../support/commands.js';

/**
 * The load test in CI: a short, bounded run of `npm run load` (it starts `npm start` itself) that
 * asserts correctness only (no timing): every response is what its request must get. And the same
 * runner against servers that answer wrongly, to show it notices.
 */
describe('npm run load (short run, correctness only)', () => {
  it('fires the whole mix at npm start and finds every response right', async () => {
    const run = await runScript('load', ['--connections', '4', '--amount', '300', '--json'], {}, { inherit: true, timeoutMs: 150_000 });
    expect(run.stderr).toBe('');
    if (run.code !== 0) console.log(run.stdout.slice(-3000));
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as LoadReport;
    expect(report).toMatchObject({ ok: true, wrong: 0, errors: 0, timeouts: 0, responses: 300 });
    // Every kind of key and every class of answer was exercised.
    expect(Object.keys(report.byKeyKind).sort()).toEqual(KEY_RULES.map((r) => r.kind).sort());
    expect(Object.keys(report.byStatus).sort()).toEqual(['200', '400', '401', '403', '404']);
  }, 180_000);
});

describe('the load runner notices wrong answers', () => {
  const keys: LoadKeys = {
    valid: generateKey('test'),
    successor: generateKey('test'),
    rotated: generateKey('test'),
    revoked: generateKey('test'),
    expired: generateKey('test'),
    wrongEnvironment: generateKey('live'),
    noScope: generateKey('test'),
    neverIssued: [generateKey('test')],
    badChecksum: ['elk_test_' + 'A'.repeat(32) + '000000'],
  };
  let server: Server;
  let url: string;
  let answer: (res: ServerResponse) => void = () => undefined;

  beforeAll(async () => {
    server = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const load = () => runLoad({ url, keys, connections: 2, durationSeconds: 5, amount: 200, seed: 7, todayUtc: '2026-11-22' });

  it('a server that says 200 OK to everything', async () => {
    answer = (res) => {
      const traceId = randomUUID();
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff', 'x-trace-id': traceId });
      res.end(JSON.stringify({ code: 'OK', message: 'success', data: { records: [], total: 0, page: 1, size: 20 }, traceId }));
    };
    const report = await load();
    expect(report.ok).toBe(false);
    expect(report.wrong).toBeGreaterThan(0);
    expect(report.problems.map((p) => p.problem).join('\n')).toMatch(/status 200, expected 401/);
    expect(report.problems.map((p) => p.problem).join('\n')).toMatch(/no X-API-Key-Deprecated: true for a rotated key/);
  });

  it('a server that answers with an empty body', async () => {
    answer = (res) => {
      res.writeHead(400);
      res.end();
    };
    const report = await load();
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => p.problem).join('\n')).toMatch(/body is not JSON/);
  });
});
