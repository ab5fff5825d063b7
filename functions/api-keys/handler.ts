import { createFunctionClient } from '../../src/aws/function-clients.js';
import { functionConfig } from '../../src/config.js';
import { createApiKeysHandler } from '../../src/api-keys/handlers.js';

/** The /open/v1/api-keys routes (src/routes.ts); the handlers are built by src/api-keys/handlers.ts. */
const config = functionConfig();
const client = createFunctionClient(config);
export const handler = createApiKeysHandler({ client, tableName: config.keysTableName, clock: config.clock });
