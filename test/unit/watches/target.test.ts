import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { checkTargetUrl, ipv6Groups, isPublicAddress, resolveTarget, TargetRefused, type Resolver } from '../../../src/watches/target.js';
import { fcParams } from '../../support/fast-check.js';

/** Pure checks only: a stub resolver stands for DNS, and nothing here opens a socket. */
const stub =
  (map: Record<string, string[]>): Resolver =>
  (host) =>
    Promise.resolve((map[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

const REFUSED = [
  '0.0.0.0', '10.1.2.3', '100.64.0.1', '127.0.0.1', '127.0.0.2', '169.254.169.254', '172.16.0.1', '172.31.255.255',
  '192.0.0.8', '192.0.2.1', '192.168.1.1', '198.18.0.1', '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250',
  '240.0.0.1', '255.255.255.255',
  '::', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::ffff:10.0.0.1', 'fe80::1', 'fe80::1%eth0',
  'fc00::1', 'fd12:3456::1', 'fec0::1', 'ff02::1', 'ff0e::1', '2001:db8::1', '2002:7f00:1::1', '2001::1', '64:ff9b::7f00:1',
  '100::1', '::127.0.0.1', '3fff::1',
];
const PUBLIC = ['1.1.1.1', '8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450::1', '::ffff:8.8.8.8'];

describe('isPublicAddress', () => {
  it.each(REFUSED)('refuses %s', (a) => expect(isPublicAddress(a)).toBe(false));
  it.each(PUBLIC)('accepts %s', (a) => expect(isPublicAddress(a)).toBe(true));

  it('reads every IPv4 address as its ranges say (a reference written here from the ranges)', () => {
    const inRange = (n: number, base: string, prefix: number) => {
      const b = base.split('.').reduce((acc, p) => acc * 256 + Number(p), 0);
      const mask = prefix === 0 ? 0 : 2 ** 32 - 2 ** (32 - prefix);
      return Math.floor(n / 2 ** (32 - prefix)) === Math.floor(b / 2 ** (32 - prefix)) && mask >= 0;
    };
    const ranges: [string, number][] = [
      ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
      ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
      ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 3],
    ];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => {
        const text = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
        const refused = ranges.some(([b, p]) => inRange(n, b, p));
        expect(isPublicAddress(text)).toBe(!refused);
        // The same address mapped into IPv6 reads the same.
        expect(isPublicAddress(`::ffff:${text}`)).toBe(!refused);
      }),
      fcParams(2000),
    );
  });

  it('expands IPv6 forms to their groups', () => {
    expect(ipv6Groups('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(ipv6Groups('2001:db8::8:800:200c:417a')).toEqual([0x2001, 0xdb8, 0, 0, 8, 0x800, 0x200c, 0x417a]);
    expect(ipv6Groups('1.2.3.4')).toBeUndefined();
  });
});

describe('checkTargetUrl', () => {
  it.each([
    ['http://example.com/hook', 'public', 'must be https'],
    ['https://127.0.0.1/hook', 'public', 'must be a public address'],
    ['https://[::1]/hook', 'public', 'must be a public address'],
    ['https://169.254.169.254/latest/meta-data', 'public', 'must be a public address'],
    ['https://[::ffff:a9fe:a9fe]/', 'public', 'must be a public address'],
    ['https://user:pass@example.com/', 'public', 'must not carry credentials'],
    ['not a url', 'public', 'must be an absolute URL'],
    ['ftp://example.com/', 'public', 'must be https'],
    ['http://127.0.0.2:8080/', 'local', 'must be https, or http on 127.0.0.1 or localhost'],
    ['http://0.0.0.0:8080/', 'local', 'must be https, or http on 127.0.0.1 or localhost'],
    ['https://127.0.0.2:8080/', 'local', 'must be a public address'],
    ['http://10.0.0.1/', 'local', 'must be https, or http on 127.0.0.1 or localhost'],
    [`https://example.com/${'a'.repeat(2048)}`, 'public', 'must be at most 2048 characters'],
  ] as const)('refuses %s (%s)', (url, policy, reason) => {
    expect(() => checkTargetUrl(url, policy)).toThrow(new TargetRefused(reason));
  });

  it.each([
    ['https://hooks.example.com/empty-legs', 'public'],
    ['https://93.184.216.34:8443/x', 'public'],
    ['http://127.0.0.1:9999/hook', 'local'],
    ['http://localhost:9999/hook', 'local'],
    ['http://[::1]:9999/hook', 'local'],
  ] as const)('accepts %s (%s)', (url, policy) => {
    expect(checkTargetUrl(url, policy).href).toBe(new URL(url).href);
  });
});

describe('resolveTarget (a stub resolver)', () => {
  it('connects to a checked address of a public name', async () => {
    const url = checkTargetUrl('https://hooks.example.com/x', 'public');
    await expect(resolveTarget(url, 'public', stub({ 'hooks.example.com': ['93.184.216.34'] }))).resolves.toEqual({ address: '93.184.216.34', family: 4 });
  });

  it('refuses a name that later resolves to a private address (rebinding), or to any private address among public ones', async () => {
    const url = checkTargetUrl('https://hooks.example.com/x', 'public');
    for (const addresses of [['127.0.0.1'], ['169.254.169.254'], ['93.184.216.34', '10.0.0.7'], ['fd00::1'], ['::ffff:127.0.0.1'], []]) {
      await expect(resolveTarget(url, 'public', stub({ 'hooks.example.com': addresses }))).rejects.toBeInstanceOf(TargetRefused);
    }
  });

  it('locally, localhost may resolve to loopback, any other name may not', async () => {
    await expect(resolveTarget(checkTargetUrl('http://localhost:1/x', 'local'), 'local', stub({ localhost: ['127.0.0.1', '::1'] }))).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
    await expect(resolveTarget(checkTargetUrl('http://localhost:1/x', 'local'), 'local', stub({ localhost: ['127.0.0.2'] }))).rejects.toBeInstanceOf(TargetRefused);
    await expect(resolveTarget(checkTargetUrl('https://evil.example/x', 'local'), 'local', stub({ 'evil.example': ['127.0.0.1'] }))).rejects.toBeInstanceOf(
      TargetRefused,
    );
  });
});
