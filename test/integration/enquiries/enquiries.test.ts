// @dateIndependent: fixed instants only: the legs' dates and the injected clock are both fixed, and no real time is read
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { ensureTables } from '../../../local/dynamodb-local.js';
import { AppError } from '../../../src/errors.js';
import { writeLegs } from '../../../src/loading/loader.js';
import { createLegReader } from '../../../src/leg-by-id/store.js';
import { createEnquiryExpiry, readSeller, writeSeller } from '../../../src/enquiries/index.js';
import { postEnquiry, MAX_OPEN_PER_CLIENT } from '../../../src/enquiries/use-cases/create.js';
import { answerEnquiry, listOwnEnquiries, readEnquiry, withdrawEnquiry } from '../../../src/enquiries/use-cases/manage.js';
import type { EnquiryDependencies, EnquiryEvent } from '../../../src/enquiries/use-cases/ports.js';
import { systemResolver } from '../../../src/watches/target.js';
import { createTestTables, type TestTables } from '../../support/dynamodb.js';
import { storedLeg } from '../../support/legs.js';

/**
 * Enquiries on DynamoDB Local (docs/enquiries.md): the Idempotency-Key under 20 concurrent POSTs, a
 * changed body, a key past its 24 hours on the injected clock; the lifecycle's conditional writes;
 * the per-client limit; expiry by a withdrawn leg and by departure.
 */
let t: TestTables;
const enquiriesTableName = `enquiries-${randomUUID().slice(0, 8)}`;
const NOW = Date.parse('2031-03-01T12:00:00Z');
let now = NOW;
const events: EnquiryEvent[] = [];
const SELLER = 'cli_seller00000000000001';
const BROKER = 'cli_broker00000000000001';
const broker = { clientId: BROKER, scopes: ['enquiry:write'] };
const seller = { clientId: SELLER, scopes: ['enquiry:answer'] };
let slowLeg = 0;

const body = (over: Record<string, unknown> = {}) => ({ passengers: 4, contact: { name: 'Ada Broker', email: 'ada@example.com', phone: '+41221234567' }, message: 'Still free?', ...over });

function deps(): EnquiryDependencies {
  const read = createLegReader(t.client, t.legsTableName);
  return {
    table: { client: t.client, tableName: enquiriesTableName },
    readLeg: async (id) => {
      if (slowLeg > 0) await new Promise((r) => setTimeout(r, slowLeg));
      return read(id);
    },
    readSeller: (source) => readSeller(t.client, t.legsTableName, source),
    clock: () => now,
    targets: 'local',
    resolver: systemResolver,
    notify: (e) => {
      events.push(...e);
      return Promise.resolve();
    },
  };
}

const post = (key: string, legId: string, b: unknown, clientId = BROKER) => postEnquiry({ clientId, legId, key, body: b, traceId: randomUUID() }, deps());

/** The enquiry id in a stored answer's body. */
const idOf = (answer: { body: string }): string => (JSON.parse(answer.body) as { data: { id: string } }).data.id;

/** A client's open count as stored. */
async function openCountOf(client: string): Promise<unknown> {
  return (await t.client.send(new GetCommand({ TableName: enquiriesTableName, Key: { pk: `count#${client}` } }))).Item?.n;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
}

beforeAll(async () => {
  t = await createTestTables();
  await ensureTables(t.client, { legsTableName: t.legsTableName, keysTableName: t.keysTableName, enquiriesTableName });
  await writeLegs(t.client, t.legsTableName, [
    { ...storedLeg({ id: 'leg-a', startDate: '2031-03-03', endDate: '2031-03-04', seatNum: 8 }), source: 'acme' },
    { ...storedLeg({ id: 'leg-b', startDate: '2031-03-03', endDate: '2031-03-04' }), source: 'nosell' },
    { ...storedLeg({ id: 'leg-c', startDate: '2031-03-02', endDate: '2031-03-02' }), source: 'acme' },
    { ...storedLeg({ id: 'leg-d', startDate: '2031-03-05', endDate: '2031-03-06' }), source: 'acme' },
  ]);
  await writeSeller(t.client, t.legsTableName, { source: 'acme', clientId: SELLER, enquiryUrl: null, secret: null, setAt: NOW });
});
afterAll(async () => {
  await t.client.send(new DeleteTableCommand({ TableName: enquiriesTableName })).catch(() => undefined);
  await t.drop();
});

