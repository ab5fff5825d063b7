import { beforeEach, describe, expect, it } from '@jest/globals';
import { gunzipSync } from 'node:zlib';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { rejectedContext, verifiedContext, type AuthorizerContext } from '../../../src/auth/verdict.js';
import { decodeCursor, encodeCursor } from '../../../src/changes/cursor.js';
import { createChangesHandler } from '../../../src/changes/handlers.js';
import { createChangeLogStore, HEAD_ID } from '../../../src/changes/store.js';
import { fixedClock } from '../../../src/clock.js';
import { toApiRecord } from '../../../src/kernel/model.js';
import { toStorageItem } from '../../../src/kernel/leg-item.js';
import { TEST_KEY, lambdaContext, listEvent } from '../../support/events.js';
import { storedLeg } from '../../support/legs.js';
import { testDocumentClient } from '../../support/handlers.js';

/** GET /open/v1/empty-legs/changes: the handler as functions/list-changes/handler.ts builds it, DynamoDB mocked. */
const ddb = mockClient(DynamoDBDocumentClient);
const NOW = '2026-11-25T10:00:00Z';
const KEY = 'cursor-key-of-the-tests-0123456789abcdef';
const handler = createChangesHandler({ store: createChangeLogStore(testDocumentClient(), 'legs'), clock: fixedClock(NOW), cursorKey: KEY });
const LEG = toStorageItem(storedLeg({ id: 'EL-1', startDate: '2026-12-01', endDate: '2026-12-03', price: 10 }));

function event(params: Record<string, string> | undefined, authorizer: AuthorizerContext | null = verifiedContext(TEST_KEY)) {
  const e = listEvent(params, authorizer);
  return { ...e, routeKey: 'GET /open/v1/empty-legs/changes', rawPath: '/open/v1/empty-legs/changes' };
}

async function call(params?: Record<string, string>, authorizer?: AuthorizerContext | null) {
  const res = await handler(event(params, authorizer), lambdaContext());
  const text = res.isBase64Encoded ? gunzipSync(Buffer.from(res.body ?? '', 'base64')).toString('utf8') : (res.body ?? '');
  return { res, body: JSON.parse(text) as { code: string; message: string; data: { changes: { type: string; id: string; leg: unknown }[]; cursor: string; hasMore: boolean } | null } };
}

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand, { Key: { id: HEAD_ID } }).resolves({ Item: { id: HEAD_ID, q: 2 } });
  ddb.on(ScanCommand).resolves({ Items: [LEG, { id: '~journal', v: 1 }] });
  ddb.on(BatchGetCommand).resolves({
    Responses: { legs: [{ id: '~change#3', q: 3, k: 'w', l: 'EL-9', a: Date.parse(NOW) - 1000 }] },
  });
});

describe('GET /open/v1/empty-legs/changes', () => {
  it('without after: the listed legs as `listed`, then the log from the head read first; a cursor to go on', async () => {
    const { res, body } = await call({ size: '5' });
    expect(res.statusCode).toBe(200);
    expect(body.data!.changes).toEqual([{ type: 'listed', id: 'EL-1', changedAt: '2026-11-25T10:00:00.000Z', leg: toApiRecord(LEG) }]);
    expect(body.data!.hasMore).toBe(false);
    expect(decodeCursor(body.data!.cursor, KEY)).toEqual({ kind: 'log', seq: 2, safeAt: Date.parse(NOW) });
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({ ConsistentRead: true });
  });

  it('after a cursor: the entries after it, read by key, strongly consistent', async () => {
    ddb.on(GetCommand, { Key: { id: HEAD_ID } }).resolves({ Item: { id: HEAD_ID, q: 3 } });
    const after = encodeCursor({ kind: 'log', seq: 2, safeAt: Date.parse(NOW) }, KEY);
    const { body } = await call({ after });
    // An entry stored without a reason (written before reasons existed) reads `unlisted`.
    expect(body.data!.changes).toEqual([{ type: 'withdrawn', id: 'EL-9', changedAt: '2026-11-25T09:59:59.000Z', leg: null, reason: 'unlisted' }]);
    expect(ddb.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems).toEqual({ legs: { Keys: [{ id: '~change#3' }], ConsistentRead: true } });
    expect(ddb.commandCalls(ScanCommand)).toHaveLength(0);
  });

  it('size clamps into 1-1000; a non-integer size or a malformed cursor is 400 naming it; an old cursor is 410 CURSOR_EXPIRED', async () => {
    expect((await call({ size: 'abc' })).body).toMatchObject({ code: 'INVALID_PARAMETER', message: "Invalid parameter 'size': must be an integer" });
    expect((await call({ after: '%%' })).res.statusCode).toBe(400);
    expect((await call({ after: Buffer.from('{"v":2}').toString('base64url') })).body.code).toBe('INVALID_PARAMETER');
    // Signed: forged, altered (an expiry skipped), signed with another key: 400; unsigned (made before cursors were signed): 410.
    const valid = encodeCursor({ kind: 'log', seq: 2, safeAt: Date.parse(NOW) - 31 * 86_400_000 }, KEY);
    const body = (c: object) => Buffer.from(JSON.stringify(c)).toString('base64url');
    const altered = body({ v: 2, s: 2, t: Date.parse(NOW) }) + valid.slice(-22);
    const forged = body({ v: 2, s: 2, t: Date.parse(NOW) }) + 'A'.repeat(22);
    const otherKey = encodeCursor({ kind: 'log', seq: 2, safeAt: Date.parse(NOW) }, `${KEY}-other`);
    for (const after of [altered, forged, otherKey, valid.slice(0, -1), valid.slice(0, -22)]) {
      expect((await call({ after })).body).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining("'after'") as unknown });
    }
    const unsigned = await call({ after: body({ v: 1, s: 2, t: Date.parse(NOW) }) });
    expect(unsigned.res.statusCode).toBe(410);
    expect(unsigned.body.message).toContain('before cursors were signed');
    const old = valid;
    const expired = await call({ after: old });
    expect(expired.res.statusCode).toBe(410);
    expect(expired.body).toMatchObject({ code: 'CURSOR_EXPIRED', data: null });
    // Pages that go on, as DynamoDB's do: a leg settles when the next one's group starts.
    const next = toStorageItem(storedLeg({ id: 'EL-2', startDate: '2026-12-02', endDate: '2026-12-04', price: 10 }));
    ddb.on(ScanCommand).resolvesOnce({ Items: [LEG], LastEvaluatedKey: { id: 'EL-1' } }).resolves({ Items: [next], LastEvaluatedKey: { id: 'EL-2' } });
    const one = await call({ size: '0' });
    expect(one.body.data!.changes).toHaveLength(1);
    expect(one.body.data!.hasMore).toBe(true);
    expect(ddb.commandCalls(ScanCommand).at(-1)!.args[0].input.Limit).toBe(100);
  });

  it('needs the scope; a throttled table is 503', async () => {
    expect((await call(undefined, rejectedContext('API_KEY_MISSING', 'An API key is required in the X-API-Key header'))).res.statusCode).toBe(401);
    expect((await call(undefined, verifiedContext({ ...TEST_KEY, scopes: [] }))).res.statusCode).toBe(403);
    ddb.on(GetCommand).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));
    const { res, body } = await call();
    expect(res.statusCode).toBe(503);
    expect(body.code).toBe('SERVICE_UNAVAILABLE');
  });
});
