import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Envelope } from '../../src/http/envelope.js';
import { runScript } from '../support/commands.js';
import { callApi } from '../support/contract.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';
import { testNow } from '../support/clock.js';
import { INCLUDE_RULE } from '../../src/kernel/leg/blocks.js';

/**
 * `npm run sources` and GET /open/v1/sources on `npm start --data FIXTURE`, every answer checked
 * against docs/openapi.yaml (callApi): the registry set by the command, the counts from the fixture.
 */
const DAY = 86_400_000;
const day = (offset: number) => new Date(testNow() + offset * DAY).toISOString().slice(0, 10);
const leg = (id: string, source: string | undefined, offset = 3) => ({
  id,
  ...(source === undefined ? {} : { source }),
  startDate: day(offset),
  endDate: day(offset + 1),
  depCityName: 'London',
  depAirportIcao: 'EGLF',
  depAirportIata: 'FAB',
  depTimezone: 'Europe/London',
  arrCityName: 'Nice',
  arrAirportIcao: 'LFMN',
  arrAirportIata: 'NCE',
  seatNum: 8,
});
// S-1 with departure times (the import's depTimeFrom and depTimeTo, local to EGLF).
const LEGS = [{ ...leg('S-1', 'acme-air'), depTimeFrom: '08:15', depTimeTo: '19:40' }, leg('S-2', 'acme-air', 10), leg('S-3', 'resell-co'), leg('S-4', undefined), leg('S-5', 'resell-co', -9)];

type Source = { id: string; name: string; kind: string; verified: boolean; verifiedAt: string | null; legsListed: number; lastLoadedAt: string | null; staleAfterMinutes: number | null; stale: boolean };
let service: RunningService;

const sources = (...args: string[]) =>
  runScript('sources', args, { AWS_REGION: 'us-east-1', DYNAMODB_ENDPOINT: service.dynamodbEndpoint, LEGS_TABLE_NAME: service.legsTableName, KEYS_TABLE_NAME: service.keysTableName });
const get = (headers: Record<string, string> = {}) =>
  callApi<Envelope<{ records: Source[] }>>(`${service.baseUrl}/open/v1/sources`, { headers: { 'X-API-Key': service.apiKey, ...headers } });

jest.setTimeout(90_000);

/** London's offset from UTC at an instant, ms (GMT or BST), read from Intl as a reference apart from the code under test. */
function londonOffsetMs(iso: string): number {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/London', timeZoneName: 'shortOffset' }).formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  const m = /GMT([+-]\d+)?/.exec(parts.timeZoneName ?? '');
  return Number(m?.[1] ?? 0) * 3_600_000;
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'empty-legs-sources-'));
  const file = join(dir, 'legs.ndjson');
  writeFileSync(file, LEGS.map((l) => JSON.stringify(l)).join('\n') + '\n');
  service = await startLocalServer({ dataFile: file });
}, 90_000);
afterAll(async () => service?.stop());

