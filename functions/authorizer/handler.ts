import { createFunctionClient } from '../../src/aws/function-clients.js';
import { functionConfig } from '../../src/config.js';
import { createAuthorizerHandler } from '../../src/keys/authorizer-handler.js';

/**
 * Lambda authorizer of the HTTP API (simple responses, no identity source, no gateway cache): it
 * never denies and hands its verdict on a key to the function in the context (docs/api.md, "How
 * keys are checked"). The logic, and the per-container cache, live in src/keys/authorizer.ts.
 */
const config = functionConfig();
const client = createFunctionClient(config);
export const handler = createAuthorizerHandler({
  client,
  tableName: config.keysTableName,
  stage: config.stage,
  now: config.clock,
  originSecret: config.originSecret,
  failedAuthLimit: config.failedAuthLimit,
});
