import '../cli/quiet-node-notice.js';
import { BatchWriteCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseCommandLine, runCommand } from '../cli/command.js';
import { parseIntegerSetting } from '../src/config.js';
import { createChangeLogStore, ENTRY_PREFIX, HEAD_ID, STATE_PREFIX } from '../src/changes/store.js';
import { processClock } from '../src/clock.js';
import { utcDate } from '../src/kernel/dates.js';
import { toApiRecord } from '../src/kernel/model.js';
import { derivedIndexKeyOf } from '../src/kernel/leg-change.js';
import { toStorageItem } from '../src/kernel/leg-item.js';
import { packRecord } from '../src/kernel/record-pack.js';
import { stateListing } from '../src/changes/store-parts/initial-listing.js';
import { writeLegs } from '../src/loading/loader.js';
import type { StoredLeg } from '../src/kernel/leg-item.js';
import { demoLegs } from '../local/demo/index.js';
import { ensureTables, freePort, startDynamoDbLocal } from '../local/dynamodb-local.js';
import { readInitialListing } from './feed-sync.js';

/**
 * `npm run bench:full-sync -- [--legs N] [--history H] [--json]`: the read units of the change feed's
 * full sync (GET /open/v1/empty-legs/changes without `after`, pages of 1,000, until the listing is
 * done) on DynamoDB Local, with N listed legs (default 20,000) and H change-log entries and their
 * legs' states already in the table (default 50,000), as DynamoDB Local reports them
 * (ReturnConsumedCapacity TOTAL on every request: a Scan is billed for what it evaluates, filtered or
 * not). docs/performance.md, "The change feed's full sync".
 */
async function writeAll(client: DynamoDBDocumentClient, table: string, items: Record<string, unknown>[]): Promise<void> {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  const lane = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      let requests = batch.map((Item) => ({ PutRequest: { Item } }));
      while (requests.length > 0) {
        const out = await client.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
        requests = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
}

/** Every request of the client reports its consumed capacity, summed into `units`. */
function metered(client: DynamoDBDocumentClient, counter: { units: number; requests: number }): DynamoDBDocumentClient {
  const send = client.send.bind(client) as (command: unknown) => Promise<Record<string, unknown>>;
  const wrapped = Object.create(client) as DynamoDBDocumentClient;
  (wrapped as unknown as { send: (c: unknown) => Promise<unknown> }).send = async (command: unknown) => {
    (command as { input: Record<string, unknown> }).input.ReturnConsumedCapacity = 'TOTAL';
    const out = await send(command);
    const consumed = out.ConsumedCapacity as { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
    for (const c of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) counter.units += c.CapacityUnits ?? 0;
    counter.requests += 1;
    return out;
  };
  return wrapped;
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(process.argv.slice(2), { legs: { type: 'string' }, history: { type: 'string' }, json: { type: 'boolean' } });
  const legsCount = parseIntegerSetting('--legs', values.legs, 20_000, 1, 1_000_000);
  const history = parseIntegerSetting('--history', values.history, 50_000, 0, 10_000_000);
  const ddb = await startDynamoDbLocal({ port: await freePort() });
  try {
    const table = 'bench-legs';
    await ensureTables(ddb.client, { legsTableName: table, keysTableName: 'bench-keys' });
    const now = processClock();
    const legs: StoredLeg[] = demoLegs(utcDate(new Date(now)), { count: legsCount, months: 12, airports: 200, seed: 7 }).map((l) => ({ ...l, listed: true, blocked: false }));
    await writeLegs(ddb.client, table, legs);
    // The history: H entries (each with its leg's record, as the consumer writes them), the legs' states and the head.
    const ttl = Math.floor(now / 1000) + 30 * 86_400;
    const entries = Array.from({ length: history }, (_, i) => {
      const leg = legs[i % legs.length]!;
      return { id: `${ENTRY_PREFIX}${i + 1}`, q: i + 1, k: i < legs.length ? 'l' : 'u', l: leg.id, a: now, r: JSON.stringify(toApiRecord(leg as unknown as Record<string, unknown>)), ttl };
    });
    // As the consumer writes them: the record last given and, while listed, the leg's place in listedLegs.
    const states = legs.map((l, i) => {
      const item = toStorageItem(l);
      const record = toApiRecord(item);
      return { id: `${STATE_PREFIX}${l.id}`, n: String(i).padStart(20, '0'), d: 'x'.repeat(22), r: packRecord(record), ...stateListing(derivedIndexKeyOf(item)) };
    });
    await writeAll(ddb.client, table, [...entries, ...states]);
    await ddb.client.send(new PutCommand({ TableName: table, Item: { id: HEAD_ID, q: history, a: now, r: '' } }));
    process.stderr.write(`loaded ${legs.length} legs and ${history} entries\n`);

    const counter = { units: 0, requests: 0 };
    const feed = { store: createChangeLogStore(metered(ddb.client, counter), table), clock: processClock, cursorKey: 'the-benchmark-cursor-key-0123456789abcdef' };
    const served = await readInitialListing(feed);
    const report = { legs: legsCount, history, served, requests: counter.requests, readUnits: Number(counter.units.toFixed(1)), readUnitsPerLeg: Number((counter.units / served).toFixed(3)) };
    console.log(values.json ? JSON.stringify(report) : JSON.stringify(report, null, 2));
  } finally {
    await ddb.stop();
  }
}

runCommand(main);
