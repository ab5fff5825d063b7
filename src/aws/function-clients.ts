import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../config.js';
import { FUNCTION_DYNAMODB_BUDGET } from '../time-budget.js';
import { createDocumentClient } from './dynamodb.js';

/**
 * The functions' DynamoDB client, from the configuration it is given (real AWS unless
 * `dynamodbEndpoint` is set), with the functions' time budget (src/time-budget.ts). A function's
 * handler file creates it once, at module scope, from the configuration it read; tooling (the
 * benchmark, tests) calls it with a configuration of its own, no environment variables needed.
 */
export function createFunctionClient(config: Pick<Config, 'dynamodbEndpoint' | 'aws'>): DynamoDBDocumentClient {
  return createDocumentClient({ ...config.aws, endpoint: config.dynamodbEndpoint, budget: FUNCTION_DYNAMODB_BUDGET });
}