describe('sources on the local server', () => {
  it('registers with npm run sources, and GET /open/v1/sources answers the registry and the listing', async () => {
    const set = await sources('set', 'acme-air', '--name', 'Acme Air', '--kind', 'operator', '--verified', '--stale-after', '2h');
    expect([set.code, set.stderr]).toEqual([0, '']);
    expect((await sources('set', 'quiet-broker', '--kind', 'broker')).code).toBe(0);

    const { res, body } = await get();
    expect(res.status).toBe(200);
    const records = body.data!.records;
    expect(records.map((r) => r.id)).toEqual(['acme-air', 'default', 'quiet-broker', 'resell-co']);
    const byId = Object.fromEntries(records.map((r) => [r.id, r]));
    expect(byId['acme-air']).toMatchObject({ name: 'Acme Air', kind: 'operator', verified: true, legsListed: 2, staleAfterMinutes: 120, stale: false });
    expect(Date.parse(byId['acme-air']!.verifiedAt!)).toBeGreaterThan(0);
    // npm start's load stamped the fixture's sources.
    expect(byId['acme-air']!.lastLoadedAt).not.toBeNull();
    // The expired leg of resell-co is not in the listing; an unregistered source is unknown, unverified, never stale.
    expect(byId['resell-co']).toMatchObject({ name: 'resell-co', kind: 'unknown', verified: false, verifiedAt: null, legsListed: 1, staleAfterMinutes: null, stale: false });
    expect(byId.default).toMatchObject({ kind: 'unknown', legsListed: 1 });
    expect(byId['quiet-broker']).toMatchObject({ kind: 'broker', legsListed: 0, lastLoadedAt: null });

    const etag = res.headers.get('etag')!;
    const again = await get({ 'If-None-Match': etag });
    expect(again.res.status).toBe(304);
  });

  it('the command lists and shows what the API answers, with the history', async () => {
    const list = await sources('list', '--json');
    expect(list.code).toBe(0);
    const listed = JSON.parse(list.stdout) as Source[];
    expect(listed.map((s) => [s.id, s.kind, s.legsListed])).toEqual((await get()).body.data!.records.map((s) => [s.id, s.kind, s.legsListed]));
    const show = await sources('show', 'acme-air');
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/run [0-9a-f-]{36} {2}name=Acme Air kind=operator verified=true staleAfterMinutes=2h/);
    const bad = await sources('set', 'acme-air', '--stale-after', '90s');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--stale-after');
  });

  it('filters the listing by source, kind, verifiedOnly and maxAgeHours (after the first test registered acme-air and quiet-broker)', async () => {
    const list = (query: string) =>
      callApi<Envelope<{ records: { id: string }[]; total: number }>>(`${service.baseUrl}/open/v1/empty-legs?${query}`, { headers: { 'X-API-Key': service.apiKey } });
    const ids = async (query: string) => {
      const { res, body } = await list(query);
      expect([query, res.status]).toEqual([query, 200]);
      return body.data!.records.map((r) => r.id);
    };
    // Without the new parameters: every listed leg, as before.
    expect(await ids('')).toEqual(['S-1', 'S-3', 'S-4', 'S-2']);
    expect(await ids('source=acme-air')).toEqual(['S-1', 'S-2']);
    expect(await ids('source=default,%20resell-co')).toEqual(['S-3', 'S-4']);
    expect(await ids('source=nobody')).toEqual([]);
    expect(await ids('kind=operator')).toEqual(['S-1', 'S-2']);
    // resell-co is not registered (unknown); quiet-broker has no legs.
    expect(await ids('kind=broker')).toEqual([]);
    expect(await ids('verifiedOnly=true')).toEqual(['S-1', 'S-2']);
    expect(await ids('verifiedOnly=false')).toEqual(['S-1', 'S-3', 'S-4', 'S-2']);
    expect(await ids('kind=operator,broker&verifiedOnly=true&source=acme-air,resell-co')).toEqual(['S-1', 'S-2']);
    // maxAgeHours: the legs npm start just loaded, where a load records the leg's confirmed instant.
    const recent = await ids('maxAgeHours=1');
    expect(['S-1', 'S-3', 'S-4', 'S-2']).toEqual(expect.arrayContaining(recent));
    expect(await ids('maxAgeHours=720&source=acme-air')).toEqual(recent.filter((id) => id === 'S-1' || id === 'S-2'));
    for (const [name, value] of [['source', 'Acme-Air'], ['kind', 'unknown'], ['verifiedOnly', 'yes'], ['maxAgeHours', '0'], ['maxAgeHours', '721']] as const) {
      const { res, body } = await list(`${name}=${value}`);
      expect([res.status, body.code]).toEqual([400, 'INVALID_PARAMETER']);
      expect(body.message).toContain(`'${name}'`);
    }
  });

  it('include=provenance,departure on the listing, by id and on the change feed: the registry and the import times (after the first test registered acme-air)', async () => {
    type Blocked = { id: string; provenance: Record<string, unknown>; departure: Record<string, unknown> };
    const api = <T>(path: string) => callApi<Envelope<T>>(`${service.baseUrl}${path}`, { headers: { 'X-API-Key': service.apiKey } });
    const page = await api<{ records: Blocked[] }>('/open/v1/empty-legs?source=acme-air&include=provenance,departure');
    expect(page.res.status).toBe(200);
    const s1 = page.body.data!.records.find((r) => r.id === 'S-1')!;
    expect(s1.provenance).toMatchObject({ source: 'acme-air', sourceName: 'Acme Air', kind: 'operator', verified: true });
    expect(Date.parse(String(s1.provenance.confirmedAt))).toBeGreaterThan(0);
    // 08:15 and 19:40 in London: the fixture's dates are in November or later, GMT or BST as the date says.
    const utc = (date: string, time: string) => new Date(Date.parse(`${date}T${time}:00Z`) - londonOffsetMs(`${date}T${time}:00Z`)).toISOString();
    expect(s1.departure).toEqual({ earliestLocal: `${day(3)}T08:15`, latestLocal: `${day(4)}T19:40`, earliestUtc: utc(day(3), '08:15'), latestUtc: utc(day(4), '19:40') });
    const s2 = page.body.data!.records.find((r) => r.id === 'S-2')!;
    expect(s2.departure).toEqual({ earliestLocal: null, latestLocal: null, earliestUtc: null, latestUtc: null });
    expect(Object.keys(s1).slice(-2)).toEqual(['provenance', 'departure']);
    const one = await api<Blocked>('/open/v1/empty-legs/S-1?include=departure');
    expect(one.body.data).toEqual({ ...Object.fromEntries(Object.entries(s1).filter(([k]) => k !== 'provenance')) });
    const plain = await api<Record<string, unknown>>('/open/v1/empty-legs/S-1');
    expect(Object.keys(plain.body.data!)).not.toContain('departure');
    const feed = await api<{ changes: { id: string; leg: Blocked | null }[] }>('/open/v1/empty-legs/changes?size=100&include=provenance,departure');
    expect(feed.body.data!.changes.find((c) => c.id === 'S-1')?.leg).toMatchObject({ provenance: { source: 'acme-air', sourceName: 'Acme Air' }, departure: s1.departure });
    for (const path of ['/open/v1/empty-legs?include=trip', '/open/v1/empty-legs/S-1?include=provenance,provenance', '/open/v1/empty-legs/changes?include=Departure']) {
      const bad = await api<null>(path);
      expect([path, bad.res.status, bad.body.code, bad.body.message]).toEqual([path, 400, 'INVALID_PARAMETER', `Invalid parameter 'include': ${INCLUDE_RULE}`]);
    }
  });

  it('refuses a request without a key', async () => {
    const none = await callApi<Envelope<null>>(`${service.baseUrl}/open/v1/sources`);
    expect(none.res.status).toBe(401);
  });
});
