import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '../local/dynamodb-local.js';

/**
 * What a page of a global secondary index costs on DynamoDB Local (docs/performance.md, "The listing
 * snapshot"): 20,000 items in one bucket, read through an index projecting a 50-byte attribute,
 * KEYS_ONLY or ALL, with items of about 950 bytes and of about 100. Prints the pages and the time of
 * a full read (the third of three; the first two warm the JVM). Run:
 *
 *     node --import tsx bench/local-pages.ts
 */
const db = await startDynamoDbLocal({});
const c = db.client;
async function table(name: string, projection: 'KEYS_ONLY' | 'INCLUDE' | 'ALL') {
  await c.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'S' },
        { AttributeName: 'lb', AttributeType: 'S' },
        { AttributeName: 'ls', AttributeType: 'S' },
      ],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'ix1',
          KeySchema: [
            { AttributeName: 'lb', KeyType: 'HASH' },
            { AttributeName: 'ls', KeyType: 'RANGE' },
          ],
          Projection: projection === 'INCLUDE' ? { ProjectionType: 'INCLUDE', NonKeyAttributes: ['lf'] } : { ProjectionType: projection },
        },
      ],
    }),
  );
}
async function fill(name: string, n: number, pad: number) {
  const items = Array.from({ length: n }, (_, i) => ({
    id: `EL-${String(i).padStart(7, '0')}`,
    lb: 'b',
    ls: `2026-11-${String((i % 28) + 1).padStart(2, '0')}#EL-${String(i).padStart(7, '0')}`,
    lf: 'x'.repeat(50),
    pad: 'p'.repeat(pad),
  }));
  const batches: (typeof items)[] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < batches.length) {
        const b = batches[next++]!;
        await c.send(new BatchWriteCommand({ RequestItems: { [name]: b.map((Item) => ({ PutRequest: { Item } })) } }));
      }
    }),
  );
}
async function readAll(name: string) {
  let pages = 0;
  let items = 0;
  const t0 = performance.now();
  let key: Record<string, unknown> | undefined;
  const counts: number[] = [];
  do {
    const out = await c.send(
      new QueryCommand({ TableName: name, IndexName: 'ix1', KeyConditionExpression: 'lb = :b', ExpressionAttributeValues: { ':b': 'b' }, ExclusiveStartKey: key }),
    );
    pages++;
    items += out.Count ?? 0;
    counts.push(out.Count ?? 0);
    key = out.LastEvaluatedKey;
  } while (key);
  const ms = performance.now() - t0;
  return { pages, items, ms: Math.round(ms), perPage: Math.round(ms / pages), first: counts[0] };
}
for (const [proj, pad] of [
  ['INCLUDE', 850],
  ['KEYS_ONLY', 850],
  ['INCLUDE', 0],
  ['ALL', 0],
] as const) {
  const name = `t-${proj}-${pad}`;
  await table(name, proj);
  await fill(name, 20000, pad);
  await readAll(name);
  await readAll(name);
  console.log(proj, pad, JSON.stringify(await readAll(name)));
}
await db.stop();
