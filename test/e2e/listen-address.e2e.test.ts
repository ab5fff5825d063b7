import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { startLocalServer, type RunningService } from '../support/local-service.js';

/**
 * `npm start` listens on loopback only, the API and DynamoDB Local alike (DynamoDB Local has no
 * authentication), unless `--host` says otherwise. Checked two ways: a connection to this
 * machine's own non-loopback address, and the listening sockets' addresses read from the kernel.
 */

/** A non-loopback IPv4 address of this machine, if it has one. */
function nonLoopbackAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

/** Whether a TCP connection to host:port is accepted (refused or silent for 3 s: not accepted). */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (accepted: boolean) => {
      socket.destroy();
      resolve(accepted);
    };
    socket.setTimeout(3_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** One address of /proc/net/tcp{,6} ("0100007F" or 32 hex digits, 32-bit words in host order) as text. */
function procAddress(hex: string): string {
  const bytes = (word: string) => Buffer.from(word, 'hex').reverse();
  if (hex.length === 8) return [...bytes(hex)].join('.');
  const raw = Buffer.concat([0, 8, 16, 24].map((i) => bytes(hex.slice(i, i + 8))));
  // An IPv4-mapped address (::ffff:a.b.c.d) is the IPv4 address.
  if (raw.subarray(0, 10).every((b) => b === 0) && raw[10] === 0xff && raw[11] === 0xff) return [...raw.subarray(12)].join('.');
  return raw.every((b) => b === 0) ? '::' : (raw.toString('hex').match(/.{4}/g) ?? []).join(':');
}

/** The addresses sockets listen on at `port`, from the kernel (Linux /proc, else `ss -ltn`); undefined when neither is there. */
function listeningAddresses(port: number): string[] | undefined {
  const tables = ['/proc/net/tcp', '/proc/net/tcp6'].filter((f) => existsSync(f));
  if (tables.length > 0) {
    const found: string[] = [];
    for (const table of tables) {
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        const [, local, , state] = line.trim().split(/\s+/);
        if (state !== '0A' || !local) continue; // 0A: LISTEN
        const [address, portHex] = local.split(':');
        if (address && portHex && parseInt(portHex, 16) === port) found.push(procAddress(address));
      }
    }
    return found;
  }
  const ss = spawnSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' });
  if (ss.status !== 0) return undefined;
  return ss.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (l.trim().split(/\s+/)[3] ?? '').replace(/:\d+$/, '').replace(/^\[(?:::ffff:)?(.*)\]$/, '$1').replace(/^\*$/, '::'));
}

const isLoopback = (address: string) => address.startsWith('127.') || address === '::1';
const isWildcard = (address: string) => address === '0.0.0.0' || address === '::';

const outside = nonLoopbackAddress();

describe('npm start listens on loopback only', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startLocalServer({ fewLegs: true });
  }, 120_000);
  afterAll(async () => service?.stop());

  it('binds the API and DynamoDB Local to loopback addresses', () => {
    const checked = [service.port, service.dynamodbPort].map((port) => listeningAddresses(port));
    if (checked.includes(undefined) && outside === undefined) throw new Error('neither a non-loopback address nor the listening sockets to check');
    for (const addresses of checked) {
      if (addresses === undefined) continue;
      expect(addresses.length).toBeGreaterThan(0);
      expect(addresses.filter((a) => !isLoopback(a))).toEqual([]);
    }
    expect(service.output()).toContain('listen on 127.0.0.1 only');
  });

  (outside ? it : it.skip)(`refuses connections on this machine's non-loopback address (${outside ?? 'none'})`, async () => {
    expect(await accepts('127.0.0.1', service.port)).toBe(true);
    expect(await accepts('127.0.0.1', service.dynamodbPort)).toBe(true);
    expect(await accepts(outside!, service.port)).toBe(false);
    expect(await accepts(outside!, service.dynamodbPort)).toBe(false);
  });
});

describe('npm start -- --host 0.0.0.0 listens on every interface', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startLocalServer({ fewLegs: true, host: '0.0.0.0' });
  }, 120_000);
  afterAll(async () => service?.stop());

  it('binds the API and DynamoDB Local to the wildcard address, and says so', () => {
    for (const port of [service.port, service.dynamodbPort]) {
      const addresses = listeningAddresses(port);
      if (addresses !== undefined) expect(addresses.some(isWildcard)).toBe(true);
    }
    expect(service.output()).toContain('DynamoDB Local has no authentication');
  });

  (outside ? it : it.skip)(`accepts connections on this machine's non-loopback address (${outside ?? 'none'})`, async () => {
    expect(await accepts(outside!, service.port)).toBe(true);
    expect(await accepts(outside!, service.dynamodbPort)).toBe(true);
    const res = await fetch(`http://${outside!}:${service.port}/open/v1/openapi.json`);
    expect(res.status).toBe(200);
  });
});