describe('Idempotency-Key', () => {
  it('20 concurrent POSTs with one key make one enquiry and one seller event; every answer is the same or 409 IDEMPOTENCY_KEY_IN_USE', async () => {
    events.length = 0;
    slowLeg = 30;
    const key = randomUUID();
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => post(key, 'leg-a', body())));
    slowLeg = 0;
    const answers = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as AppError] : []));
    expect(refused.every((e) => e instanceof AppError && e.code === 'IDEMPOTENCY_KEY_IN_USE')).toBe(true);
    expect(answers.length).toBeGreaterThanOrEqual(1);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    const created = JSON.parse(answers[0]!.body) as { data: { id: string; status: string; legId: string } };
    expect(created.data).toMatchObject({ status: 'open', legId: 'leg-a' });
    expect(events.filter((e) => e.type === 'enquiry.created').map((e) => e.enquiry.id)).toEqual([created.data.id]);
    // Once the first run ended, the key replays it.
    const again = await post(key, 'leg-a', { contact: body().contact, message: 'Still free?', passengers: 4 });
    expect(again).toMatchObject({ replayed: true, statusCode: 201, body: answers[0]!.body });
    const mine = await listOwnEnquiries(broker, { role: 'broker', status: undefined, size: 100, cursor: undefined }, deps());
    expect(mine.records.filter((r) => r.id === created.data.id)).toHaveLength(1);
    expect(mine.records).toHaveLength(1);
  });

  it('the same key with another body, or another leg, within 24 h is 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const key = randomUUID();
    await post(key, 'leg-a', body());
    expect(await codeOf(post(key, 'leg-a', body({ passengers: 5 })))).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await codeOf(post(key, 'leg-d', body()))).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('keys are per client: another client with the same key makes its own enquiry', async () => {
    const key = randomUUID();
    const a = await post(key, 'leg-a', body());
    const b = await post(key, 'leg-a', body(), 'cli_other000000000000001');
    expect(b.replayed).toBe(false);
    expect(idOf(b)).not.toBe(idOf(a));
  });

  it('a key replayed after 24 h on the injected clock makes a new enquiry', async () => {
    const key = randomUUID();
    const first = await post(key, 'leg-d', body());
    now = NOW + 24 * 3_600_000 - 1;
    expect((await post(key, 'leg-d', body())).replayed).toBe(true);
    now = NOW + 24 * 3_600_000;
    try {
      const second = await post(key, 'leg-d', body());
      expect(second.replayed).toBe(false);
      expect(idOf(second)).not.toBe(idOf(first));
    } finally {
      now = NOW;
    }
  });

  it('a refused request gives its key up: 404 and 409 ENQUIRIES_NOT_ACCEPTED are not replayed', async () => {
    const key = randomUUID();
    expect(await codeOf(post(key, 'no-such-leg', body()))).toBe('NOT_FOUND');
    expect(await codeOf(post(randomUUID(), 'leg-b', body()))).toBe('ENQUIRIES_NOT_ACCEPTED');
    expect(await codeOf(post(randomUUID(), 'leg-a', body({ passengers: 9 })))).toBe('INVALID_PARAMETER');
  });
});

