// @dateIndependent: the legs are dated from the tests' clock, which the commands and the counts read too
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { addDays } from '../../../src/kernel/dates.js';
import { loadFeed } from '../../../src/loading/feed-load.js';
import { createLegsRepository } from '../../../src/listing/repository.js';
import { countListedBySource } from '../../../src/listing/index.js';
import { createSourcesStore, SOURCES_ID } from '../../../src/sources/store.js';
import { sourcesCommand } from '../../../cli/sources-command.js';
import { runInProcess } from '../../support/commands.js';
import { testNow, testToday } from '../../support/clock.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';

/** The sources registry on DynamoDB Local: its item, the loads that stamp it, `npm run sources`. */
let t: TestTables;
jest.setTimeout(60_000);
beforeAll(async () => {
  t = await createTestTables();
});
afterAll(async () => t.drop());

const env = () => ({ AWS_REGION: 'us-east-1', DYNAMODB_ENDPOINT: t.endpoint, LEGS_TABLE_NAME: t.legsTableName, KEYS_TABLE_NAME: t.keysTableName });
const sources = (...args: string[]) => runInProcess(sourcesCommand, args, env());
const leg = (id: string, source: string | undefined, day = 3) => storedLeg({ id, startDate: addDays(testToday(), day), endDate: addDays(testToday(), day + 1), ...(source ? { source } : {}) });

describe('the registry item', () => {
  it('keeps every run of set in the history, concurrent ones included, and counts its writes', async () => {
    const store = createSourcesStore(t.client, t.legsTableName);
    await Promise.all([
      store.set('race', { kind: 'operator' }, { id: 'run-1', at: 1_000 }),
      store.set('race', { verified: true }, { id: 'run-2', at: 2_000 }),
      store.set('other', { name: 'Other' }, { id: 'run-3', at: 3_000 }),
    ]);
    const registry = await store.read();
    const race = registry.sources.get('race')!;
    expect(race.settings).toMatchObject({ kind: 'operator', verified: true, verifiedAt: 2_000 });
    expect(race.history.map((h) => h.run).sort()).toEqual(['run-1', 'run-2']);
    expect(registry.sources.get('other')!.settings.name).toBe('Other');
    expect(registry.revision).toBe(3);
  });
});

describe('loads stamp their sources', () => {
  it('an upsert stamps the sources of its legs; a sync its synced sources, an empty one included; a dry run nothing', async () => {
    const store = createSourcesStore(t.client, t.legsTableName);
    const now = new Date(testNow());
    await loadFeed(t.client, t.legsTableName, { legs: [leg('UP-1', 'feed-a'), leg('UP-2', undefined)], mode: 'upsert', now });
    let loaded = (await store.read()).lastLoadedAt;
    expect(loaded.get('feed-a')).toBe(now.getTime());
    expect(loaded.get('default')).toBe(now.getTime());

    const later = new Date(now.getTime() + 60_000);
    await loadFeed(t.client, t.legsTableName, { legs: [], mode: 'sync', sources: ['feed-b'], now: later });
    await loadFeed(t.client, t.legsTableName, { legs: [leg('UP-3', 'feed-a')], mode: 'sync', dryRun: true, now: later });
    loaded = (await store.read()).lastLoadedAt;
    expect(loaded.get('feed-b')).toBe(later.getTime());
    expect(loaded.get('feed-a')).toBe(now.getTime());
  });

  it('the listing counts each source from its index entries', async () => {
    await loadFeed(t.client, t.legsTableName, { legs: [leg('CT-1', 'count-me'), leg('CT-2', 'count-me', 40), leg('CT-3', 'count-me', 400)], mode: 'upsert', now: new Date(testNow()) });
    const counts = await countListedBySource(createLegsRepository(t.client, t.legsTableName), testNow());
    // 400 days ahead is past the horizon: the loader would refuse it, the listing does not list it.
    expect(counts.get('count-me')).toBe(2);
    expect(counts.get('feed-a')).toBe(1);
  });
});

describe('npm run sources', () => {
  it('sets a source, lists it with the unregistered ones, shows its history', async () => {
    const set = await sources('set', 'feed-a', '--name', 'Feed A Jets', '--kind', 'operator', '--verified', '--stale-after', '36h');
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/^Source feed-a: name=Feed A Jets kind=operator verified=true staleAfterMinutes=36h \(run [0-9a-f-]{36} at /);

    const list = await sources('list', '--json');
    expect(list.code).toBe(0);
    const views = JSON.parse(list.stdout) as { id: string; kind: string; legsListed: number; staleAfterMinutes: number | null; verified: boolean }[];
    const byId = new Map(views.map((v) => [v.id, v]));
    expect(views.map((v) => v.id)).toEqual([...views.map((v) => v.id)].sort());
    expect(byId.get('feed-a')).toMatchObject({ kind: 'operator', verified: true, staleAfterMinutes: 36 * 60, legsListed: 1 });
    expect(byId.get('count-me')).toMatchObject({ kind: 'unknown', verified: false, staleAfterMinutes: null, legsListed: 2 });

    await sources('set', 'feed-a', '--unverified', '--never-stale');
    const show = await sources('show', 'feed-a');
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('Feed A Jets');
    expect(show.stdout.match(/ run [0-9a-f-]{36} /g)).toHaveLength(2);
    expect(show.stdout).toContain('verified=false staleAfterMinutes=null');
    const shown = JSON.parse((await sources('show', 'feed-a', '--json')).stdout) as { verified: boolean; history: unknown[] };
    expect(shown).toMatchObject({ verified: false, verifiedAt: null, staleAfterMinutes: null });
    expect(shown.history).toHaveLength(2);

    const unknown = await sources('show', 'nobody-knows');
    expect(unknown.stdout).toContain('Not registered: kind unknown, unverified, never stale.');
  });

  it.each([
    [['set', 'x', '--kind', 'airline'], '--kind'],
    [['set', 'x', '--stale-after', '31d'], '--stale-after'],
    [['set', 'x', '--stale-after', '1h', '--never-stale'], '--stale-after'],
    [['set', 'x', '--verified', '--unverified'], '--verified'],
    [['set', 'Bad_Source'], 'SOURCE'],
    [['show'], 'SOURCE'],
    [['list', '--kind', 'broker'], '--kind'],
    [['remove', 'x'], 'command'],
  ])('refuses %p naming %s, exit 2, writing nothing', async (args, flag) => {
    const run = await sources(...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(flag);
    const item = await createSourcesStore(t.client, t.legsTableName).read();
    expect(item.sources.has('x')).toBe(false);
  });

  it('stores one item, outside the leg id format', () => {
    expect(SOURCES_ID.startsWith('~')).toBe(true);
  });
});
