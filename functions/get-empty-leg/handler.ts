import { createFunctionClient } from '../../src/aws/function-clients.js';
import { functionConfig } from '../../src/config.js';
import { createGetLegHandler } from '../../src/leg-by-id/handler.js';
import { createLegReader } from '../../src/leg-by-id/store.js';

/** GET /open/v1/empty-legs/{id} (src/routes.ts); the handler is built by src/leg-by-id/handler.ts. */
const config = functionConfig();
const client = createFunctionClient(config);
export const handler = createGetLegHandler({ readLeg: createLegReader(client, config.legsTableName), clock: config.clock });
