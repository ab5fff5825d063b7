import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Safe webhook targets (docs/watches.md, "Safe targets"): `public` (the AWS stages), https to a host
 * whose every address is public; `local` (npm start), also http and https to 127.0.0.1, ::1 and
 * `localhost`. Checked at creation and before each attempt, which connects to the checked address.
 */
export type TargetPolicy = 'public' | 'local';

export const MAX_URL_LENGTH = 2048;

/** One address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
/** Resolves a host name to all its addresses (the system resolver by default). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** A URL refused as a target, with the reason shown to the caller. */
export class TargetRefused extends Error {
  override name = 'TargetRefused';
}

const V4_REFUSED: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this" network, 0.0.0.0 included
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, the instance metadata address 169.254.169.254 included
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast included
];
// Only global unicast (2000::/3) is public; within it these are not.
const V6_REFUSED_IN_GLOBAL: readonly [string, number][] = [
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: may embed any IPv4 address
  ['3fff::', 20], // documentation
];

const v4Refused = new BlockList();
for (const [net, prefix] of V4_REFUSED) v4Refused.addSubnet(net, prefix, 'ipv4');
const v6Refused = new BlockList();
for (const [net, prefix] of V6_REFUSED_IN_GLOBAL) v6Refused.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (zone index dropped), or undefined. */
export function ipv6Groups(address: string): number[] | undefined {
  const text = address.split('%')[0]!.toLowerCase();
  if (isIP(text) !== 6) return undefined;
  let head = text;
  let tailV4: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const parts = v4[1]!.split('.').map(Number);
    tailV4 = [(parts[0]! << 8) | parts[1]!, (parts[2]! << 8) | parts[3]!];
    head = text.slice(0, -v4[1]!.length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const parse = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const l = parse(left);
  const r = parse(right);
  const missing = 8 - tailV4.length - l.length - r.length;
  const groups = right === undefined ? [...l, ...tailV4] : [...l, ...new Array<number>(missing).fill(0), ...r, ...tailV4];
  return groups.length === 8 ? groups : undefined;
}

/** True when an IPv4 or IPv6 address is public: no loopback, private, link-local, multicast or reserved range. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address.split('%')[0]!);
  if (family === 4) return !v4Refused.check(address, 'ipv4');
  if (family !== 6) return false;
  const g = ipv6Groups(address);
  if (g === undefined) return false;
  // ::ffff:a.b.c.d (IPv4-mapped) is the IPv4 address.
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    return isPublicAddress(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`);
  }
  if ((g[0]! & 0xe000) !== 0x2000) return false;
  return !v6Refused.check(address.split('%')[0]!, 'ipv6');
}

/** The loopback addresses a local run may call (`npm start` only). */
function isLocalLoopback(address: string): boolean {
  if (address === '127.0.0.1') return true;
  const g = ipv6Groups(address);
  return g !== undefined && g.slice(0, 7).every((x) => x === 0) && g[7] === 1;
}

function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Checks what can be checked without DNS: the URL's form, scheme, credentials, and an address
 * literal's range. Returns the parsed URL; throws TargetRefused.
 */
export function checkTargetUrl(raw: string, policy: TargetPolicy): URL {
  if (raw.length > MAX_URL_LENGTH) throw new TargetRefused(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('must be an absolute URL');
  }
  if (url.href.length > MAX_URL_LENGTH) throw new TargetRefused(`must be at most ${MAX_URL_LENGTH} characters once serialized`);
  if (url.username !== '' || url.password !== '') throw new TargetRefused('must not carry credentials');
  const host = hostOf(url);
  const localHost = policy === 'local' && (host === 'localhost' || (isIP(host) !== 0 && isLocalLoopback(host)));
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && localHost)) {
    throw new TargetRefused(policy === 'local' ? 'must be https, or http on 127.0.0.1 or localhost' : 'must be https');
  }
  if (isIP(host) !== 0 && !localHost && !isPublicAddress(host)) throw new TargetRefused('must be a public address');
  return url;
}

/**
 * The address to connect to for `url`, after resolving its host: every address must be allowed
 * (public, or under `local` the loopback of a local host), or the target is refused.
 */
export async function resolveTarget(url: URL, policy: TargetPolicy, resolver: Resolver): Promise<ResolvedAddress> {
  const host = hostOf(url);
  const literal = isIP(host);
  const addresses: readonly ResolvedAddress[] = literal !== 0 ? [{ address: host, family: literal === 6 ? 6 : 4 }] : await resolver(host);
  if (addresses.length === 0) throw new TargetRefused('its host has no address');
  const localName = policy === 'local' && (host === 'localhost' || literal !== 0);
  for (const a of addresses) {
    const allowed = isPublicAddress(a.address) || (localName && isLocalLoopback(a.address));
    if (!allowed) throw new TargetRefused('must resolve to public addresses only');
  }
  return addresses[0]!;
}

/** A lookup that did not answer within its share of the time budget. */
export class LookupTimeout extends Error {
  override name = 'LookupTimeout';
}

/** resolveTarget, ended with a LookupTimeout after `ms` (a system lookup has no time-out of its own). */
export function resolveTargetWithin(url: URL, policy: TargetPolicy, resolver: Resolver, ms: number): Promise<ResolvedAddress> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LookupTimeout(`DNS lookup: no answer within ${ms} ms`)), Math.max(0, ms));
  });
  return Promise.race([resolveTarget(url, policy, resolver), late]).finally(() => clearTimeout(timer));
}
