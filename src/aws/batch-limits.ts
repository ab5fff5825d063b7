/** Keys in one BatchGetItem request (DynamoDB's limit). */
export const BATCH_GET_LIMIT = 100;
/** BatchGetItem requests per batch of keys, the first included, before unprocessed keys give up (SERVICE_UNAVAILABLE). */
export const MAX_BATCH_GET_ATTEMPTS = 6;
