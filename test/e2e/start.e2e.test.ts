import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../local/dynamodb-local.js';

/** How `npm start` fails: one clear line and a non-zero status, before anything is left running. */
function start(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync('node_modules/.bin/tsx', ['local/start.ts', ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stderr: r.stderr.trim(), stdout: r.stdout.trim() };
}

describe('npm start refuses bad input', () => {
  it.each([
    [['--port', 'abc'], '--port'],
    [['--stage', 'staging'], '--stage'],
    [['--verbose'], '--verbose'],
    [['--data', '/nonexistent/legs.json'], '--data'],
    [['--host', 'example.com'], '--host'],
  ])('%j exits 2 with one line naming %s', (args, flag) => {
    const r = start(args);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(flag);
  });

  it('exits 2 naming a bad setting', () => {
    const r = start([], { DYNAMODB_PORT: '99999' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('DYNAMODB_PORT');
  });

  it('lists the bad records of a --data file and loads nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'empty-legs-start-'));
    const file = join(dir, 'bad.ndjson');
    writeFileSync(file, '{"id":"ok-but-incomplete","startDate":"2030-01-01"}\n');
    const r = start(['--data', file, '--port', String(await freePort())]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('nothing was loaded');
    expect(r.stderr).toContain('line 1: endDate');
    expect(r.stdout).not.toContain('Listening on');
  });

  it('says so in one line when the port is taken', async () => {
    const port = await freePort();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const r = start(['--port', String(port)]);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(`Port ${port} (API) is already in use`);
    } finally {
      blocker.close();
    }
  });

  it('says in one line that java is missing, when it is', async () => {
    // A PATH with node and nothing else: no java to start DynamoDB Local with.
    const bin = mkdtempSync(join(tmpdir(), 'empty-legs-nojava-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const r = start(['--port', String(await freePort())], { PATH: bin });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('DynamoDB Local needs Java 17 or newer: `java` was not found on PATH');
  });
});

