import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { DeleteCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { daysBetween } from '../../../src/kernel/dates.js';
import { demoLegs } from '../../../local/demo/index.js';
import { parseImportText } from '../../../src/loading/import/index.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';

const TODAY = '2026-11-21';
const fixtureText = (name: string) => readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8');

type Raw = Record<string, unknown> & { id: string; endDate: string; startDate?: string; departureAt?: string };
type Item = Record<string, unknown>;

async function scanAll(client: DynamoDBDocumentClient, TableName: string): Promise<Item[]> {
  const items: Item[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await client.send(new ScanCommand({ TableName, ExclusiveStartKey }));
    // Legs only: the service's own items (ids starting with `~`) share the table.
    items.push(...((out.Items ?? []) as Item[]).filter((i) => !String(i.id).startsWith('~')));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.sort((a, b) => String(a.id).localeCompare(String(b.id)));
}

describe('loading legs into DynamoDB Local', () => {
  let t: TestTables;
  const raw = JSON.parse(fixtureText('legs-valid.json')) as Raw[];

  beforeAll(async () => {
    t = await createTestTables();
  });
  afterAll(async () => t.drop());
  beforeEach(async () => {
    for (const item of await scanAll(t.client, t.legsTableName)) {
      await t.client.send(new DeleteCommand({ TableName: t.legsTableName, Key: { id: item.id } }));
    }
  });

  async function load(text: string) {
    const parsed = parseImportText(text, { today: TODAY });
    expect(parsed.errors).toEqual([]);
    return writeLegs(t.client, t.legsTableName, parsed.legs);
  }

  it('writes every leg of the fixture, with the index attributes only on listed, unblocked legs', async () => {
    const result = await load(fixtureText('legs-valid.json'));
    expect(result.written).toBe(raw.length);
    const items = await scanAll(t.client, t.legsTableName);
    expect(items.map((i) => i.id).sort()).toEqual(raw.map((r) => r.id).sort());
    for (const r of raw) {
      const item = items.find((i) => i.id === r.id)!;
      const visible = r.listed !== false && r.blocked !== true;
      expect([r.id, 'lb' in item, 'ls' in item, 'lf' in item]).toEqual([r.id, visible, visible, visible]);
      expect(item.listed).toBe(r.listed ?? true);
      expect(item.blocked).toBe(r.blocked ?? false);
      expect(item.depTimezone).toBe(r.depTimezone ?? 'UTC');
      expect(item.endDate).toBe(r.endDate);
      // nulls are not stored; departureAt never is
      for (const [k, v] of Object.entries(r)) if (v === null) expect(item).not.toHaveProperty(k);
      expect(item).not.toHaveProperty('departureAt');
      if (visible) {
        const start = item.startDate as string;
        expect(item.ls).toBe(`${start}#${r.id}`);
        expect(item.lb).toBe(daysBetween(start, r.endDate) > 28 ? 'long' : start.slice(0, 7));
      }
    }
  });

  it('derives startDate from departureAt in the leg zone and stores codes upper case', async () => {
    await load(fixtureText('legs-valid.json'));
    const items = await scanAll(t.client, t.legsTableName);
    const withInstant = raw.find((r) => r.departureAt !== undefined)!;
    // the fixture writes the instant with the zone's own offset, so its local date is the text's
    expect(items.find((i) => i.id === withInstant.id)!.startDate).toBe(withInstant.departureAt!.slice(0, 10));
    const lowerCase = raw.find((r) => typeof r.arrAirportIcao === 'string' && r.arrAirportIcao !== r.arrAirportIcao.toUpperCase())!;
    const item = items.find((i) => i.id === lowerCase.id)!;
    expect(item.arrAirportIcao).toBe((lowerCase.arrAirportIcao as string).toUpperCase());
    expect(item.depCityName).toBe((lowerCase.depCityName as string).trim());
  });

  it('leaves the same table when the same file is loaded twice (JSON, then the NDJSON twin), and writes nothing but the legs', async () => {
    await load(fixtureText('legs-valid.json'));
    const first = await scanAll(t.client, t.legsTableName);
    for (const item of first) expect([item.id, 'lc' in item]).toEqual([item.id, false]);
    await load(fixtureText('legs-valid.json'));
    expect(await scanAll(t.client, t.legsTableName)).toEqual(first);
    await load(fixtureText('legs-valid.ndjson'));
    expect(await scanAll(t.client, t.legsTableName)).toEqual(first);
  });

  it('removes a leg from the index when it is reloaded blocked or unlisted, and back when listed again', async () => {
    await load(fixtureText('legs-valid.json'));
    const visible = raw.filter((r) => r.listed !== false && r.blocked !== true);
    const [a, b] = [visible[0]!, visible[1]!];
    const reload = raw.map((r) => (r.id === a.id ? { ...r, blocked: true } : r.id === b.id ? { ...r, listed: false } : r));
    await load(JSON.stringify(reload));
    let items = await scanAll(t.client, t.legsTableName);
    for (const id of [a.id, b.id]) {
      const item = items.find((i) => i.id === id)!;
      expect(['lb', 'ls', 'lf'].filter((k) => k in item)).toEqual([]);
    }
    expect(items.find((i) => i.id === a.id)!.blocked).toBe(true);
    expect(items.find((i) => i.id === b.id)!.listed).toBe(false);
    await load(fixtureText('legs-valid.json'));
    items = await scanAll(t.client, t.legsTableName);
    for (const id of [a.id, b.id]) expect(items.find((i) => i.id === id)).toHaveProperty('lb');
  });

  it('loads the whole demo data set', async () => {
    const legs = demoLegs(TODAY);
    const result = await writeLegs(t.client, t.legsTableName, legs);
    expect(result.written).toBe(legs.length);
    const items = await scanAll(t.client, t.legsTableName);
    expect(items).toHaveLength(legs.length);
    expect(items.filter((i) => 'lb' in i)).toHaveLength(legs.filter((l) => l.listed && !l.blocked).length);
  }, 60_000);
});
