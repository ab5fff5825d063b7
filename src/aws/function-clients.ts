import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { functionConfig } from '../config.js';
import { FUNCTION_DYNAMODB_BUDGET } from '../time-budget.js';
import { createDocumentClient } from './dynamodb.js';

/**
 * The functions' DynamoDB client: created once per container, at module scope, from the validated
 * configuration (real AWS unless DYNAMODB_ENDPOINT is set). Only the functions import this module,
 * so local tooling that sets the environment first (npm start, the benchmark) gets a client for it.
 * Its calls have the functions' time budget (src/time-budget.ts).
 */
export const documentClient: DynamoDBDocumentClient = createDocumentClient({
  endpoint: functionConfig().dynamodbEndpoint,
  budget: FUNCTION_DYNAMODB_BUDGET,
});
