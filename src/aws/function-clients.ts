import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../config.js';
import { FUNCTION_DYNAMODB_BUDGET } from '../time-budget.js';
import { createDocumentClient } from './dynamodb.js';

/**
 * The functions' DynamoDB client, real AWS unless `dynamodbEndpoint` is set, with the functions' time
 * budget: a handler file creates it once, at module scope; tooling passes a configuration of its own
 * (docs/storage.md, "The DynamoDB client").
 */
export function createFunctionClient(config: Pick<Config, 'dynamodbEndpoint' | 'aws'>): DynamoDBDocumentClient {
  return createDocumentClient({ ...config.aws, endpoint: config.dynamodbEndpoint, budget: FUNCTION_DYNAMODB_BUDGET });
}
