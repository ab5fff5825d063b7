import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { createKey } from '../../src/api-keys/store.js';
import { writeSeller } from '../../src/enquiries/index.js';
import { clientIdOf } from '../../src/keys/format.js';
import { startLocalServer, type RunningService } from '../support/local-service.js';

/**
 * The enquiries' round trip over HTTP against `npm start` (docs/api.md, "Enquiries"): the broker's
 * POST with its Idempotency-Key (replayed, then refused with another body), the seller's list and
 * quote, the broker's read, a withdrawal refused after the answer, another client's 404.
 */
jest.setTimeout(120_000);
let service: RunningService;
let sellerKey: string;
let otherKey: string;

type Answer = { status: number; headers: Headers; body: { code: string; data: Record<string, unknown> | null } };
async function call(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
}

beforeAll(async () => {
  service = await startLocalServer({ fewLegs: true });
  const client = createDocumentClient({ endpoint: service.dynamodbEndpoint, region: 'local' });
  try {
    const seller = await createKey(client, service.keysTableName, { environment: 'test', scopes: ['enquiry:answer'], name: 'seller' });
    const other = await createKey(client, service.keysTableName, { environment: 'test', scopes: ['enquiry:write', 'enquiry:answer'], name: 'other' });
    sellerKey = seller.key;
    otherKey = other.key;
    await writeSeller(client, service.legsTableName, { source: 'default', clientId: clientIdOf(seller.record), enquiryUrl: null, secret: null, setAt: 0 });
  } finally {
    client.destroy();
  }
});
afterAll(async () => {
  await service?.stop();
});

describe('enquiries over HTTP', () => {
  it('the round trip: ask (replayed with its key), the seller quotes, the broker reads it', async () => {
    const leg = (await call(service.apiKey, 'GET', '/open/v1/empty-legs?size=1')).body.data as { records: { id: string }[] };
    const legId = leg.records[0]!.id;
    const path = `/open/v1/empty-legs/${legId}/enquiries`;
    const ask = { passengers: 2, contact: { name: 'Ada Broker', email: 'ada@example.com' }, reference: 'REQ-1' };

    expect((await call(service.apiKey, 'POST', path, ask)).body.code).toBe('INVALID_PARAMETER');
    const key = randomUUID();
    const first = await call(service.apiKey, 'POST', path, ask, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(first.body.data).toMatchObject({ legId, status: 'open', passengers: 2, reference: 'REQ-1', answer: null });
    const id = first.body.data!.id as string;
    const again = await call(service.apiKey, 'POST', path, { reference: 'REQ-1', passengers: 2, contact: ask.contact }, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const changed = await call(service.apiKey, 'POST', path, { ...ask, passengers: 3 }, { 'Idempotency-Key': key });
    expect([changed.status, changed.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);

    const listed = await call(sellerKey, 'GET', '/open/v1/enquiries?role=seller');
    expect((listed.body.data as { records: { id: string }[] }).records.map((r) => r.id)).toEqual([id]);
    expect((await call(sellerKey, 'GET', '/open/v1/enquiries')).body.code).toBe('PERMISSION_DENIED');
    const quote = { status: 'quoted', price: 9800, currency: 'EUR' };
    const quoted = await call(sellerKey, 'POST', `/open/v1/enquiries/${id}/answer`, quote);
    expect([quoted.status, quoted.body.data?.status]).toEqual([200, 'quoted']);
    expect((await call(sellerKey, 'POST', `/open/v1/enquiries/${id}/answer`, quote)).status).toBe(200);
    expect((await call(sellerKey, 'POST', `/open/v1/enquiries/${id}/answer`, { status: 'declined', reason: 'SOLD' })).body.code).toBe('ENQUIRY_CLOSED');

    const read = await call(service.apiKey, 'GET', `/open/v1/enquiries/${id}`);
    expect(read.body.data).toMatchObject({ id, status: 'quoted', answer: { status: 'quoted', price: 9800, currency: 'EUR' } });
    expect((await call(service.apiKey, 'POST', `/open/v1/enquiries/${id}/withdraw`)).body.code).toBe('ENQUIRY_CLOSED');
    const other = await call(otherKey, 'GET', `/open/v1/enquiries/${id}`);
    expect([other.status, other.body.code]).toEqual([404, 'NOT_FOUND']);
  });
});