describe('limits and lifecycle', () => {
  it('a client holding 200 open enquiries is refused 409 ENQUIRY_LIMIT_REACHED (its count set by hand)', async () => {
    const client = 'cli_full0000000000000001';
    await t.client.send(new PutCommand({ TableName: enquiriesTableName, Item: { pk: `count#${client}`, n: MAX_OPEN_PER_CLIENT } }));
    expect(await codeOf(post(randomUUID(), 'leg-a', body(), client))).toBe('ENQUIRY_LIMIT_REACHED');
    await t.client.send(new PutCommand({ TableName: enquiriesTableName, Item: { pk: `count#${client}`, n: MAX_OPEN_PER_CLIENT - 1 } }));
    expect(await codeOf(post(randomUUID(), 'leg-a', body(), client))).toBe('OK');
  });

  it('withdrawn twice is 200 with nothing changed; an answer after it is 409 ENQUIRY_CLOSED; the count goes down once', async () => {
    const client = 'cli_withdraw000000000001';
    const id = idOf(await post(randomUUID(), 'leg-a', body(), client));
    const caller = { clientId: client, scopes: ['enquiry:write'] };
    const count = () => openCountOf(client);
    expect(await count()).toBe(1);
    const first = await withdrawEnquiry(caller, id, deps());
    const second = await withdrawEnquiry(caller, id, deps());
    expect(first.status).toBe('withdrawn');
    expect(second).toEqual(first);
    expect(await count()).toBe(0);
    expect(await codeOf(answerEnquiry(seller, id, { status: 'declined', reason: 'SOLD' }, deps()))).toBe('ENQUIRY_CLOSED');
  });

  it('the seller answers once: the same answer again is 200, another is 409; another client gets 404', async () => {
    events.length = 0;
    const id = idOf(await post(randomUUID(), 'leg-d', body()));
    expect((await readEnquiry(seller, id, deps())).contact.email).toBe('ada@example.com');
    expect(await codeOf(readEnquiry({ clientId: 'cli_nosy0000000000000001', scopes: ['enquiry:write', 'enquiry:answer'] }, id, deps()))).toBe('NOT_FOUND');
    expect(await codeOf(withdrawEnquiry(seller, id, deps()))).toBe('NOT_FOUND');
    const quote = { status: 'quoted', price: 12500, currency: 'EUR', message: 'For 4' };
    const answered = await answerEnquiry(seller, id, quote, deps());
    expect(answered).toMatchObject({ status: 'quoted', answer: { status: 'quoted', price: 12500, currency: 'EUR', validUntil: null, message: 'For 4' } });
    expect(await answerEnquiry(seller, id, quote, deps())).toEqual(answered);
    expect(await codeOf(answerEnquiry(seller, id, { ...quote, price: 12000 }, deps()))).toBe('ENQUIRY_CLOSED');
    expect(await codeOf(withdrawEnquiry(broker, id, deps()))).toBe('ENQUIRY_CLOSED');
    expect(events.filter((e) => e.type === 'enquiry.answered').map((e) => e.enquiry.id)).toEqual([id]);
    const sellers = await listOwnEnquiries(seller, { role: 'seller', status: 'quoted', size: 20, cursor: undefined }, deps());
    expect(sellers.records.map((r) => r.id)).toContain(id);
  });

  it('an open enquiry past its departure is expired (departed) when moved: 409 ENQUIRY_CLOSED', async () => {
    const id = idOf(await post(randomUUID(), 'leg-c', body()));
    const enquiry = await readEnquiry(broker, id, deps());
    expect(enquiry.expiresAt).toBe('2031-03-03T00:00:00.000Z');
    now = Date.parse(enquiry.expiresAt);
    try {
      expect(await codeOf(answerEnquiry(seller, id, { status: 'declined', reason: 'OTHER' }, deps()))).toBe('ENQUIRY_CLOSED');
      expect(await readEnquiry(broker, id, deps())).toMatchObject({ status: 'expired', expiredReason: 'departed' });
    } finally {
      now = NOW;
    }
  });
});

describe('expiry when the leg leaves the listing', () => {
  it("a withdrawn change expires the leg's open enquiries, and only those; a batch given again changes nothing", async () => {
    events.length = 0;
    const client = 'cli_expiry00000000000001';
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(idOf(await post(randomUUID(), 'leg-a', body(), client)));
    const other = idOf(await post(randomUUID(), 'leg-d', body(), client));
    const caller = { clientId: client, scopes: ['enquiry:write'] };
    await withdrawEnquiry(caller, ids[2]!, deps());
    const leg = { id: 'leg-a' } as never;
    const expire = createEnquiryExpiry(deps());
    const transition = { id: 'leg-a', changedAt: new Date(NOW).toISOString(), before: leg, after: null };
    await expire([transition]);
    await expire([transition]);
    expect((await readEnquiry(caller, ids[0]!, deps())).status).toBe('expired');
    expect((await readEnquiry(caller, ids[1]!, deps())).expiredReason).toBe('unlisted');
    expect((await readEnquiry(caller, ids[2]!, deps())).status).toBe('withdrawn');
    expect((await readEnquiry(caller, other, deps())).status).toBe('open');
    // Every open enquiry of leg-a (earlier tests' too) expired once; none of another leg, none closed before.
    const expired = events.filter((e) => e.type === 'enquiry.expired').map((e) => e.enquiry);
    expect(new Set(expired.map((e) => e.id)).size).toBe(expired.length);
    expect(expired.every((e) => e.legId === 'leg-a')).toBe(true);
    expect(expired.map((e) => e.id)).toEqual(expect.arrayContaining([ids[0], ids[1]]));
    expect(expired.map((e) => e.id)).not.toContain(ids[2]);
    expect(await openCountOf(client)).toBe(1);
  });
});
