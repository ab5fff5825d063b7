import { describe, expect, test } from '@jest/globals';
import { assertPortFree, freePort } from '../../local/dynamodb-local.js';
import { startLocalServer } from '../support/local-service.js';

/**
 * DynamoDB Local never outlives `npm start`, however it ends: Ctrl-C (SIGINT), SIGTERM, SIGHUP, a
 * crash (an uncaught exception) or SIGKILL of the server process. Every case starts the server on
 * the same two ports, so each start also shows that the previous case left both ports free.
 */
const GONE_WITHIN_MS = 15_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

async function portFree(port: number, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  for (;;) {
    try {
      await assertPortFree(port, 'test');
      return true;
    } catch {
      if (Date.now() > until) return false;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const CASES: { name: string; end: (pid: number) => void; nodeArgs?: string[] }[] = [
  { name: 'Ctrl-C (SIGINT)', end: (pid) => process.kill(pid, 'SIGINT') },
  { name: 'SIGTERM', end: (pid) => process.kill(pid, 'SIGTERM') },
  { name: 'SIGHUP', end: (pid) => process.kill(pid, 'SIGHUP') },
  {
    name: 'a crash (uncaught exception)',
    end: (pid) => process.kill(pid, 'SIGUSR2'),
    nodeArgs: ['--import', './test/support/crash-on-sigusr2.mjs'],
  },
  { name: 'kill -9 of the server', end: (pid) => process.kill(pid, 'SIGKILL') },
];

describe('DynamoDB Local ends with npm start', () => {
  let ports: { port: number; dynamodbPort: number } | undefined;

  test.each(CASES)(
    'after $name: java is gone, both ports are free, and the next start on them works',
    async ({ end, nodeArgs }) => {
      ports ??= { port: await freePort(), dynamodbPort: await freePort() };
      const server = await startLocalServer({ fewLegs: true, ...ports, ...(nodeArgs ? { nodeArgs } : {}), timeoutMs: 90_000 });
      try {
        expect(alive(server.dynamodbPid)).toBe(true);
        const res = await fetch(`${server.baseUrl}/open/v1/empty-legs?size=1`, { headers: { 'X-API-Key': server.apiKey } });
        expect(res.status).toBe(200);

        end(server.pid);
        let timer: NodeJS.Timeout | undefined;
        const exitedInTime = await Promise.race([
          server.exited.then(() => true),
          new Promise<boolean>((r) => (timer = setTimeout(() => r(false), GONE_WITHIN_MS))),
        ]).finally(() => clearTimeout(timer));
        expect(exitedInTime).toBe(true);
        expect(await gone(server.dynamodbPid, GONE_WITHIN_MS)).toBe(true);
        expect(await portFree(server.dynamodbPort, 5_000)).toBe(true);
        expect(await portFree(server.port, 5_000)).toBe(true);
      } finally {
        // Whatever failed above, leave nothing running.
        if (alive(server.pid)) process.kill(server.pid, 'SIGKILL');
        if (alive(server.dynamodbPid)) process.kill(server.dynamodbPid, 'SIGKILL');
      }
    },
    150_000,
  );
});
