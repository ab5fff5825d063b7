import { afterAll, beforeEach, describe, expect, it } from '@jest/globals';
import { ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../../src/aws/dynamodb.js';
import { backoffDelay } from '../../../src/aws/backoff.js';
import { BATCH_SIZE, LoadError, writeLegs } from '../../../src/loading/loader.js';
import { toStorageItem, type StoredLeg } from '../../../src/kernel/leg-item.js';
import { storedLeg } from '../../support/legs.js';

const TABLE = 'legs-test';
const ddb = mockClient(DynamoDBDocumentClient);
const client = createDocumentClient({ endpoint: 'http://127.0.0.1:9', region: 'local', maxAttempts: 1 });

function leg(n: number, over: Partial<StoredLeg> = {}): StoredLeg {
  return storedLeg({
    id: `L${String(n).padStart(4, '0')}`,
    startDate: '2026-12-01',
    endDate: '2026-12-02',
    depAirportIcao: 'EGLF',
    depAirportIata: 'FAB',
    depCountryCode: 'GB',
    arrAirportIcao: 'LFMN',
    arrAirportIata: 'NCE',
    arrCountryCode: 'FR',
    depTimezone: 'Europe/London',
    ...over,
  });
}

type Put = { PutRequest: { Item: Record<string, unknown> } };
const requestsOf = (input: BatchWriteCommandInput) => (input.RequestItems?.[TABLE] ?? []) as Put[];
const idsOf = (puts: Put[]) => puts.map((p) => p.PutRequest.Item.id as string);
const sentBatches = () => ddb.commandCalls(BatchWriteCommand).map((c) => requestsOf(c.args[0].input));

/** Records the waits instead of waiting. */
function fakeSleep() {
  const waits: number[] = [];
  return { waits, sleep: (ms: number) => (waits.push(ms), Promise.resolve()) };
}

beforeEach(() => {
  ddb.reset();
});
afterAll(() => {
  ddb.restore();
});

describe('writeLegs', () => {
  it('writes the storage items in batches of 25', async () => {
    ddb.on(BatchWriteCommand).resolves({ UnprocessedItems: {} });
    const legs = Array.from({ length: 60 }, (_, i) => leg(i, i % 7 === 0 ? { blocked: true } : {}));
    const result = await writeLegs(client, TABLE, legs, { concurrency: 2 });
    const batches = sentBatches();
    expect(batches.map((b) => b.length)).toEqual([BATCH_SIZE, BATCH_SIZE, 60 - 2 * BATCH_SIZE]);
    const items = batches.flat().map((p) => p.PutRequest.Item);
    // The items as they are: nothing but the leg (the change log learns of them from the stream).
    expect(items.sort((a, b) => String(a.id).localeCompare(String(b.id)))).toEqual(legs.map((l) => toStorageItem(l)));
    expect(ddb.calls()).toHaveLength(3);
    expect(result).toEqual({ written: 60, requests: 3, retries: 0 });
  });

  it('retries unprocessed items, with growing jittered waits, until all are written', async () => {
    const legs = Array.from({ length: 10 }, (_, i) => leg(i));
    let call = 0;
    ddb.on(BatchWriteCommand).callsFake((input: BatchWriteCommandInput) => {
      call += 1;
      const puts = requestsOf(input);
      // the first two attempts leave the last 4, then the last 1, unprocessed
      const keep = call === 1 ? 4 : call === 2 ? 1 : 0;
      return { UnprocessedItems: keep ? { [TABLE]: puts.slice(puts.length - keep) } : {} };
    });
    const { waits, sleep } = fakeSleep();
    const result = await writeLegs(client, TABLE, legs, { sleep, random: () => 0.5, baseDelayMs: 100 });
    const batches = sentBatches();
    expect(batches.map(idsOf)).toEqual([legs.map((l) => l.id), legs.slice(6).map((l) => l.id), [legs[9]!.id]]);
    expect(result).toEqual({ written: 10, requests: 3, retries: 2 });
    expect(waits).toEqual([50, 100]); // 0.5 * 100 * 2^0, 0.5 * 100 * 2^1
  });

  it('fails with a clear error when items stay unprocessed after the last attempt', async () => {
    ddb.on(BatchWriteCommand).callsFake((input: BatchWriteCommandInput) => ({
      UnprocessedItems: { [TABLE]: requestsOf(input).slice(0, 3) },
    }));
    const { waits, sleep } = fakeSleep();
    const legs = Array.from({ length: 5 }, (_, i) => leg(i));
    const failure = writeLegs(client, TABLE, legs, { sleep, maxAttempts: 4 });
    await expect(failure).rejects.toThrow(LoadError);
    await expect(writeLegs(client, TABLE, legs, { sleep, maxAttempts: 4 })).rejects.toThrow(
      `Writing to ${TABLE}: 3 of the 5 legs of batch 1 were still unprocessed after 4 attempts (DynamoDB is throttling); 2 legs were written. Loading the file again is safe.`,
    );
    // 4 attempts per run, 3 waits between them, two runs
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(8);
    expect(waits).toHaveLength(6);
  });

  it('stops sending new batches after a batch fails, and names the table on a missing table', async () => {
    ddb.on(BatchWriteCommand).rejects(new ResourceNotFoundException({ message: 'Requested resource not found', $metadata: {} }));
    const legs = Array.from({ length: 200 }, (_, i) => leg(i));
    await expect(writeLegs(client, TABLE, legs, { concurrency: 2 })).rejects.toThrow(
      `Writing to ${TABLE} failed (does table ${TABLE} exist?): Requested resource not found`,
    );
    expect(ddb.commandCalls(BatchWriteCommand).length).toBeLessThanOrEqual(2);
  });

  it('keeps at most `concurrency` batches in flight', async () => {
    let inFlight = 0;
    let most = 0;
    ddb.on(BatchWriteCommand).callsFake(async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight -= 1;
      return {};
    });
    await writeLegs(client, TABLE, Array.from({ length: 300 }, (_, i) => leg(i)), { concurrency: 4 });
    expect(most).toBe(4);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(Math.ceil(300 / BATCH_SIZE));
  });

  it('sends one put per id (the last one wins) and nothing for no legs', async () => {
    ddb.on(BatchWriteCommand).resolves({});
    const result = await writeLegs(client, TABLE, [leg(1), leg(2), leg(1, { blocked: true })]);
    const items = sentBatches().flat().map((p) => p.PutRequest.Item);
    expect(items.map((i) => i.id)).toEqual(['L0002', 'L0001']);
    expect(items[1]).toEqual(toStorageItem(leg(1, { blocked: true })));
    expect(result.written).toBe(2);
    ddb.reset();
    expect(await writeLegs(client, TABLE, [])).toEqual({ written: 0, requests: 0, retries: 0 });
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });
});

describe('backoffDelay', () => {
  it('is full jitter under an exponential ceiling, capped', () => {
    expect(backoffDelay(0, 50, 5000, () => 0.999)).toBe(49);
    expect(backoffDelay(3, 50, 5000, () => 0.5)).toBe(200);
    expect(backoffDelay(20, 50, 5000, () => 0.5)).toBe(2500);
    expect(backoffDelay(5, 50, 5000, () => 0)).toBe(0);
  });
});
