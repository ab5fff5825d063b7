// @dateIndependent: signs at the tests' clock and at a fixed instant; the listener reads the same clock.
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { freePort } from '../../../local/dynamodb-local.js';
import { generateSecret } from '../../../src/watches/resource.js';
import { testNow } from '../../support/clock.js';

/** `npm run webhooks:listen` as a child process: verifies, prints, and fails the first N attempts when asked. */
jest.setTimeout(60_000);
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

async function listen(args: string[]): Promise<{ port: number; output: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/webhooks-listen.ts', '--port', String(port), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  for (let i = 0; i < 200 && !out.includes('Listening on'); i++) await new Promise((r) => setTimeout(r, 50));
  expect(out).toContain(`Listening on http://127.0.0.1:${port}/`);
  return { port, output: () => out };
}

/** standardwebhooks headers for `body`, signed at `at` (epoch ms) as the service signs. */
function signed(secret: string, id: string, at: number, body: string): Record<string, string> {
  const when = new Date(at);
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at / 1000)), 'webhook-signature': new Webhook(secret).sign(id, when, body) };
}

describe('npm run webhooks:listen', () => {
  it('verifies a signed delivery and prints it; refuses a bad signature; --fail answers 503 first', async () => {
    const secret = generateSecret();
    const { port, output } = await listen(['--secret', secret, '--fail', '1']);
    const body = JSON.stringify({ type: 'empty_leg.listed', timestamp: '2026-11-21T12:00:00Z', data: { watchId: 'wat_x', id: 'L1', leg: null } });
    const headers = signed(secret, 'msg_1', testNow(), body);
    const first = await fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', headers, body });
    const second = await fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', headers, body });
    const forged = await fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', headers: { ...headers, 'webhook-id': 'msg_2' }, body });
    expect([first.status, second.status, forged.status]).toEqual([503, 204, 503]);
    await new Promise((r) => setTimeout(r, 200));
    expect(output()).toMatch(/webhook-id msg_1 attempt 1: signature ok; empty_leg.listed leg L1 .* -> 503/);
    expect(output()).toMatch(/webhook-id msg_1 attempt 2: signature ok; .* -> 204/);
    expect(output()).toMatch(/webhook-id msg_2 attempt 1: SIGNATURE REFUSED/);
  });

  it('--at: judges the timestamps at that instant, as npm start -- --at signs them; another instant is refused', async () => {
    const secret = generateSecret();
    const at = Date.parse('2027-03-28T01:30:00Z');
    const { port, output } = await listen(['--secret', secret, '--at', '2027-03-28T01:30:00Z']);
    const body = JSON.stringify({ type: 'empty_leg.listed', timestamp: '2027-03-28T01:30:00Z', data: { watchId: 'wat_x', id: 'L2', leg: null } });
    const moved = await fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', headers: signed(secret, 'msg_at', at + 1_000, body), body });
    const other = await fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', headers: signed(secret, 'msg_other', at - 86_400_000, body), body });
    expect([moved.status, other.status]).toEqual([204, 204]);
    await new Promise((r) => setTimeout(r, 200));
    expect(output()).toMatch(/^2027-03-28T01:3\d:\d\d\.\d{3}Z POST \/hook webhook-id msg_at attempt 1: signature ok;/m);
    expect(output()).toMatch(/webhook-id msg_other attempt 1: SIGNATURE REFUSED \(Message timestamp too old\)/);
  });

  it('exits 2 without a secret', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/webhooks-listen.ts'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(2);
    expect(err).toMatch(/--secret/);
  });
});
