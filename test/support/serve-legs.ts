import { BatchGetCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AwsStub } from 'aws-sdk-client-mock';
import { toStorageItem, type StoredLeg } from '../../src/kernel/leg-item.js';

/**
 * Answers the list function's reads from `legs` on a mocked document client: the listing index's
 * Query by bucket (in sort-key order, `id`, `ls` and `lf` only), BatchGet of the page's items, and
 * no snapshot (GetCommand finds nothing).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function serveLegs(ddb: AwsStub<any, any, any>, legs: readonly StoredLeg[]): void {
  const items = legs.map(toStorageItem).sort((a, b) => ((a.ls as string) < (b.ls as string) ? -1 : 1));
  ddb.reset();
  ddb.on(GetCommand).resolves({});
  ddb.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => ({
    Items: items.filter((i) => i.lb === input.ExpressionAttributeValues[':b']).map((i) => ({ id: i.id, ls: i.ls, lf: i.lf })),
  }));
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => {
    const [table, req] = Object.entries(input.RequestItems)[0]!;
    return { Responses: { [table]: req.Keys.map((k) => items.find((i) => i.id === k.id)).filter(Boolean) } };
  });
}

