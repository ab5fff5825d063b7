// @dateIndependent: signs and verifies at the tests' clock (the receiver's standardwebhooks check); the leg's dates are computed from the same clock
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { ensureTables } from '../../../local/dynamodb-local.js';
import { addDays, utcDate } from '../../../src/kernel/dates.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { createLegReader } from '../../../src/leg-by-id/store.js';
import { createEnquiryExpiry, createEnquiryNotifier, processEnquiryMessage, readSeller, writeSeller } from '../../../src/enquiries/index.js';
import type { EnquiryDeliveryDependencies } from '../../../src/enquiries/events/deliver.js';
import { postEnquiry } from '../../../src/enquiries/use-cases/create.js';
import { answerEnquiry } from '../../../src/enquiries/use-cases/manage.js';
import type { EnquiryDependencies } from '../../../src/enquiries/use-cases/ports.js';
import { systemResolver } from '../../../src/watches/target.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';
import { testNow } from '../../support/clock.js';
import { startReceiver, verifiesWith, type Receiver } from '../../support/webhook-receiver.js';

/**
 * The enquiries' events to real receivers on loopback (docs/enquiries.md, "Events"): the seller's
 * `enquiry.created`, the broker's `enquiry.answered` and `enquiry.expired`, each verified by the
 * standardwebhooks library with its receiver's secret; one event per enquiry under 20 concurrent
 * POSTs with one key; a failing receiver retried by a delayed message.
 */
let t: TestTables;
let receiver: Receiver;
const enquiriesTableName = `enquiries-${randomUUID().slice(0, 8)}`;
const SELLER = 'cli_seller00000000000002';
const seller = { clientId: SELLER, scopes: ['enquiry:answer'] };
const SELLER_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
/** The queue: messages kept in order, processed by `drain`. */
const queued: { body: string; delaySeconds: number }[] = [];
const queue = { send: (m: readonly { body: string; delaySeconds: number }[]) => Promise.resolve(void queued.push(...m)) };
let now = testNow();

const sellerOf = (source: string) => readSeller(t.client, t.legsTableName, source);
function deps(): EnquiryDependencies {
  return {
    table: { client: t.client, tableName: enquiriesTableName },
    readLeg: createLegReader(t.client, t.legsTableName),
    readSeller: sellerOf,
    clock: () => now,
    targets: 'local',
    resolver: systemResolver,
    notify: createEnquiryNotifier({ queue, readSeller: sellerOf }),
  };
}
const deliveryDeps = (): EnquiryDeliveryDependencies => ({ ...deps(), queue, retryScheduleSeconds: [0, 0], random: () => 0 });

/** Processes the queued messages (and those their retries queue), as the delivery worker does. */
async function drain(): Promise<string[]> {
  const results: string[] = [];
  while (queued.length > 0) results.push(await processEnquiryMessage(JSON.parse(queued.shift()!.body) as unknown, deliveryDeps()));
  return results;
}

const body = (over: Record<string, unknown> = {}) => ({ passengers: 2, contact: { name: 'Ada Broker', email: 'ada@example.com' }, ...over });

beforeAll(async () => {
  t = await createTestTables();
  await ensureTables(t.client, { legsTableName: t.legsTableName, keysTableName: t.keysTableName, enquiriesTableName });
  receiver = await startReceiver();
  const start = addDays(utcDate(new Date(now)), 2);
  await writeLegs(t.client, t.legsTableName, [
    { ...storedLeg({ id: 'leg-e', startDate: start, endDate: addDays(start, 1) }), source: 'acme' },
    { ...storedLeg({ id: 'leg-f', startDate: start, endDate: addDays(start, 1) }), source: 'acme' },
  ]);
  await writeSeller(t.client, t.legsTableName, { source: 'acme', clientId: SELLER, enquiryUrl: receiver.url('seller'), secret: SELLER_SECRET, setAt: now });
  receiver.secrets.set('seller', SELLER_SECRET);
});
afterAll(async () => {
  await receiver?.close();
  await t.client.send(new DeleteTableCommand({ TableName: enquiriesTableName })).catch(() => undefined);
  await t.drop();
});

describe('enquiry events', () => {
  it("20 concurrent POSTs with one key: the seller's receiver gets one enquiry.created, verified with the seller's secret", async () => {
    now = testNow();
    const key = randomUUID();
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => postEnquiry({ clientId: 'cli_broker00000000000002', legId: 'leg-e', key, body: body(), traceId: randomUUID() }, deps())));
    const id = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [(JSON.parse(o.value.body) as { data: { id: string } }).data.id] : []))[0];
    expect(await drain()).toEqual(['delivered']);
    const got = receiver.received.filter((r) => r.path === '/seller');
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);
    expect(verifiesWith(`whsec_${Buffer.alloc(32, 8).toString('base64')}`, got[0]!)).toBe(false);
    const event = JSON.parse(got[0]!.raw) as { type: string; data: { enquiry: { id: string; contact: { email: string } } } };
    expect(event.type).toBe('enquiry.created');
    expect(event.data.enquiry).toMatchObject({ id, contact: { email: 'ada@example.com' } });
  });

  it("the broker's notifyUrl gets enquiry.answered and enquiry.expired, signed with the secret its POST showed once; a failing receiver is retried", async () => {
    now = testNow();
    const post = (legId: string) => postEnquiry({ clientId: 'cli_broker00000000000003', legId, key: randomUUID(), body: body({ notifyUrl: receiver.url('broker') }), traceId: randomUUID() }, deps());
    const answered = JSON.parse((await post('leg-e')).body) as { data: { id: string; secret: string } };
    const expiring = JSON.parse((await post('leg-f')).body) as { data: { id: string; secret: string } };
    expect(answered.data.secret).toMatch(/^whsec_/);
    await drain();
    await answerEnquiry(seller, answered.data.id, { status: 'declined', reason: 'CREW_NOT_AVAILABLE' }, deps());
    receiver.respond = (path, attempt) => (path === '/broker' && attempt === 1 ? 500 : 204);
    expect(await drain()).toEqual(['retry', 'delivered']);
    const answer = receiver.received.filter((r) => r.path === '/broker');
    expect(answer).toHaveLength(2);
    expect(answer.every((r) => verifiesWith(answered.data.secret, r))).toBe(true);
    expect(new Set(answer.map((r) => r.webhookId)).size).toBe(1);
    expect((JSON.parse(answer[1]!.raw) as { type: string }).type).toBe('enquiry.answered');

    receiver.respond = () => 204;
    await createEnquiryExpiry(deps())([{ id: 'leg-f', changedAt: new Date(now).toISOString(), before: { id: 'leg-f' } as never, after: null }]);
    expect(await drain()).toEqual(['delivered']);
    const expired = receiver.received.filter((r) => r.path === '/broker').at(-1)!;
    expect(verifiesWith(expiring.data.secret, expired)).toBe(true);
    expect(verifiesWith(answered.data.secret, expired)).toBe(false);
    expect(JSON.parse(expired.raw)).toMatchObject({ type: 'enquiry.expired', data: { enquiry: { id: expiring.data.id, status: 'expired', expiredReason: 'unlisted' } } });
  });
});
