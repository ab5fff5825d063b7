import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { ensureTables } from '../../local/dynamodb-local.js';

/**
 * For integration tests: a client on the DynamoDB Local that the global setup started, and a fresh
 * pair of uniquely named tables per call, so test files never see each other's data.
 */
export interface TestTables {
  client: DynamoDBDocumentClient;
  endpoint: string;
  legsTableName: string;
  keysTableName: string;
  drop(): Promise<void>;
}

export async function createTestTables(): Promise<TestTables> {
  const endpoint = process.env.DYNAMODB_TEST_ENDPOINT;
  if (!endpoint) throw new Error('DYNAMODB_TEST_ENDPOINT is not set: run this test in the integration project');
  const client = createDocumentClient({ endpoint, region: 'local' });
  const suffix = randomUUID().slice(0, 8);
  const names = { legsTableName: `legs-${suffix}`, keysTableName: `keys-${suffix}` };
  await ensureTables(client, names);
  return {
    client,
    endpoint,
    ...names,
    async drop() {
      for (const TableName of [names.legsTableName, names.keysTableName]) {
        await client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
      }
      client.destroy();
    },
  };
}
