import { beforeEach, describe, expect, it } from '@jest/globals';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createChangeLogStore } from '../../../src/changes/store.js';
import { testDocumentClient } from '../../support/handlers.js';

/** How the listing's followers read the change log's index pages (src/changes/store.ts indexChanges), DynamoDB mocked. */
const ddb = mockClient(DynamoDBDocumentClient);
const store = createChangeLogStore(testDocumentClient(), 'legs');
// Entries 49 and 50 sit on pages 0 and 1 (50 entries a page).
const PAGE_0 = { id: '~changes#p0', c49: ['EL-1', '2026-12', '2026-12-01#EL-1', 'f'] };
const PAGE_1 = { id: '~changes#p1', c50: ['EL-2'] };
const PAGE_1_STALE = { id: '~changes#p1' };

function reads(): { ids: unknown[]; consistent: boolean }[] {
  return ddb.commandCalls(BatchGetCommand).map((c) => {
    const request = c.args[0].input.RequestItems!.legs!;
    return { ids: (request.Keys ?? []).map((k): unknown => k.id), consistent: request.ConsistentRead === true };
  });
}

beforeEach(() => {
  ddb.reset();
});

describe('the change log index pages a follower reads', () => {
  it('reads them eventually consistent when every entry is there: one request, half the read units', async () => {
    ddb.on(BatchGetCommand).resolves({ Responses: { legs: [PAGE_0, PAGE_1] } });
    const sets = await store.indexChanges(49, 50);
    expect(sets).toEqual([
      { v: 49, changes: [{ id: 'EL-1', index: { lb: '2026-12', ls: '2026-12-01#EL-1', lf: 'f' } }] },
      { v: 50, changes: [{ id: 'EL-2' }] },
    ]);
    expect(reads()).toEqual([{ ids: ['~changes#p0', '~changes#p1'], consistent: false }]);
  });

  it('reads again, strongly consistent, only the pages a stale replica gave without an entry', async () => {
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { legs: [PAGE_0, PAGE_1_STALE] } })
      .resolves({ Responses: { legs: [PAGE_1] } });
    const sets = await store.indexChanges(49, 50);
    expect(sets.map((s) => s?.v)).toEqual([49, 50]);
    expect(reads()).toEqual([
      { ids: ['~changes#p0', '~changes#p1'], consistent: false },
      { ids: ['~changes#p1'], consistent: true },
    ]);
  });

  it('an entry missing from the strongly consistent read too is gone (expired): undefined in its place', async () => {
    ddb.on(BatchGetCommand).resolves({ Responses: { legs: [PAGE_0] } });
    const sets = await store.indexChanges(49, 50);
    expect(sets.map((s) => s?.v)).toEqual([49, undefined]);
    expect(reads().map((r) => r.consistent)).toEqual([false, true]);
  });
});
