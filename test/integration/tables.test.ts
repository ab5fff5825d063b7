import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { createTestTables, type TestTables } from '../support/dynamodb.js';
import { LEGS_INDEX } from '../../src/tables.js';

describe('table definitions on DynamoDB Local', () => {
  let t: TestTables;
  beforeAll(async () => {
    t = await createTestTables();
  });
  afterAll(async () => t.drop());

  it('creates the legs table with the sparse bucket index projecting only the filter attribute', async () => {
    const d = await t.client.send(new DescribeTableCommand({ TableName: t.legsTableName }));
    const gsi = d.Table?.GlobalSecondaryIndexes?.find((i) => i.IndexName === LEGS_INDEX.indexName);
    expect(gsi?.IndexName).toBe(LEGS_INDEX.indexName);
    expect(gsi?.Projection).toEqual({ ProjectionType: 'INCLUDE', NonKeyAttributes: ['lf'] });
    expect(gsi?.KeySchema).toEqual([
      { AttributeName: 'lb', KeyType: 'HASH' },
      { AttributeName: 'ls', KeyType: 'RANGE' },
    ]);
  });
});
