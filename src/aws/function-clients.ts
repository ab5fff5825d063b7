import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { functionConfig } from '../config.js';
import { createDocumentClient } from './dynamodb.js';

/**
 * The functions' DynamoDB client: created once per container, at module scope, from the validated
 * configuration (real AWS unless DYNAMODB_ENDPOINT is set). Only the functions import this module,
 * so local tooling that sets the environment first (npm start, the benchmark) gets a client for it.
 */
export const documentClient: DynamoDBDocumentClient = createDocumentClient({
  endpoint: functionConfig().dynamodbEndpoint,
});
