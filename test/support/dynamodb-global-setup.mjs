// Jest loads global setup outside its module mapper, so this file is plain ESM and loads the
// TypeScript launcher through tsx. One DynamoDB Local serves the whole integration project; each
// test file creates its own uniquely named tables (test/support/dynamodb.ts).
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  // Several projects (integration, and the TEST_INSTANTS ones) share the first one started.
  if (globalThis.__DYNAMODB_LOCAL__) return;
  const { startDynamoDbLocal } = await tsImport('../../local/dynamodb-local.ts', import.meta.url);
  const ddb = await startDynamoDbLocal();
  globalThis.__DYNAMODB_LOCAL__ = ddb;
  process.env.DYNAMODB_TEST_ENDPOINT = ddb.endpoint;
}
